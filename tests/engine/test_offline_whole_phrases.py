"""What the offline model makes of a question's words stays whole: clauses joined by a continuative
form become whole sub-questions or stay one question, never spliced; items with their own article or
preposition phrases keep every word; a heading made from a question keeps its verbs; shortened text
ends at a word boundary, without "…." or doubled punctuation; a follow-up quotes whole phrases."""

from __future__ import annotations

import re

import pytest

from engine.offline_text import _short, extractive_report, plan_topics, subject_phrase


def _words(text: str) -> list[str]:
    return re.findall(r"[\w'-]+", text.lower())


@pytest.mark.parametrize(("question", "language", "expected"), [
    ("asyncioはどのようにタスクをキャンセルし、タイムアウトを処理しますか？", "ja",
     ["asyncioはどのようにタスクをキャンセルしますか", "asyncioはどのようにタイムアウトを処理しますか"]),
    ("asyncioはタスクをキャンセルして、タイムアウトを処理しますか？", "ja",
     ["asyncioはタスクをキャンセルしますか", "asyncioはタイムアウトを処理しますか"]),
    ("asyncioはタスクをキャンセルし、タイムアウトを処理し、エラーを報告しますか？", "ja",
     ["asyncioはタスクをキャンセルしますか", "asyncioはタイムアウトを処理しますか", "asyncioはエラーを報告しますか"]),
    ("asyncio는 어떻게 작업을 취소하고, 타임아웃을 처리합니까?", "ko",
     ["asyncio는 어떻게 작업을 취소합니까", "asyncio는 어떻게 타임아웃을 처리합니까"]),
])
def test_clauses_joined_by_a_continuative_form_become_whole_sub_questions(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "language"), [
    ("asyncioはどうやってタスクを取り消し、タイムアウトを扱うのですか？", "ja"),  # no -masu ending to share
    ("asyncioでタスクをキャンセルする方法とタイムアウトを処理する方法は？", "ja"),
    ("asyncioはタスクを止めて、タイムアウトを扱いますか？", "ja"),  # a -te form whose stem is not told
    ("asyncio如何取消任务和处理超时？", "zh"),
    ("asyncio如何取消任务、处理超时？", "zh"),
    ("asyncio怎样取消任务以及处理超时？", "zh"),
    ("asyncio는 작업을 멈추고, 타임아웃을 처리합니까?", "ko"),
])
def test_a_clause_chain_that_cannot_be_rebuilt_stays_whole(question, language):
    topics = plan_topics(question, 5, language)
    assert topics == [question], topics


@pytest.mark.parametrize(("question", "language"), [
    ("ヒートポンプとガスボイラーの効率はどうですか？", "ja"),
    ("线程、多进程和asyncio有什么区别？", "zh"),
])
def test_cjk_noun_lists_still_split(question, language):
    assert len(plan_topics(question, 5, language)) >= 2


@pytest.mark.parametrize(("question", "language", "expected"), [
    ("Come gestisce asyncio la cancellazione dei task e i timeout?", "it",
     ["Come gestisce asyncio la cancellazione dei task", "Come gestisce asyncio i timeout"]),
    ("Comment asyncio gère-t-il l'annulation des tâches et les délais ?", "fr",
     ["Comment asyncio gère-t-il l'annulation des tâches", "Comment asyncio gère-t-il les délais"]),
    ("Como o asyncio gerencia o cancelamento das tarefas e os timeouts?", "pt",
     ["Como o asyncio gerencia o cancelamento das tarefas", "Como o asyncio gerencia os timeouts"]),
    ("¿Cómo gestiona asyncio la cancelación de las tareas y los tiempos de espera?", "es",
     ["Cómo gestiona asyncio la cancelación de las tareas", "Cómo gestiona asyncio los tiempos de espera"]),
])
def test_items_with_their_own_phrases_lose_no_word(question, language, expected):
    topics = plan_topics(question, 5, language)
    assert topics == expected
    asked = set(_words(question)) - {"e", "et", "y"}  # the join
    assert asked <= {w for t in topics for w in _words(t)}, topics


