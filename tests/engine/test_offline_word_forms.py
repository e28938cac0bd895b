"""The offline review says the solution leaves a word of the question unanswered only when no claim
mentions it in any form: an inflection, Arabic with its article or a preposition attached, a
Chinese word cut otherwise or written in the other script, a compound that holds it; and the
selection quotes a sentence that names the question's words in those forms."""

from __future__ import annotations

import re

import pytest

from engine.offline_phrases import phrase
from engine.offline_review import unanswered
from tests.bots.console_helpers import ask_offline

#: (language, question, claim, words the claim mentions, words it does not).
CASES = [
    ("en", "How much do heat pumps cost in cold winters?",
     "A heat pump costs 8,000 euros; its wintertime output falls. [S1a2b3c]", {"pumps", "cost"}, {"winters"}),
    ("en", "Which grants exist for insulation?", "Migrants insulate houses. [S1a2b3c]", {"insulation"}, {"grants"}),
    ("de", "Wie effizient sind Wärmepumpen im Winter?",
     "Erdwärmepumpen arbeiten im Winter effizienter als Luftwärmepumpen. [S1a2b3c]",
     {"effizient", "Wärmepumpen", "Winter"}, set()),
    ("de", "Was kostet eine Pumpe?", "Die Kosten für Pumpenhäuser steigen. [S1a2b3c]", {"Pumpe"}, set()),
    ("de", "Wie hoch ist die Leistung einer Wärmepumpe?",
     "Die Heizleistung der Wärmepumpentechnik sinkt. [S1a2b3c]", {"Leistung", "Wärmepumpe"}, set()),
    ("de", "Wie frisch bleibt eine Pumpe?", "Pumpernickel bleibt lange frisch. [S1a2b3c]", {"frisch"}, {"Pumpe"}),
    ("de", "Was kostet der Kauf einer Wärmepumpe?", "Der Verkauf von Wärmepumpen wächst. [S1a2b3c]",
     {"Wärmepumpe"}, {"Kauf"}),
    ("fr", "Quelle est l'efficacité des pompes à chaleur en hiver ?",
     "L'efficacité d'une pompe à chaleur baisse. [S1a2b3c]", {"efficacité", "pompes", "chaleur"}, {"hiver"}),
    ("es", "¿Qué eficiencia tienen las bombas de calor en invierno?",
     "La eficiencia de la bomba de calor baja. [S1a2b3c]", {"eficiencia", "bombas", "calor"}, {"invierno"}),
    ("ar", "ما مدى كفاءة المضخات الحرارية في المناخ البارد؟",
     "تعمل والمضخات الحرارية لكفاءة أقل. [S1a2b3c]", {"كفاءة", "المضخات", "الحرارية"}, {"المناخ", "البارد"}),
    ("ar", "ما مدى كفاءة المضخات الحرارية؟", "وتنخفض الكفاءة للمضخات والحرارية. [S1a2b3c]",
     {"كفاءة", "المضخات", "الحرارية"}, set()),
    ("ar", "ما تكلفة المضخات الحرارية؟", "تعمل المضخات الحرارية في الشتاء. [S1a2b3c]",
     {"المضخات", "الحرارية"}, {"تكلفة"}),
    ("zh-Hant", "熱泵在冬季的效率如何？", "空氣源熱泵的效率會隨著室外溫度下降而降低。 [S1a2b3c]",
     {"熱泵", "效率"}, {"冬季"}),
    ("zh-Hant", "熱泵的效率如何？", "热泵的效率会随着室外温度下降而降低。 [S1a2b3c]", {"熱泵", "效率"}, set()),
    ("zh", "热泵在冬季的效率如何？", "地源熱泵的效率較高。 [S1a2b3c]", {"热泵", "效率"}, {"冬季"}),
    ("ja", "ヒートポンプの効率は冬にどう変わりますか？", "空気熱源ヒートポンプの効率は外気温とともに下がる。 [S1a2b3c]",
     {"ヒートポンプ", "効率"}, set()),
]


