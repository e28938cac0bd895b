"""Function words: the question's own verbs and question words are never taken for its topic."""

from __future__ import annotations

import pytest

from engine.offline_text import content_words
from engine.segments import paragraphs


@pytest.mark.parametrize(("question", "function"), [
    ("Welche Vorteile haben Wärmepumpen?", {"welche", "haben"}),
    ("Welche Förderung gibt es, und was hat sich geändert?", {"gibt", "hat"}),
    ("Quelles sont les limites des pompes à chaleur ?", {"quelles", "sont"}),
    ("Quels avantages ont les pompes à chaleur ?", {"quels", "ont"}),
    ("¿Cuáles son los límites y qué ventajas hay?", {"cuáles", "hay"}),
    ("What limits do heat pumps have?", {"what", "have"}),
    ("Quali sono i limiti delle pompe di calore e quanto costano?", {"quali", "sono", "delle", "di", "e", "quanto"}),
    ("Welke beperkingen hebben warmtepompen en hoeveel kosten ze?", {"welke", "hebben", "en", "hoeveel", "ze"}),
    ("Quais são os limites das bombas de calor e quanto custam?", {"quais", "são", "das", "de", "e", "quanto"}),
    ("Vilka begränsningar har värmepumpar och hur mycket kostar de?", {"vilka", "har", "och", "hur", "mycket"}),
])
def test_question_words_and_common_verbs_are_not_topic_words(question, function):
    words = content_words(question)
    assert words and not function & set(words), words


def test_every_fixed_phrase_is_in_every_language_the_tables_speak(caplog):
    """Each fixed phrase of the report, review.md, the banner and the follow-ups (the offline
    phrases, the rendered labels, the Sources heading) exists in every language any of them has;
    a phrase asked for in such a language and missing there is logged, not silently English."""
    import logging

    from engine.citations import SOURCES_TITLE
    from engine.offline_phrases import LANGUAGES, PHRASES, phrase
    from engine.render.latex import LABELS

    assert {"en", "de", "fr", "es", "ja", "zh"} <= set(LANGUAGES)
    assert set(LANGUAGES) >= {lang for table in PHRASES.values() for lang in table} | set(LABELS)
    missing = [(key, lang) for key, table in PHRASES.items() for lang in LANGUAGES if lang not in table]
    missing += [(key, lang) for lang in LANGUAGES for key in LABELS["en"] if key not in LABELS.get(lang, {})]
    missing += [("sources heading", lang) for lang in LANGUAGES if lang not in SOURCES_TITLE]
    assert not missing, missing
    saved = PHRASES["starting"].pop("ja")
    try:
        with caplog.at_level(logging.WARNING, logger="engine.offline_phrases"):
            assert phrase("starting", "ja") == PHRASES["starting"]["en"]
        assert "event=phrase_missing key=starting language=ja" in caplog.text
    finally:
        PHRASES["starting"]["ja"] = saved


#: Questions in languages written without spaces between words (and one in Korean, written with
#: them), each with words it must yield and the grammar it must not take for a topic word.
SPACELESS = [
    ("ja", "asyncioはタスクをどのようにキャンセルし、タイムアウトをどう扱いますか？",
     {"asyncio", "タスク", "キャンセル", "タイムアウト"}, {"は", "を", "どのように", "どう", "ます", "か"}),
    ("ja", "PythonのTaskはどうやってキャンセルされますか", {"python", "task", "キャンセル"}, {"の", "は", "どう"}),
    ("zh", "asyncio如何取消任务并处理超时？", {"asyncio", "取消", "任务"}, {"如何", "并"}),
    ("zh", "垃圾回收在Python中是如何工作的？", {"python", "垃圾", "回收"}, {"如何", "在", "是", "的"}),
    ("th", "asyncio ยกเลิกงานและจัดการการหมดเวลาอย่างไร", {"asyncio", "ยกเลิก", "งาน"}, {"และ", "อย่างไร"}),
    ("ko", "asyncio는 작업을 어떻게 취소하고 시간 초과를 처리합니까?", {"asyncio", "작업을", "취소하고", "시간"}, {"는"}),
]


@pytest.mark.parametrize(("language", "question", "topic", "grammar"), SPACELESS)
def test_a_question_written_without_spaces_gives_its_words_not_its_chunks(language, question, topic, grammar):
    words = content_words(question)
    assert topic <= set(words), words
    assert not grammar & set(words), words
    # no word is a chunk of the sentence: none carries a particle glued to a topic word
    assert all(len(w) <= 12 for w in words), words


@pytest.mark.parametrize(("language", "question", "topic", "grammar"), SPACELESS)
def test_the_offline_models_query_terms_are_the_same_words(language, question, topic, grammar):
    from engine.offline_terms import query_terms

    terms = query_terms(question, language)
    assert {t for t in topic if not t.isascii()} <= set(terms), terms
    assert not grammar & set(terms), terms


@pytest.mark.parametrize(("text", "expected"), [
    ("One.\n\nTwo.", ["One.", "Two."]),
    ("One.\r\n\r\nTwo.", ["One.", "Two."]),
    ("One.\r\rTwo.", ["One.", "Two."]),
    ("One.\u2029Two.", ["One.", "Two."]),
    ("One.\n \t\n\n  \nTwo.", ["One.", "Two."]),
    ("One\r\nline.", ["One\r\nline."]),
    ("One\nline.", ["One\nline."]),
])
def test_paragraphs_break_at_blank_lines_of_any_line_end_and_at_the_paragraph_separator(text, expected):
    """A pronoun sentence after U+2029 or a CR-only blank line was joined to the paragraph before."""
    assert paragraphs(text) == expected