@pytest.mark.parametrize(("question", "language", "expected"), [
    ("Wie bricht asyncio Tasks ab und behandelt Timeouts?", "de",
     ["Wie bricht asyncio Tasks ab", "Wie behandelt asyncio Timeouts"]),
    ("What causes inflation and affects wages?", "en", ["What causes inflation", "What affects wages"]),
])
def test_a_later_clause_continues_the_first_ones_head_without_its_verb(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "language"), [
    ("How does asyncio cancel tasks and handle timeouts in TaskGroup and wait_for?", "en"),
    ("How does asyncio handle timeouts?", "en"),
    ("How do I use pandas to merge frames?", "en"),
    ("Wie behandelt asyncio Timeouts in TaskGroup?", "de"),
])
def test_a_heading_made_from_the_question_drops_none_of_its_verbs(question, language):
    topics = plan_topics(question, 5, language)
    asked = [w for w in _words(question) if w in {"cancel", "handle", "merge", "behandelt"}]
    for heading in topics[1:]:
        assert all(w in _words(heading) for w in asked), heading


def test_a_verb_that_asks_how_is_still_left_out_of_the_subject():
    assert subject_phrase("How does garbage collection work in Python?") == "Garbage collection in Python"


@pytest.mark.parametrize("text", [
    "Asyncio cancel tasks and timeouts in TaskGroup and wait_for — limitations and problems",
    "What are the long-term maintenance costs and risks of ground-source heat pumps in older houses?",
    "x" * 8000,
    "asyncioはどのようにタスクをキャンセルし、タイムアウトを処理しますか" * 4,
])
def test_shortened_text_ends_at_a_word_boundary(text):
    short = _short(text, 80)
    assert len(short) <= 80
    if len(text) > 80:
        assert "…" in short and not re.search(r"…[.。]|[ ,;:—]…|\b(?:and|the|of|in)…", short), short
        kept = short.split("…")[0]
        if " " in text[:80]:
            assert text.startswith(kept) and text[len(kept)] in " ", short


@pytest.mark.parametrize("language", ["en", "de", "fr", "es", "it", "ja", "zh"])
def test_the_note_on_topics_with_nothing_to_quote_has_no_doubled_stop(language):
    line = "Heat pumps deliver three units of heat per unit of power. [S000001]"
    long_topic = "Asyncio cancel tasks and handle timeouts in TaskGroup and wait_for — limitations and problems"
    findings = f"### Heat pumps\n- {line}\n\n### {long_topic}\n\n### How do heat pumps work?\n"
    report = extractive_report(brief="Heat pumps", findings=findings, language=language, notice="n")
    note = next(ln for ln in report.splitlines() if ln.startswith("*") and "Heat pumps deliver" not in ln and ln != "*n*")
    assert not re.search(r"…[.。]|[.?!。？][.。]", note), note
    assert "limitations and problems" in note or "problems" not in note, note


def _offline_follow_ups(question: str, objections: str) -> list[str]:
    """The follow-up questions the offline model's summary step writes for ``question`` and the
    review's ``objections``, cut as the summary prompt cuts them (8,000 characters)."""
    from engine.graph.finish import FOLLOW_UP_CHARS
    from engine.offline import OfflineChatModel

    report = f"# {_short(question, 110)}\n\n10 sources found; none had a passage on this question to quote.\n"
    prompt = (f"Write a title\n\nQuestion: {question}\n\n<Report>\n{report}\n</Report>\n\n"
              f"<Open objections>\n{objections[:8000]}\n</Open objections>")
    _, calls = OfflineChatModel()._task_executive_summary(prompt, [], [])
    asked = calls[0][1]["follow_up_questions"]
    assert all(len(q) <= FOLLOW_UP_CHARS for q in asked), asked
    return asked


def test_a_question_of_one_huge_word_gets_no_garbled_follow_up():
    word = "x" * 8000
    objections = ("### Critique\n1. The solution quotes no source, so there is no claim to check.\n\n### Perspective\n"
                  f"Speaking as the reader who asked the question:\n\n- Reader: the question asks about “{word}”, "
                  "and the solution says nothing about it.\n")
    assert _offline_follow_ups(word, objections) == []


def test_a_follow_up_is_built_from_whole_objections_only():
    cut = "- Investor: the payback period of " + "very " * 2000 + "long pumps is never computed.\n"
    objections = ("### Critique\n1. A point.\n\n### Perspective\n- Reader: the question asks about “timeouts”, "
                  "and the solution says nothing about it.\n" + cut)
    asked = _offline_follow_ups("How does asyncio cancel tasks?", objections)
    assert asked == ["What do the sources say about “timeouts” for “How does asyncio cancel tasks”?"], asked
