"""A turn's refusal (``TurnRejected``) carries its catalogue key and fields: English as its message,
and each language of the catalogue as :meth:`TurnRejected.text` says it, numbers grouped per language."""

from __future__ import annotations

import pickle
from types import SimpleNamespace

import pytest

from engine.graph.run import _turn_input
from engine.phrases import WORDS, number
from engine.runner import MAX_QUESTION_CHARS, TurnRejected, validate_question

LANGUAGES = ("en", "de", "fr", "es", "zh", "ja")
PAUSED = SimpleNamespace(values={"run_id": "r1"}, tasks=[SimpleNamespace(interrupts=["Which region?"])], next=())


def _refusal(how) -> TurnRejected:
    with pytest.raises(TurnRejected) as refused:
        how()
    return refused.value


def _answer(snapshot, text: str):
    return lambda: _turn_input(snapshot, "console:t", question=None, answer=text, context=None, resume_only=False)


#: Each refusal: how it is raised -> (key, English, German, Japanese).
REFUSALS = {
    "question empty": (lambda: validate_question(" \x07 "), "rejected_question_empty",
                       "The question is empty: ask something to research.",
                       "Die Frage ist leer: Gib an, was recherchiert werden soll.",
                       "質問が空です。リサーチしたい内容を入力してください。"),
    "question without words": (lambda: validate_question("🚀?!"), "rejected_question_no_words",
                               "The question has no words (only symbols or emoji): ask in words what to research.",
                               "Die Frage enthält keine Wörter (nur Zeichen oder Emojis): Beschreibe in Worten, "
                               "was recherchiert werden soll.",
                               "質問に言葉が含まれていません（記号や絵文字のみ）。リサーチしたい内容を言葉で書いてください。"),
    "question too long": (lambda: validate_question("x" * 10_225), "rejected_question_too_long",
                          "The question is 10,225 characters long; the limit is 8,000. Shorten it to the question "
                          "itself: the research finds its own sources.",
                          "Die Frage ist 10.225 Zeichen lang; erlaubt sind 8.000. Kürze sie auf die eigentliche "
                          "Frage: Die Recherche sucht ihre Quellen selbst.",
                          "質問が 10,225 文字あります。上限は 8,000 文字です。質問そのものだけに短くしてください。"
                          "情報源はリサーチが自分で探します。"),
    "no question waiting": (_answer(None, "Germany"), "rejected_no_question",
                            "There is no clarifying question waiting for an answer in this thread.",
                            "In diesem Thread wartet keine Rückfrage auf eine Antwort.",
                            "このスレッドには回答を待っている確認の質問はありません。"),
    "answer empty": (_answer(PAUSED, "  \n"), "rejected_answer_empty", "The answer is empty.",
                     "Die Antwort ist leer.", "回答が空です。"),
    "answer too long": (_answer(PAUSED, "y" * (MAX_QUESTION_CHARS + 1)), "rejected_answer_too_long",
                        "The answer is over 8,000 characters; shorten it.",
                        "Die Antwort ist länger als 8.000 Zeichen; kürze sie.",
                        "回答が 8,000 文字を超えています。短くしてください。"),
    "unknown thread": (lambda: _turn_input(None, "console:1234", question=None, answer=None, context=None,
                                           resume_only=True), "rejected_unknown_thread",
                       "There is no research with thread id console:1234.",
                       "Es gibt keine Recherche mit der Thread-ID console:1234.",
                       "スレッド ID console:1234 のリサーチはありません。"),
    "nothing to do": (lambda: _turn_input(None, "console:t", question=None, answer=None, context=None,
                                          resume_only=False), "rejected_nothing_to_do",
                      "Nothing to do: give a question, an answer, or resume.",
                      "Nichts zu tun: Gib eine Frage oder eine Antwort an oder setze die Recherche fort.",
                      "実行する内容がありません。質問か回答を指定するか、リサーチを再開してください。"),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_each_refusal_is_english_as_its_message_and_german_and_japanese_as_asked(case):
    how, key, english, german, japanese = REFUSALS[case]
    err = _refusal(how)
    assert (err.key, str(err), err.text(), err.text("en")) == (key, english, english, english)
    assert err.text("de") == german
    assert err.text("ja") == japanese
    assert err.text("ko") == english  # a language the catalogue lacks reads English


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("case", list(REFUSALS))
def test_each_refusal_is_said_in_each_language_with_its_numbers_grouped(case, language):
    how, key, english, _, _ = REFUSALS[case]
    err = _refusal(how)
    fields = {name: number(value, language) if isinstance(value, int) else value for name, value in err.fields.items()}
    said = err.text(language)
    assert said == WORDS(key, language, **fields)
    assert (said == english) == (language == "en"), said
    for value in err.fields.values():
        if isinstance(value, int):
            assert number(value, language) in said


def test_numbers_in_a_refusal_are_written_as_each_language_writes_them():
    err = _refusal(lambda: validate_question("x" * 10_225))
    assert err.fields == {"length": 10_225, "limit": MAX_QUESTION_CHARS}
    assert err.text("fr").startswith("La question fait 10\u202f225 caractères\u202f; la limite est de 8\u202f000.")
    assert err.text("es").startswith("La pregunta tiene 10.225 caracteres; el límite es 8.000.")
    assert err.text("zh").startswith("问题长 10,225 个字符，上限为 8,000。")


def test_a_refusal_keeps_its_key_and_fields_when_pickled_and_a_free_message_is_said_as_given():
    err = pickle.loads(pickle.dumps(TurnRejected("rejected_answer_too_long", limit=MAX_QUESTION_CHARS)))
    assert (err.key, err.fields) == ("rejected_answer_too_long", {"limit": MAX_QUESTION_CHARS})
    assert err.text("de") == "Die Antwort ist länger als 8.000 Zeichen; kürze sie."
    free = TurnRejected("That question is empty.")
    assert str(free) == free.text("de") == "That question is empty."


@pytest.mark.parametrize("question", ["\u200b", " \u200b\u200d ", "\ufeff", "\u2060\u200e", "\u202e", "\u2066 \u2069"])
def test_a_question_of_invisible_format_characters_alone_is_empty(question):
    assert _refusal(lambda: validate_question(question)).key == "rejected_question_empty"


@pytest.mark.parametrize(("question", "kept"), [
    ("\u202eHow does csv quote fields?", "How does csv quote fields?"),
    ("Why is \u202dthis\u202c reversed?", "Why is this reversed?"),
    ("\u2067كيف يعمل asyncio؟\u2069", "كيف يعمل asyncio؟"),
    ("\u200fما هو asyncio؟", "\u200fما هو asyncio؟"),  # a mark changes no order: kept
    ("How\u200bdo tasks\u00a0end?", "How\u200bdo tasks\u00a0end?"),
])
def test_a_question_loses_its_bidirectional_overrides_and_isolates_and_keeps_its_marks(question, kept):
    assert validate_question(question) == kept
