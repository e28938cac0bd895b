"""The language the chat adapters answer in themselves: the rule, step by step."""

from __future__ import annotations

import pytest

from bots.chat_common import HELP_WORDS, is_help
from bots.chat_phrases import HELP_LANGUAGES, chat_language, help_language, locale_language, own_language
from jobs.conversation.message import is_cancel

GERMAN = "Wie funktionieren Wärmepumpen in sehr kalten Wintern?"
FRENCH = "Comment fonctionnent les pompes à chaleur pendant les hivers très froids ?"
JAPANESE = "ヒートポンプは非常に寒い冬にどのように機能しますか？"


def never() -> str:
    raise AssertionError("the registry was read although an earlier step decided")


@pytest.mark.parametrize(("word", "language"), [("hilfe", "de"), ("Aide!", "fr"), ("AYUDA.", "es"), ("帮助", "zh"),
                                                ("ヘルプ", "ja"), ("\u200fhilfe", "de"), ("Hilfe?", "de"),
                                                ("aide ?", "fr"), ("¿ayuda?", "es"), ("帮助？", "zh"), ("幫助", "zh-Hant"),
                                                ("ヘルプ？", "ja"), ("ＨＩＬＦＥ", "de"), ("ヘルプ。", "ja")])
def test_a_help_word_of_one_language_is_answered_in_it(word, language):
    assert help_language(word) == language
    assert chat_language(word, recent=never) == language


@pytest.mark.parametrize("word", ["help", "?", "usage", "", "status", "cancel", "hilfe mir"])
def test_other_words_say_nothing_of_their_language(word):
    assert help_language(word) is None


def test_every_help_word_of_a_language_is_a_help_word():
    assert set(HELP_LANGUAGES) <= HELP_WORDS and "ヘルプ" in HELP_WORDS


@pytest.mark.parametrize(("locale", "language"), [("de-DE", "de"), ("fr-CA", "fr"), ("es", "es"), ("zh-Hans-CN", "zh"),
                                                  ("ja-JP", "ja"), ("en-US", "en"), ("EN_gb", "en"), ("ko-KR", None),
                                                  ("zh-TW", "zh-Hant"), ("zh-Hant-HK", "zh-Hant"), ("zh-CN", "zh"),
                                                  ("", None), (None, None)])
def test_a_platform_locale_gives_its_language_when_the_catalogue_holds_it(locale, language):
    assert locale_language(locale) == language


def test_the_threads_research_comes_first():
    # a German thread: German help, whatever the help word, the locale and the person's latest research
    assert chat_language("aide", question=GERMAN, locale="ja-JP", recent=never) == "de"
    assert chat_language("status", question=FRENCH, recent=never) == "fr"


def test_outside_a_thread_the_help_word_then_the_locale_then_the_latest_research_then_english():
    assert chat_language("ayuda", locale="de-DE", recent=never) == "es"
    assert chat_language("help", locale="fr-FR", recent=never) == "fr"
    assert chat_language("status", locale="ko-KR", recent=lambda: JAPANESE) == "ja"  # a locale it cannot speak
    assert chat_language("status", recent=lambda: GERMAN) == "de"
    assert chat_language("status", recent=lambda: None) == "en"  # no research yet
    assert chat_language("status", recent=lambda: "Как работают тепловые насосы зимой?") == "en"
    assert chat_language("help") == "en"


def test_without_the_registry_the_message_speaks_for_itself():
    assert own_language(GERMAN) == "de"
    assert own_language("hilfe", locale="fr-FR") == "de"
    assert own_language("status", locale="fr-FR") == "fr"
    assert own_language("status") == own_language("") == "en"


@pytest.mark.parametrize("text", ["help?", "Help ?", "?", "？", "usage!", "¿ayuda?"])
def test_a_help_word_asked_as_a_question_is_the_help_word(text):
    """"Hilfe?" in a direct message asks for the help text; it used to start a paid research."""
    assert is_help(text)


@pytest.mark.parametrize("text", ["cancel?", "STOP!", "¡stop!", "ｃａｎｃｅｌ"])
def test_a_cancel_word_with_marks_or_full_width_is_the_cancel_word(text):
    assert is_cancel(text)


@pytest.mark.parametrize("text", ["Warum?", "help me?", "Hilfe bei Wärmepumpen?", "stop the press?"])
def test_a_question_with_other_words_is_no_command(text):
    assert not is_help(text) and not is_cancel(text)
