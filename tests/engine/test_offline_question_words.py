"""The words that frame a question (its interrogatives and their degree words, "how long"; auxiliaries;
light verbs of saying and of worth, "dijo", "lohnt"; prepositions, "sobre"; the verb of a split German
verb, "bricht … ab") are no topic: the offline review never says the sources failed to mention them, nor
suggests a follow-up about them, in every language it writes; and its phrases say what the question is
about without "the question asks the question"."""

from __future__ import annotations

import re

import pytest

from engine.offline_phrases import phrase
from engine.offline_review import unanswered
from engine.offline_terms import query_terms
from tests.bots.console_helpers import ask_offline

#: (language, question, a claim that answers it, the words that frame the question, the topics the claim
#: leaves out and the review must still name).
FRAMED = [
    ("en", "How long does a heat pump last in cold winters?", "A heat pump lasts 15 to 20 years. [S000001]",
     {"long"}, {"cold", "winters"}),
    ("en", "How often should a heat pump be serviced?", "Service a heat pump every year. [S000001]", {"often"}, set()),
    ("en", "What does the agency say about heat pumps?", "The agency expects heat pumps to halve emissions. [S000001]",
     {"say"}, set()),
    ("de", "Wie lange hält eine Wärmepumpe?", "Eine Wärmepumpe hält 20 Jahre. [S000001]", {"lange"}, set()),
    ("de", "Lohnt sich eine Wärmepumpe im Altbau?", "Eine Wärmepumpe rechnet sich nach zehn Jahren. [S000001]",
     {"Lohnt"}, {"Altbau"}),
    ("de", "Was sagt die Agentur über Wärmepumpen?", "Die Agentur erwartet weniger Emissionen durch Wärmepumpen. "
     "[S000001]", {"sagt"}, set()),
    ("fr", "Une pompe à chaleur vaut-elle la peine en hiver ?", "Une pompe à chaleur est rentable. [S000001]",
     {"vaut", "peine"}, {"hiver"}),
    ("fr", "Que disent les études sur les pompes à chaleur depuis 2020 ?",
     "Les études montrent que les pompes à chaleur réduisent les émissions. [S000001]", {"disent", "depuis"}, set()),
    ("es", "¿Qué dijo la agencia sobre las bombas de calor?",
     "La agencia afirmó que las bombas de calor reducen las emisiones. [S000001]", {"dijo", "sobre"}, set()),
    ("es", "¿Vale la pena una bomba de calor durante el invierno?", "Una bomba de calor es rentable. [S000001]",
     {"Vale", "pena", "durante"}, {"invierno"}),
    ("it", "Quanto spesso va controllata una pompa di calore?", "Una pompa di calore va controllata ogni anno. "
     "[S000001]", {"spesso"}, set()),
    ("it", "Cosa dicono gli esperti sulle pompe di calore?", "Gli esperti prevedono meno emissioni con le pompe di "
     "calore. [S000001]", {"dicono"}, set()),
    ("nl", "Loont een warmtepomp zonder isolatie?", "Een warmtepomp verdient zich terug. [S000001]",
     {"Loont", "zonder"}, {"isolatie"}),
    ("nl", "Hoe lang gaat een warmtepomp mee?", "Een warmtepomp gaat 20 jaar mee. [S000001]", {"lang"}, set()),
    ("pt", "O que disse a agência sobre as bombas de calor?",
     "A agência afirmou que as bombas de calor reduzem as emissões. [S000001]", {"disse", "sobre"}, set()),
    ("pt", "Vale a pena uma bomba de calor?", "Uma bomba de calor é rentável. [S000001]", {"Vale", "pena"}, set()),
    ("sv", "Lönar sig en värmepump?", "En värmepump är lönsam efter tio år. [S000001]", {"Lönar"}, set()),
    ("sv", "Hur länge håller en värmepump?", "En värmepump håller i 20 år. [S000001]", {"länge"}, set()),
    ("zh", "热泵能用多久？", "热泵一般可以使用十五到二十年。 [S000001]", {"多久"}, set()),
    ("zh", "热泵值得买吗？", "热泵在十年内可以收回成本。 [S000001]", {"值得"}, set()),
    ("ja", "機関はヒートポンプについて何と言っていますか？", "機関はヒートポンプの普及を求めている。 [S000001]",
     {"何と", "言っ"}, set()),
]


@pytest.mark.parametrize(("language", "question", "claim", "framing", "topics"), FRAMED,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(FRAMED)])
def test_the_words_that_frame_a_question_are_never_unanswered(language, question, claim, framing, topics):
    left = unanswered(question, [claim], language)
    assert not framing & set(left), left
    assert topics <= set(left), left


