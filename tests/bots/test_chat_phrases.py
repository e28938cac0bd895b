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
                                                ("ヘルプ？", "ja"), ("ＨＩＬＦＥ", "de"), ("ヘルプ。", "ja"),
                                                ("aiuto", "it"), ("Aiuto?", "it"), ("hulp", "nl"), ("HULP!", "nl"),
                                                ("ajuda", "pt"), ("Ajuda?", "pt"), ("hjälp", "sv"), ("Hjälp!", "sv")])
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
                                                  ("it-IT", "it"), ("nl-BE", "nl"), ("pt-BR", "pt"), ("sv-SE", "sv"),
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


@pytest.mark.parametrize("text", ["Abbrechen", "stopp!", "annuler", "Arrête !", "cancelar", "¡Detener!", "annulla",
                                  "annuleren", "Avbryt", "parar", "取消", "停止。", "キャンセル", "中止", "Arrêtez\u202f!",
                                  "ｷｬﾝｾﾙ", "Annulez !", "arrete", "arretez", "ストップ", "中断", "终止", "終止"])
def test_the_cancel_words_of_each_language_cancel(text):
    """A German user's top-level "Abbrechen" in a DM was taken as the answer to the waiting question:
    only the English words cancelled."""
    assert is_cancel(text)


def test_the_help_text_names_a_cancel_word_of_its_own_language_that_cancels():
    import json
    import re
    from pathlib import Path

    phrases = json.loads((Path(__file__).parents[2] / "bots" / "chat_phrases.json").read_text(encoding="utf-8"))
    for language, text in phrases["help_cancel"].items():
        words = re.findall(r"`([^`]+)`", text)
        assert "cancel" in words and all(is_cancel(word) for word in words), (language, words)
        assert language == "en" or len(words) == 2, (language, words)


@pytest.mark.parametrize("text", ["Abbrechen der Verhandlungen?", "annuler un contrat", "取消政策的影响", "parada",
                                  "Abbruch", "afbreken", "stoppa", "ferma", "cancela", "annule"])
def test_a_question_that_starts_with_a_cancel_word_is_no_cancel(text):
    assert not is_cancel(text)


@pytest.mark.parametrize("text", ["Warum?", "help me?", "Hilfe bei Wärmepumpen?", "stop the press?"])
def test_a_question_with_other_words_is_no_command(text):
    assert not is_help(text) and not is_cancel(text)


#: A question in each language the offline report writes besides English, German, French and Spanish,
#: with a line of the help text and the refusal of an empty question in that language.
MORE_LANGUAGES = {
    "it": ("Quali sono i vantaggi delle pompe di calore rispetto alle caldaie a gas?",
           "Potrei prima fare una domanda di chiarimento: risponde chi ha posto la domanda, nello stesso thread.",
           "La domanda è vuota: indica l'argomento della ricerca."),
    "nl": ("Wat zijn de voordelen van warmtepompen ten opzichte van cv-ketels op gas?",
           "Misschien stel ik eerst een verduidelijkende vraag: wie de vraag stelde, beantwoordt die in dezelfde thread.",
           "De vraag is leeg: geef aan wat er onderzocht moet worden."),
    "pt": ("Quais são as vantagens das bombas de calor em relação às caldeiras a gás?",
           "Talvez eu faça antes uma pergunta de esclarecimento: quem fez a pergunta a responde na mesma thread.",
           "A pergunta está vazia: diga o que deve ser pesquisado."),
    "sv": ("Vilka är fördelarna med värmepumpar jämfört med gaspannor?",
           "Jag kanske ställer en förtydligande fråga först: den som frågade svarar på den i samma tråd.",
           "Frågan är tom: skriv vad som ska undersökas."),
}


@pytest.mark.parametrize("language", list(MORE_LANGUAGES))
def test_a_question_in_italian_dutch_portuguese_or_swedish_is_answered_in_its_language(language):
    from bots.slack.handlers import slack_usage
    from bots.teams.bot import teams_usage
    from engine.runner import TurnRejected, validate_question
    from jobs.conversation.replies import refused_question

    question, clarify, empty = MORE_LANGUAGES[language]
    # the thread's research, the message itself when the registry cannot be read, and the latest research
    assert chat_language("status", question=question, recent=never) == language
    assert own_language(question) == language
    assert chat_language("status", recent=lambda: question) == language
    # the help text of each surface, every line of it in that language
    for help_text in (slack_usage(language), teams_usage(language)):
        assert f"- {clarify}" in help_text.splitlines()
    with pytest.raises(TurnRejected) as refused:
        validate_question("  ")
    assert refused_question("  ", refused.value, own_language(question)) == empty