@pytest.mark.parametrize(("language", "question", "claim", "met", "missing"), CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_a_word_the_solution_mentions_in_another_form_is_not_called_unanswered(language, question, claim,
                                                                               met, missing):
    left = unanswered(question, [claim], language)
    assert not met & set(left), left
    assert missing <= set(left), left


def test_every_word_of_the_question_is_unanswered_without_claims():
    assert unanswered("Wie effizient sind Wärmepumpen im Winter?", [], "de") == ["effizient", "Wärmepumpen", "Winter"]


#: (language, question, the document, the sentence that must be quoted, a word no objection may call missing).
ASKED = [
    ("ar", "ما مدى كفاءة المضخات الحرارية في المناخ البارد؟",
     "# المضخات الحرارية\n\nتنقل المضخات الحرارية الحرارة من الهواء الخارجي إلى داخل المنزل. "
     "وتنخفض كفاءة المضخات الحرارية في الطقس البارد عندما تنخفض درجة حرارة الهواء. "
     "تحتاج المضخات الحرارية إلى صيانة سنوية. يختلف سعر المضخات الحرارية من بلد إلى آخر.\n",
     "وتنخفض كفاءة المضخات الحرارية في الطقس البارد عندما تنخفض درجة حرارة الهواء.", "كفاءة"),
    ("zh-Hant", "熱泵在冬季的效率如何？",
     "# 熱泵\n\n熱泵把室外空氣中的熱量送進室內。熱泵的效率會隨著室外溫度下降而降低。"
     "熱泵每年需要保養一次。熱泵的價格因國家而異。\n",
     "熱泵的效率會隨著室外溫度下降而降低。", "效率"),
    ("de", "Wie effizient sind Wärmepumpen im Winter?",
     "# Heizen\n\nErdwärmepumpen arbeiten im Winter effizienter als Luftwärmepumpen, weil der Boden wärmer "
     "bleibt als die Luft. Alte Häuser brauchen vor dem Einbau eine gute Dämmung. "
     "Der Preis des Einbaus ist von Land zu Land verschieden.\n",
     "Erdwärmepumpen arbeiten im Winter effizienter als Luftwärmepumpen", "Wärmepumpen"),
    ("es", "¿Cómo funcionan las bombas de calor en invierno?",
     "# Bombas de calor\n\nLas bombas de calor pierden eficiencia cuando la temperatura exterior baja en los "
     "inviernos fríos del norte. Una bomba de calor aerotérmica cuesta entre 8.000 y 12.000 euros.\n",
     "Las bombas de calor pierden eficiencia cuando la temperatura exterior baja en los inviernos fríos", "invierno"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("language", "question", "document", "sentence", "word"), ASKED, ids=[a[0] for a in ASKED])
def test_ask_quotes_the_sentence_and_no_objection_calls_its_words_missing(tmp_path, language, question, document,
                                                                         sentence, word):
    _, report = ask_offline(tmp_path, document, question)
    findings = re.findall(r"^- (.*) \[\d+\]$", report, re.MULTILINE)
    assert any(sentence in f for f in findings), report
    objections = report.split(f"## {phrase('open_objections', language)}", 1)[1].split("\n## ", 1)[0]
    assert not re.search(rf"[“„«「]{re.escape(word)}[”“»」]", objections), objections


@pytest.mark.parametrize(("text", "expected"), [
    ("熱泵的效率會降低", ["熱泵", "的", "效率", "會", "降低"]),
    ("热泵在冬季的效率如何", ["热泵", "在", "冬季", "的", "效率", "如何"]),
])
def test_a_chinese_word_icu_cuts_into_characters_is_one_word(text, expected):
    from engine.segments import word_tokens

    assert word_tokens(text) == expected


#: (language, a word of the question, a text that writes it in another regular inflection): plurals and
#: forms whose Snowball stems differ ("inviernos" -> "invi", "invierno" -> "inviern").
INFLECTED = [
    ("es", "invierno", "Las bombas pierden eficiencia en los inviernos fríos."),
    ("es", "inviernos", "La bomba pierde eficiencia en invierno."),
    ("es", "gobiernos", "El gobierno subvenciona las bombas."),
    ("es", "hogares", "Un hogar gasta menos."),
    ("es", "luces", "La luz del sol."),
    ("fr", "hiver", "Les pompes perdent en efficacité pendant les hivers froids."),
    ("fr", "hivers", "La pompe perd en efficacité l'hiver."),
    ("fr", "travaux", "Le travail dure deux jours."),
    ("fr", "coûte", "Les pompes à chaleur coûtent cher."),  # Snowball keeps "coûtent" whole
    ("fr", "consomment", "Une chaudière consomme du gaz."),
    ("fr", "vend", "Les installateurs vendent des pompes."),
    ("pt", "regiões", "A bomba funciona bem nesta região."),
    ("pt", "animais", "Cada animal precisa de calor."),
    ("pt", "papéis", "O papel da bomba."),
    ("pt", "homens", "O homem instala a bomba."),
    ("pt", "meses", "A bomba custa 50 euros por mês."),
    ("it", "laghi", "Il lago gela d'inverno."),
    ("nl", "kinderen", "Het kind slaapt."),
    ("de", "Autos", "Das Auto fährt elektrisch."),
    ("sv", "vinter", "Pumpen tappar effekt under kalla vintrar."),
    ("sv", "nycklar", "Du behöver en nyckel."),
    ("sv", "kostnader", "Kostnaden sjunker."),
    ("da", "vinter", "Pumpen taber effekt i kolde vintre."),
    ("no", "vintre", "Pumpen mister effekt om vinteren og i en kald vinter."),
    ("en", "knives", "A knife cuts."),
    ("en", "analyses", "The analysis shows a fall."),
    ("en", "indices", "The index rose."),
]


@pytest.mark.parametrize(("language", "word", "text"), INFLECTED, ids=[f"{c[0]}-{c[1]}" for c in INFLECTED])
def test_a_regular_inflection_the_stemmer_misses_is_a_form_of_the_word(language, word, text):
    from engine.word_forms import mentioned

    assert mentioned([word], text, language) == [word]


@pytest.mark.parametrize(("language", "word", "text"), [
    ("en", "new", "The news came late."),  # Snowball's own exception: "news" is no plural
    ("es", "mes", "Me gusta el invierno."),  # a base form of two letters ("me") is no word's
    ("de", "Pumpe", "Pumpernickel bleibt lange frisch."),
    ("fr", "chat", "Un château."),
])
def test_a_word_that_only_looks_like_an_inflection_is_none(language, word, text):
    from engine.word_forms import mentioned

    assert mentioned([word], text, language) == []


@pytest.mark.parametrize("word", ["alias", "lens", "Alias"])
def test_a_singular_in_s_with_its_own_plural_is_no_plural(word):
    """"alias" (English writes "aliases") is no plural of "alia", nor "lens" of "len": the word is written
    more often than that singular, and has a plural of its own."""
    from engine.word_forms import known_plural

    assert not known_plural(word)


@pytest.mark.parametrize("word", [
    "aliases", "lenses", "databases", "caches", "cars", "pandas", "ideas", "areas", "photos", "laps", "tens",
    "pumps", "kernels", "means", "plans", "parents", "years", "schemas", "buses", "gases", "tuples",
])
def test_a_plural_is_still_a_plural(word):
    from engine.word_forms import known_plural

    assert known_plural(word)


@pytest.mark.parametrize(("question", "expected"), [
    ("How do the alias and the function work?", ["How does the alias work", "How does the function work"]),
    ("How do the lens and the sensor work?", ["How does the lens work", "How does the sensor work"]),
])
def test_a_singular_in_s_takes_a_singular_verb_in_its_sub_question(question, expected):
    from engine.offline_lists import listed_topics

    assert listed_topics(question) == expected