@pytest.mark.parametrize(("question", "language", "framing"), [
    ("¿Qué dijo la agencia sobre las bombas de calor?", "es", "sobre"),
    ("O que disse a agência sobre as bombas de calor?", "pt", "sobre"),
    ("Que disent les études sur les pompes à chaleur depuis 2020 ?", "fr", "depuis"),
    ("How long does a heat pump last?", "en", "long"),
])
def test_a_preposition_or_degree_word_is_no_term_of_the_question(question, language, framing):
    from engine.offline_terms import _stemmed

    assert _stemmed([framing], language)[0] not in query_terms(question, language)


#: English pages a German or Spanish question is asked over.
ASYNCIO = ("# Coroutines and Tasks\n\nTasks can easily and safely be cancelled with Task.cancel() in asyncio. When a "
           "task is cancelled, asyncio.CancelledError is raised in the task at the next opportunity.\n\nRunning many "
           "Tasks concurrently with asyncio pays off when a program waits for the network most of the time.\n")


@pytest.mark.parametrize(("question", "claim"), [
    ("Wie bricht asyncio Tasks ab?", "Tasks can be cancelled with Task.cancel() in asyncio. [S000001]"),
    ("Wie bricht man einen Task in asyncio ab?", "Ein Task wird in asyncio mit cancel() abgebrochen. [S000001]"),
    ("Bricht asyncio einen Task sofort ab?", "Ein Task wird in asyncio mit cancel() abgebrochen. [S000001]"),
])
def test_the_verb_of_a_split_german_verb_is_no_topic(question, claim):
    """"bricht … ab" asks about "abbrechen": "bricht" alone is in no text that cancels."""
    assert "bricht" not in {w.lower() for w in unanswered(question, [claim], "de")}


@pytest.mark.parametrize(("question", "topic"), [
    ("Welche Kosten fallen bei einer Wärmepumpe an?", "Kosten"),  # a noun after the question word
    ("Wärmepumpen im Winter: lohnt sich das?", "Wärmepumpen"),  # no particle at the end
])
def test_a_noun_is_never_taken_for_a_split_verb(question, topic):
    assert topic in unanswered(question, ["Eine Heizung braucht Strom. [S000001]"], "de")


@pytest.mark.slow
@pytest.mark.parametrize(("document", "question", "language", "framing"), [
    ("# Heat pumps\n\nA well maintained air-source heat pump lasts 15 to 20 years before its compressor needs "
     "replacing. Ground-source heat pumps last longer, often more than 25 years.\n",
     "How long does a heat pump last?", "en", ["long"]),
    (ASYNCIO, "Wie bricht asyncio Tasks ab?", "de", ["bricht"]),
    (ASYNCIO, "Lohnt sich asyncio für viele Tasks?", "de", ["Lohnt"]),
    (ASYNCIO, "¿Qué dijo la documentación sobre asyncio y las Tasks?", "es", ["dijo", "sobre"]),
    ("# Bombas de calor\n\nLa agencia de la energía afirmó que las bombas de calor reducen a la mitad las emisiones "
     "de los hogares.\n", "¿Qué dijo la agencia sobre las bombas de calor?", "es", ["dijo", "sobre"]),
], ids=["en-long", "de-bricht", "de-lohnt", "es-over-english", "es-dijo"])
def test_ask_neither_objects_to_nor_follows_up_on_the_words_that_frame_the_question(tmp_path, document, question,
                                                                                  language, framing):
    out, report = ask_offline(tmp_path, document, question)
    assert re.search(r"^- .* \[\d+\]$", report, re.MULTILINE), report  # the page is quoted
    review = report.split(f"## {phrase('review_outcome', language)}", 1)[1]
    follow_ups = out.stdout.partition("Suggested follow-up questions:")[2]
    for word in framing:
        assert not re.search(rf"[“„«「]{re.escape(word)}[”“»」]", review), review
        assert not re.search(rf"[“„«「]{re.escape(word)}[”“»」]", follow_ups), follow_ups


#: The question's noun used as its own verb ("la pregunta pregunta", "die Frage fragt", "问题问"), in each
#: language the review writes: a phrase says what the question is about instead.
_QUESTION_ASKS = {"en": r"question questions", "de": r"Frage fragt", "fr": r"question questionne",
                  "es": r"pregunta\w* la pregunta|pregunta pregunta", "it": r"domanda domanda",
                  "nl": r"vraag vraagt", "pt": r"pergunta pergunta", "sv": r"frågan frågar", "ja": r"質問が質問",
                  "zh": r"问题问", "zh-Hant": r"問題問"}


@pytest.mark.parametrize("key", ["unanswered", "not_addressed"])
def test_the_review_says_what_the_question_is_about_without_asking_the_question(key):
    from engine.offline_phrases import LANGUAGES

    for language in LANGUAGES:
        text = phrase(key, language, terms="«x»")
        assert not re.search(_QUESTION_ASKS[language], text), (language, text)


