"""Questions of one to three words whose letters tell their language ("Wärmepumpen", "Économie",
"Przyszłość"), and English ones that write a foreign name or loanword with its accents, which stay English."""

from __future__ import annotations

import pytest

from engine.language import detect_language

#: (question, language): each language's short questions with letters English lacks, one word first.
LETTERED = [
    ("Wärmepumpen", "de"), ("Wärmepumpe", "de"), ("Förderung", "de"), ("Größe", "de"), ("Fußball", "de"),
    ("Klimaänderung", "de"), ("Mülltrennung", "de"), ("Mieterhöhung?", "de"),
    ("Energiewende Förderung", "de"), ("Wärmepumpen Förderung?", "de"), ("Kosten für Wärmepumpen", "de"),
    ("Heizkörper tauschen?", "de"), ("Bürgergeld Höhe", "de"), ("Gebäudeenergiegesetz Änderungen", "de"),
    ("Économie", "fr"), ("Énergie", "fr"), ("Laïcité", "fr"), ("Fiscalité ?", "fr"),
    ("Élection présidentielle", "fr"), ("Réchauffement climatique", "fr"), ("Électricité prix", "fr"),
    ("Señales", "es"), ("Energía", "es"), ("¿Inflación?", "es"), ("¿Precio?", "es"),
    ("Año nuevo", "es"), ("Economía española", "es"), ("Pensión mínima", "es"), ("Calefacción eléctrica", "es"),
    ("Città", "it"), ("Perché?", "it"), ("Sostenibilità", "it"), ("Università", "it"),
    ("Perché costa tanto?", "it"), ("Qualità dell'aria", "it"),
    ("Educação", "pt"), ("Eleições", "pt"), ("Previdência", "pt"), ("Inflação", "pt"),
    ("Eleições presidenciais", "pt"), ("Saúde pública", "pt"), ("Energia elétrica preço", "pt"),
    ("Bezpieczeństwo", "pl"), ("Przyszłość", "pl"), ("Łódź", "pl"), ("Pompa ciepła", "pl"),
    ("Źródła energii", "pl"), ("Ogrzewanie domu koszt", "pl"),
    ("Závislost", "cs"), ("Řízení", "cs"), ("Čeština", "cs"), ("Tepelné čerpadlo", "cs"),
    ("Ceny energií", "cs"), ("Důchodová reforma", "cs"),
    ("Välfärd", "sv"), ("Värmepump", "sv"), ("Kärnkraft", "sv"), ("Värmepump kostnad", "sv"),
    ("Elpris höjning", "sv"),
    ("Öğrenci", "tr"), ("Güneş enerjisi", "tr"), ("Ekonomi büyümesi", "tr"), ("Deprem güvenliği", "tr"),
    ("Isı pompası", "tr"), ("Asgari ücret", "tr"),
    ("Økonomi", "da"), ("Grøn omstilling", "da"), ("Strømpris", "no"), ("Bærekraft", "no"),
    ("Lämpöpumppu", "fi"), ("Sähkön hinta", "fi"), ("Învățământ", "ro"), ("Pensii și salarii", "ro"),
    ("Hőszivattyú", "hu"), ("Választások", "hu"),
]

#: English questions with a name or loanword that English text writes with its accents, or with
#: English words beside a foreign name: English, as they were.
ENGLISH = [
    "What did Jürgen Habermas write?", "Is Škoda reliable?", "café culture in Paris", "Café culture", "Café",
    "Nestlé", "Nestlé revenue?", "Naïve Bayes", "Naïve", "résumé tips", "Résumé", "Pokémon", "Pokémon cards",
    "Beyoncé", "Jalapeño recipes", "Piñata", "Zürich", "Müller", "Jürgen Habermas", "Gödel incompleteness",
    "Gödel's theorem", "Dvořák symphonies", "Björk albums", "Crème brûlée", "Déjà vu", "Doppelgänger meaning",
    "Fiancé visa", "Façade design", "Señor Frog's", "Škoda Octavia review", "Erdős number", "Ångström unit",
    "Łódź history", "History of Łódź", "Motörhead albums", "Mötley Crüe", "Citroën reliability",
    "Renée Zellweger", "Zoë Saldana", "Chloë Grace Moretz", "São Paulo weather", "Curaçao beaches",
    "Malmö travel", "Gdańsk shipyard", "Kraków tours", "Brontë sisters", "Über Eats", "Mañana",
]


@pytest.mark.parametrize(("question", "language"), LETTERED)
def test_letters_english_lacks_tell_a_short_question_s_language(question, language):
    """"Wärmepumpen" was English (a question of one word was always ``default``), and so the
    clarifying question, the headings and the notes were; two words whose letters are a neighbour's
    too went to it ("Ekonomi büyümesi" was Swedish, "Ceny energií" Polish)."""
    assert detect_language(question) == language


@pytest.mark.parametrize("question", ENGLISH)
def test_a_foreign_name_or_loanword_leaves_an_english_question_english(question):
    """"Café culture" was Portuguese, "résumé tips" and "Crème brûlée" French, "Malmö travel"
    Swedish, "Jürgen Habermas" German."""
    assert detect_language(question) == "en"


@pytest.mark.parametrize("default", ["de", "fr", "en"])
@pytest.mark.parametrize("message", ["Pokémon", "Zürich", "Café?", "Kubernetes", "thanks"])
def test_one_word_that_tells_no_language_keeps_the_thread_s(message, default):
    assert detect_language(message, default=default) == default


@pytest.mark.parametrize("default", ["fr", "en"])
def test_one_word_of_a_language_is_that_language_s_in_any_thread(default):
    assert detect_language("Wärmepumpen", default=default) == "de"
