"""Function words: the question's own verbs and question words are never taken for its topic."""

from __future__ import annotations

import pytest

from engine.offline_text import content_words


@pytest.mark.parametrize(("question", "function"), [
    ("Welche Vorteile haben Wärmepumpen?", {"welche", "haben"}),
    ("Welche Förderung gibt es, und was hat sich geändert?", {"gibt", "hat"}),
    ("Quelles sont les limites des pompes à chaleur ?", {"quelles", "sont"}),
    ("Quels avantages ont les pompes à chaleur ?", {"quels", "ont"}),
    ("¿Cuáles son los límites y qué ventajas hay?", {"cuáles", "hay"}),
    ("What limits do heat pumps have?", {"what", "have"}),
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