@pytest.mark.parametrize(("language", "expected"), [
    ("es", "Ninguna afirmación de la solución menciona «cuesta», de lo que trata la pregunta."),
    ("de", "Keine Aussage der Lösung erwähnt „Kosten“, worum es in der Frage geht."),
    ("fr", "Aucune affirmation de la solution ne mentionne «\u00a0coût\u00a0», ce sur quoi porte la question."),
])
def test_the_unanswered_point_reads_as_a_sentence_of_its_language(language, expected):
    word = {"es": "cuesta", "de": "Kosten", "fr": "coût"}[language]
    assert phrase("unanswered", language, terms=phrase("quoted", language, q=word)) == expected


@pytest.mark.parametrize(("question", "claim", "left"), [
    ("How loud are heat pumps $HOME_DIR?", "Heat pumps are loud at night. [S000001]", []),
    ("How loud are heat pumps? $HOME `rm -rf /` <script>alert(1)</script> \\section{x} 50% #tag",
     "Heat pumps are loud at night. [S000001]", ["alert"]),
    ("Where does expanduser look for $HOME?", "expanduser looks for $HOME first. [S000001]", []),
    ("How does Python read %APPDATA% and ${XDG_CONFIG_HOME}?", "Python reads the environment. [S000001]",
     []),
])
def test_marks_that_are_no_words_are_never_unanswered(question, claim, left):
    """Marks the selection leaves out of a question ("$HOME_DIR", "\\section", "#tag", "50%", the tags of
    "<script>…</script>": README "## The offline model") are not words the review says no claim mentions,
    nor what a follow-up asks about."""
    assert unanswered(question, [claim], "en") == left


@pytest.mark.parametrize(("language", "question", "measure", "topics"), [
    ("de", "Wie hoch ist die Jahresarbeitszahl von Luft-Wasser-Wärmepumpen?", "hoch", {"Jahresarbeitszahl"}),
    ("de", "Wie groß ist ein Solarmodul?", "groß", {"Solarmodul"}),
    ("de", "Wie teuer ist eine Wärmepumpe?", "teuer", {"Wärmepumpe"}),
    ("en", "How high is the efficiency of heat pumps?", "high", {"efficiency"}),
    ("en", "How expensive is a heat pump?", "expensive", {"heat", "pump"}),
    ("en", "How large is a solar panel?", "large", {"solar", "panel"}),
    ("fr", "Combien de temps dure une batterie ?", "temps", {"batterie"}),
    ("es", "¿Cuánto tiempo dura una batería?", "tiempo", {"batería"}),
    ("es", "¿Qué tan grande es un panel solar?", "grande", {"panel", "solar"}),
    ("es", "¿Cuán alta es la eficiencia de una bomba de calor?", "alta", {"eficiencia"}),
    ("it", "Quanto tempo dura una batteria?", "tempo", {"batteria"}),
    ("it", "Quanto è grande un pannello solare?", "grande", {"pannello"}),
    ("pt", "Quão grande é um painel solar?", "grande", {"painel"}),
    ("nl", "Hoe hoog is het rendement van een warmtepomp?", "hoog", {"rendement"}),
    ("sv", "Hur stor är en solpanel?", "stor", {"solpanel"}),
])
def test_a_measure_word_after_how_is_part_of_the_question_word(language, question, measure, topics):
    """"Wie hoch", "how high", "combien de temps", "qué tan grande" ask how much of what follows: the
    measure word is part of the question word, like "how long" and "wie viel", never a word a claim must
    name; the question word itself ("Cuán", "Quão") neither. What it measures still is."""
    left = unanswered(question, ["Nothing is said here about it at all. [S000001]"], language)
    assert measure not in {w.lower() for w in left}, left
    assert not {"cuán", "quão"} & {w.lower() for w in left}, left
    assert topics <= set(left), left


@pytest.mark.parametrize(("language", "question", "topic"), [
    ("en", "How efficient are heat pumps?", "efficient"),  # a quality, not a measure
    ("en", "Why are high temperatures bad for heat pumps?", "high"),  # not after "how"
    ("de", "Warum ist der Preis so hoch?", "hoch"),
])
def test_a_word_is_asked_when_no_how_word_makes_it_a_measure(language, question, topic):
    assert topic in unanswered(question, ["Nothing is said here about it at all. [S000001]"], language)


@pytest.mark.parametrize(("language", "question", "measure", "asked"), [
    ("de", "Wie hoch sind die Kosten einer Wärmepumpe?", "hoch", {"kost", "warmepump"}),
    ("de", "Wie teuer ist eine Wärmepumpe?", "teuer", {"warmepump"}),
    ("en", "How high are heat pump costs?", "high", {"heat", "pump", "cost"}),
    ("en", "How big is the Python heap?", "big", {"python", "heap"}),
    ("fr", "Combien de temps dure une batterie ?", "temp", {"batter"}),
    ("es", "¿Qué tan grande es un panel solar?", "grand", {"panel"}),
    ("nl", "Hoe groot is een zonnepaneel?", "groot", {"zonnepaneel"}),
])
def test_a_measure_word_after_how_is_no_term_a_finding_must_name(language, question, measure, asked):
    """The selection reads the question word as the review does: "hoch" of "Wie hoch", "big" of "How big",
    "tan grande" of "qué tan grande" is no term a chosen sentence must name, nor the question's main subject
    ("Kosten" is, not "hoch"); what it measures is."""
    from engine.offline_asked import main_subject

    terms = query_terms(question, language)
    assert measure not in terms and "tan" not in terms, terms
    assert asked <= set(terms), terms
    assert measure not in main_subject(question, language)


@pytest.mark.parametrize(("language", "question", "answer"), [
    ("nl", "Hoe groot is een zonnepaneel?", "Een zonnepaneel meet 1,7 bij 1 meter."),
    ("es", "¿Qué tan grande es un panel solar?", "Un panel solar mide 1,7 metros de largo."),
    ("de", "Wie teuer ist eine Wärmepumpe?", "Eine Wärmepumpe kostet mit Einbau rund 25.000 Euro."),
])
def test_a_sentence_answering_how_much_is_chosen_without_the_measure_word(language, question, answer):
    """A sentence that gives the measure ("meet 1,7 bij 1 meter") is chosen though it does not write the
    question's measure word ("groot"), which only asks how much."""
    from engine.offline_select import choose

    assert answer in choose([answer, "Die Sonne scheint. El sol brilla. De zon schijnt."], question, 3, language)


@pytest.mark.parametrize(("language", "question", "word"), [
    ("en", "Why are high temperatures bad for heat pumps?", "high"),
    ("de", "Warum ist der Preis so hoch?", "hoch"),
    ("en", "How efficient are heat pumps?", "effici"),
])
def test_a_word_is_a_term_when_no_how_word_makes_it_a_measure(language, question, word):
    assert word in query_terms(question, language)


#: Questions whose finite verb is known by where it stands, and that verb: before French "-t-il", "-il",
#: "-elle", "-ils", "-on" (the subject pronoun after its verb), and right after "how" in Spanish, Italian
#: and Portuguese ("¿Cómo gestiona asyncio …").
FINITE_VERBS = [
    ("fr", "Comment asyncio gère-t-il les délais d'attente et l'annulation des tâches ?", "gère"),
    ("fr", "Comment asyncio annule-t-il les tâches ?", "annule"),
    ("fr", "Comment Python gère-il les exceptions ?", "gère"),
    ("fr", "Comment les boucles d'événements planifient-elles les rappels ?", "planifient"),
    ("fr", "Pourquoi annule-t-on les tâches en attente ?", "annule"),
    ("es", "¿Cómo gestiona asyncio los tiempos de espera?", "gestiona"),
    ("it", "Come gestisce la libreria asyncio i timeout?", "gestisce"),
    ("pt", "Como gerencia o asyncio os tempos limite?", "gerencia"),
]


@pytest.mark.parametrize(("language", "question", "verb"), FINITE_VERBS)
def test_the_finite_verb_of_a_question_is_no_topic(language, question, verb):
    """A conjugated verb ("gère", from "gérer") names no thing a source would be about: the review asks
    the claims for the question's other words, never for it."""
    words = [w.lower() for w in unanswered(question, ["Winter is cold. [S000001]"], language)]
    assert verb not in words and len(words) >= 2, words


@pytest.mark.parametrize(("language", "question", "topic"), [
    ("de", "Wie effizient sind Wärmepumpen im Winter?", "effizient"),  # an adjective before "sind"
    ("nl", "Hoe efficiënt zijn warmtepompen in de winter?", "efficiënt"),
    ("sv", "Hur effektiva är värmepumpar på vintern?", "effektiva"),
    ("fr", "Combien coûte une pompe à chaleur ?", "coûte"),  # no pronoun after it: a topic, as "cost" is
    ("de", "Was kostet eine Wärmepumpe?", "kostet"),
    # German, Dutch and Swedish put the adverb or adjective asked about between "how" and the verb
    ("de", "Wie sicher schützt WPA3 ein Heimnetz?", "sicher"),
    ("nl", "Hoe veilig versleutelt Signal berichten?", "veilig"),
    ("sv", "Hur snabbt kompilerar Rust stora projekt?", "snabbt"),
])
def test_a_word_after_how_before_a_form_of_be_stays_a_topic(language, question, topic):
    assert topic in unanswered(question, ["Winter is cold. [S000001]"], language)
