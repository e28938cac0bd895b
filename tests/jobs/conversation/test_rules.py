"""The conversation rules as a table: every thread status x every kind of message x requester or not."""

from __future__ import annotations

import pytest

from jobs.conversation import Action, Address, Attachment, Message, RuleSettings, decide, reply_for
from jobs.conversation.rules import ACTIVE, FINISHED
from jobs.threads import STATUSES
from jobs.turns import MENTION, Reply

NOW = 1_900_000_000.0
VIEW = RuleSettings(clarify_ttl=3600, stale_after=7800, max_chars=50)
THREAD = "test:T:C:1"
REQUESTER, OTHER = "U1", "U2"

# Message kinds: "@" addresses the bot (a mention, a DM or a command), "-" does not; "#" is a
# button press (the Cancel button, a follow-up question's button).
KINDS = {
    "ask@": ("How do tides work?", Address.MENTION),
    "ask-": ("How do tides work?", Address.NONE),
    "cancel@": ("Cancel!", Address.MENTION),
    "cancel-": ("stop", Address.NONE),
    "empty@": ("  ", Address.DM),
    "empty-": ("", Address.NONE),
    "long@": ("why? " * 20, Address.COMMAND),
    "long-": ("why? " * 20, Address.NONE),
    "cancel#": ("cancel", "cancel"),
    "follow#": ("Stop tides?", "follow_up"),  # a cancel word in a question is still a question
    "file-": ("", Address.NONE),  # a file shared with no words (see ``message``)
    "emoji@": ("🔥🚀", Address.MENTION),  # emoji alone: no words (Slack's ``:fire:`` codes are read so)
    "file@": (" ", Address.MENTION),  # a mention carrying a file and no words
    "file🔥@": ("🔥", Address.DM),  # a file and an emoji alone
}
COLUMNS = list(KINDS)

S, R, B, C, CP = Action.START, Action.RESUME, Action.BUSY, Action.CANCEL, Action.CANCEL_PAUSED
RC, RA, X, N = Action.REFUSE_CANCEL, Action.REFUSE_ANSWER, Action.EXPIRED, Action.NOTHING_RUNNING
E, L, LA, NO = Action.EMPTY, Action.TOO_LONG, Action.ANSWER_TOO_LONG, Action.IGNORE
AF, AW, BO, WO = Action.ANSWER_FIRST, Action.ANSWER_IN_WORDS, Action.BUSY_OTHER, Action.WAITS_OTHER
FN, FF, TL = Action.FILES_NOTED, Action.FILES_FOR_NEXT, Action.TOO_LATE_TO_CANCEL

# files without words to the bot are acknowledged as sources of the next question; unaddressed, ignored
FINISHED_REQUESTER = [S, NO, N, N, E, NO, L, NO, N, S, NO, E, FN, FN]
FINISHED_OTHER = [S, NO, N, NO, E, NO, L, NO, N, S, NO, E, FN, FN]
# (thread state, from the requester) -> the action for each column of KINDS
TABLE: dict[tuple[str, bool], list[Action]] = {
    ("unknown", True): FINISHED_OTHER,  # nobody is the requester of an unknown thread
    ("unknown", False): FINISHED_OTHER,
    **{(s, True): FINISHED_REQUESTER for s in ("done", "failed", "cancelled", "lost")},
    **{(s, False): FINISHED_OTHER for s in ("done", "failed", "cancelled", "lost")},
    # delivering: the report is written, its summary and files are being posted; a cancel is told it
    # came too late (not that nothing runs), a new question starts as in a finished thread
    ("delivering", True): [S, NO, TL, TL, E, NO, L, NO, TL, S, NO, E, FN, FN],
    ("delivering", False): [S, NO, TL, NO, E, NO, L, NO, TL, S, NO, E, FN, FN],
    # the requester is told how to cancel; anyone else, whose research runs (they cannot cancel it)
    # files without words are kept for the next question (the running research read the thread before them)
    **{(s, True): [B, B, C, C, B, B, B, B, C, B, FF, B, FF, FF] for s in ("queued", "running")},
    **{(s, False): [BO, NO, RC, RC, BO, NO, BO, NO, RC, BO, NO, BO, FF, FF] for s in ("queued", "running")},
    # an answer with no text (a file alone) is asked for in words; the question stays open
    ("paused", True): [R, R, CP, CP, AW, AW, LA, LA, CP, AF, AW, R, AW, R],
    # someone else's follow-up press is told whose answer the research waits for: they can neither answer nor cancel it
    ("paused", False): [RA] * 8 + [RC, WO, RA, RA, RA, RA],
    ("paused-expired", True): [X, X, CP, CP, X, X, X, X, CP, X, X, X, X, X],
    # a question nobody answered in time does not keep the thread from anyone else: it is finished for them
    ("paused-expired", False): FINISHED_OTHER,
}


def record(state: str) -> dict | None:
    """The registry record of a thread in ``state`` (``lost``: queued long ago, its job gone)."""
    if state == "unknown":
        return None
    base = {"thread_id": THREAD, "requester": REQUESTER, "question": "Tides?", "turn_id": "e0",
            "created_at": NOW - 100, "updated_at": NOW - 10, "report_dir": "/data/run1"}
    if state == "lost":
        return {**base, "status": "queued", "updated_at": NOW - VIEW.stale_after - 1}
    if state.startswith("paused"):
        asked = NOW - VIEW.clarify_ttl - 1 if state == "paused-expired" else NOW - 60
        return {**base, "status": "paused", "paused_at": asked, "clarify_question": "Which coast?"}
    return {**base, "status": state}


def message(kind: str, author: str, event_id: str = "e1") -> Message:
    text, address = KINDS[kind]
    if kind.endswith("#"):
        return Message.press(THREAD, author, address, text, event_id)
    files = (Attachment("notes.txt"),) if kind.startswith("file") else ()
    return Message(thread_key=THREAD, author=author, text=text, event_id=event_id, address=address, attachments=files)


CASES = [(state, mine, kind, actions[i]) for (state, mine), actions in TABLE.items() for i, kind in enumerate(COLUMNS)]


@pytest.mark.parametrize(("state", "mine", "kind", "expected"), CASES,
                         ids=[f"{s}-{'requester' if m else 'other'}-{k}" for s, m, k, _ in CASES])
def test_the_rules_table(state, mine, kind, expected):
    old = record(state)
    before = None if old is None else dict(old)
    decision = decide(old, message(kind, REQUESTER if mine else OTHER), NOW, VIEW)
    assert decision.action is expected
    assert old == before  # pure: the record given is never changed
    writes = {S, R, CP, X}
    assert bool(decision.fields) == (expected in writes)
    said = reply_for(decision, message(kind, REQUESTER if mine else OTHER), VIEW)
    assert (said.text is None) == (expected in (S, R, C, NO)), said


def test_every_status_and_kind_is_in_the_table():
    states = {s for s, _ in TABLE}
    assert set(ACTIVE) | set(FINISHED) | {"paused"} <= states
    assert set(STATUSES) <= states
    assert all(len(actions) == len(COLUMNS) for actions in TABLE.values())


def test_start_writes_a_new_record_and_a_follow_up_keeps_the_report():
    new = decide(None, message("ask@", OTHER), NOW, VIEW).apply(None)
    assert new == {"thread_id": THREAD, "created_at": NOW, "status": "queued", "requester": OTHER,
                   "question": "How do tides work?", "turn_id": "e1", "error": "", "clarify_question": "",
                   "paused_at": 0.0, "updated_at": NOW, "started_at": NOW}
    follow = decide(record("done"), message("ask@", OTHER), NOW, VIEW).apply(record("done"))
    assert follow["report_dir"] == "/data/run1" and follow["requester"] == OTHER
    assert follow["created_at"] == NOW - 100 and follow["status"] == "queued"
    assert follow["started_at"] == NOW  # the follow-up research's own start


def test_resume_and_cancel_and_expiry_write_the_status():
    assert decide(record("paused"), message("ask-", REQUESTER), NOW, VIEW).fields == {
        "status": "queued", "turn_id": "e1", "updated_at": NOW}
    cancelled = decide(record("paused"), message("cancel-", REQUESTER), NOW, VIEW)
    assert cancelled.fields["status"] == "cancelled" and "waiting" in cancelled.fields["error"]
    expired = decide(record("paused-expired"), message("ask-", REQUESTER), NOW, VIEW)
    assert expired.fields["status"] == "cancelled" and "expired" in expired.fields["error"]
    running = decide(record("running"), message("cancel@", REQUESTER), NOW, VIEW)
    assert (running.cancel_turn, running.status, dict(running.fields)) == ("e0", "running", {})


def test_the_same_event_twice_is_a_duplicate_whatever_the_status():
    for state in ("queued", "running", "paused", "done"):
        again = decide(record(state), message("ask@", REQUESTER, event_id="e0"), NOW, VIEW)
        assert again.action is Action.DUPLICATE and not again.fields


def test_replies_name_the_requester_and_the_limits():
    refused = decide(record("paused"), message("ask-", OTHER), NOW, VIEW)
    said = reply_for(refused, message("ask-", OTHER), VIEW)
    assert said.text == f"Only {MENTION} can answer this question." and said.mention == "U1"
    assert said.ephemeral and said.outcome == "refused"
    assert Reply(said.text, mention=said.mention).render(said.text, lambda user: f"@{user}") == (
        "Only @U1 can answer this question.")
    late = decide(record("paused-expired"), message("ask-", REQUESTER), NOW, VIEW)
    assert "within 1 hours" in reply_for(late, message("ask-", REQUESTER), VIEW).text
    long_answer = decide(record("paused"), message("long-", REQUESTER), NOW, VIEW)
    assert "over 50 characters" in reply_for(long_answer, message("long-", REQUESTER), VIEW).text


def test_a_follow_up_button_that_started_a_research_is_a_duplicate_ever_after():
    done = record("done")
    first = decide(done, message("follow#", OTHER, event_id="press-1"), NOW, VIEW)
    assert first.action is Action.START and first.fields["pressed"] == ["press-1"]
    assert first.fields["question"] == "Stop tides?" and first.fields["turn_id"] == "press-1"
    started = first.apply(done)
    assert decide(started, message("follow#", REQUESTER, event_id="press-1"), NOW, VIEW).action is Action.DUPLICATE
    # a later research in the thread does not make the old button new again; another button still works
    later = {**started, "status": "done", "turn_id": "e9"}
    assert decide(later, message("follow#", OTHER, event_id="press-1"), NOW, VIEW).action is Action.DUPLICATE
    second = decide(later, message("follow#", OTHER, event_id="press-2"), NOW, VIEW)
    assert second.action is Action.START and second.fields["pressed"] == ["press-1", "press-2"]
    # a press while a research runs is "still working" and is not used up
    busy = decide({**later, "status": "running"}, message("follow#", OTHER, event_id="press-3"), NOW, VIEW)
    assert busy.action is Action.BUSY and not busy.fields  # the press of the research's own requester


def test_button_replies():
    refused = decide(record("running"), message("cancel#", OTHER), NOW, VIEW)
    said = reply_for(refused, message("cancel#", OTHER), VIEW)
    assert said.text == f"Only {MENTION} can cancel this research." and said.mention == "U1" and said.ephemeral
    first = decide(record("paused"), message("follow#", REQUESTER), NOW, VIEW)
    said = reply_for(first, message("follow#", REQUESTER), VIEW)
    assert "answer it first" in said.text and said.ephemeral


def test_the_limits_themselves_are_still_inside():
    at_limit = Message(thread_key=THREAD, author=REQUESTER, text="q" * VIEW.max_chars, event_id="e1",
                       address=Address.MENTION)
    assert decide(None, at_limit, NOW, VIEW).action is Action.START
    assert decide(record("paused"), at_limit, NOW, VIEW).action is Action.RESUME
    asked_exactly_ttl_ago = {**record("paused"), "paused_at": NOW - VIEW.clarify_ttl}
    assert decide(asked_exactly_ttl_ago, message("ask-", REQUESTER), NOW, VIEW).action is Action.RESUME
    changed_exactly_stale_after_ago = {**record("running"), "updated_at": NOW - VIEW.stale_after}
    assert decide(changed_exactly_stale_after_ago, message("ask@", OTHER), NOW, VIEW).action is Action.BUSY_OTHER


def test_an_expired_question_closes_the_thread_with_its_reason_and_time():
    expired = decide(record("paused-expired"), message("ask-", REQUESTER), NOW, VIEW)
    assert dict(expired.fields) == {"status": "cancelled", "error": "the clarifying question expired",
                                    "updated_at": NOW}


def test_a_question_of_emoji_or_symbols_alone_is_empty():
    for text in ("🚀🚀🚀", "?!", "👍"):
        wordless = Message(thread_key=THREAD, author=OTHER, text=text, event_id="e9", address=Address.MENTION)
        assert decide(record("done"), wordless, NOW, VIEW).action is Action.EMPTY
    worded = Message(thread_key=THREAD, author=OTHER, text="🚀 Ariane 6?", event_id="e9", address=Address.MENTION)
    assert decide(record("done"), worded, NOW, VIEW).action is Action.START


def test_a_research_started_over_an_expired_question_ends_that_question():
    started = decide(record("paused-expired"), message("ask@", OTHER), NOW, VIEW)
    assert (started.action, started.ends_pause, started.fields["requester"]) == (Action.START, True, OTHER)
    for state, author in (("paused", OTHER), ("paused-expired", REQUESTER), ("done", OTHER)):
        assert decide(record(state), message("ask@", author), NOW, VIEW).ends_pause is False
    assert decide(record("paused-expired"), message("ask-", OTHER), NOW, VIEW).fields == {}


def test_the_rules_read_the_clarify_ttl_and_job_timeout_settings():
    from tests.jobs.conftest import make_settings

    view = RuleSettings.from_settings(make_settings("/tmp/unused", clarify_ttl=120, job_timeout=300))
    assert (view.clarify_ttl, view.stale_after) == (120, 2 * 300 + 600)
    asked = {**record("paused"), "paused_at": NOW - 180}  # 3 minutes: past a 2-minute question
    assert decide(asked, message("ask-", REQUESTER), NOW, view).action is Action.EXPIRED
    busy = {**record("running"), "updated_at": NOW - 1300}  # past 2 x 5 minutes + 10 minutes
    assert decide(busy, message("ask@", OTHER), NOW, view).action is Action.START


@pytest.mark.parametrize(("ttl", "hours"), [(600, 1), (3600, 1), (5400, 2), (7 * 3600, 7)])
def test_the_expiry_reply_gives_the_wait_in_whole_hours_at_least_one(ttl, hours):
    view = RuleSettings(clarify_ttl=ttl, stale_after=VIEW.stale_after, max_chars=VIEW.max_chars)
    asked = {**record("paused"), "paused_at": NOW - ttl - 1}
    said = reply_for(decide(asked, message("ask-", REQUESTER), NOW, view), message("ask-", REQUESTER), view)
    assert said.text == (f"This clarifying question expired (no answer within {hours} hours). "
                         "Please ask your question again to start a new research.")
    assert (said.outcome, said.ephemeral, said.mention) == ("expired", False, None)


def test_replies_without_a_mention_say_exactly_what_happened():
    too_long = message("long@", REQUESTER)
    said = reply_for(decide(record("done"), too_long, NOW, VIEW), too_long, VIEW)
    assert said.text == ("The question is 99 characters long; the limit is 50. "
                         "Shorten it to the question itself: the research finds its own sources.")
    assert (said.outcome, said.ephemeral, said.mention) == ("rejected", False, None)
    busy = reply_for(decide(record("running"), message("ask@", REQUESTER), NOW, VIEW), message("ask@", REQUESTER), VIEW)
    assert (busy.text, busy.outcome, busy.ephemeral, busy.mention) == (
        "Still working on this — reply `cancel` to stop it.", "busy", False, None)
    started = reply_for(decide(record("done"), message("ask@", OTHER), NOW, VIEW), message("ask@", OTHER), VIEW)
    assert (started.text, started.outcome, started.ephemeral, started.mention) == (None, "started", False, None)


def test_while_a_research_runs_only_its_requester_is_told_how_to_cancel_it():
    mine = reply_for(decide(record("running"), message("ask@", REQUESTER), NOW, VIEW), message("ask@", REQUESTER), VIEW)
    assert (mine.text, mine.ephemeral, mine.mention) == ("Still working on this — reply `cancel` to stop it.", False, None)
    for kind in ("ask@", "follow#", "emoji@"):
        theirs = reply_for(decide(record("running"), message(kind, OTHER), NOW, VIEW), message(kind, OTHER), VIEW)
        assert theirs.text == (f"A research by {MENTION} is still running in this thread. Ask your question again "
                               "when it is done, or in a new thread."), kind
        assert (theirs.outcome, theirs.ephemeral, theirs.mention) == ("busy", True, REQUESTER)
        assert "cancel" not in theirs.text


def test_an_answer_without_words_keeps_the_question_open_and_asks_for_words():
    for kind in ("file-", "empty-"):
        decision = decide(record("paused"), message(kind, REQUESTER), NOW, VIEW)
        said = reply_for(decision, message(kind, REQUESTER), VIEW)
        assert decision.action is Action.ANSWER_IN_WORDS and not decision.fields
        assert said.text == ("Please answer the question above in words: reply with text, or `cancel` to stop. "
                             "Files shared in this thread are read with the research.")
        assert (said.outcome, said.ephemeral, said.mention) == ("busy", False, None)


def _files(text: str, address: Address, *names: str) -> Message:
    return Message(thread_key=THREAD, author=OTHER, text=text, event_id="e1", address=address,
                   attachments=tuple(Attachment(name) for name in names))


def test_files_without_words_are_named_and_unreadable_ones_say_why():
    mention = _files("", Address.MENTION, "notes.txt", "tool.exe", "scan")
    said = reply_for(decide(None, mention, NOW, VIEW), mention, VIEW)
    assert said.text == ("Got notes.txt, scan. Mention me in this thread with your question and I'll use the files "
                         "as sources. Not readable, so not used as sources: tool.exe (unsupported type (.exe)).")
    assert (said.outcome, said.ephemeral, said.mention) == ("files", False, None)
    dm = _files("👍", Address.DM, "a*b.pdf")
    assert reply_for(decide(None, dm, NOW, VIEW), dm, VIEW).text == (
        r"Got a\*b.pdf. Reply in this thread with your question and I'll use the files as sources.")
    only_unreadable = _files("", Address.DM, "tool.exe")
    assert reply_for(decide(None, only_unreadable, NOW, VIEW), only_unreadable, VIEW).text == (
        "Not readable, so not used as sources: tool.exe (unsupported type (.exe)).")
    running = reply_for(decide(record("running"), mention, NOW, VIEW), mention, VIEW, record("running"))
    assert running.text.startswith("Got notes.txt, scan. The research running here started before them; "
                                   "I'll use the files as sources for the next question in this thread."), running
    assert running.outcome == "files_for_next"  # an adapter that reads the files itself tells the two apart
    german = reply_for(decide(None, dm, NOW, VIEW), dm, VIEW, language="de").text
    assert german.startswith("Erhalten: a\\*b.pdf."), german


def test_someone_elses_press_while_the_question_waits_says_it_waits_for_the_requesters_answer():
    """Bob pressed a follow-up button in a thread whose research waited for Alice's answer to its
    clarifying question: he was told her research "is still running". It is waiting for her answer."""
    from jobs.phrases import WORDS

    waiting = decide(record("paused"), message("follow#", OTHER), NOW, VIEW)
    said = reply_for(waiting, message("follow#", OTHER), VIEW)
    assert said.text == (f"A research by {MENTION} in this thread is waiting for their answer to its clarifying "
                         "question. Ask your question again when it is done, or in a new thread.")
    assert said.mention == REQUESTER and said.ephemeral and said.outcome == "busy"
    running = decide(record("running"), message("follow#", OTHER), NOW, VIEW)
    assert "still running" in reply_for(running, message("follow#", OTHER), VIEW).text
    for language in WORDS.languages:  # its own phrase in every language, not the one of a running research
        assert WORDS("waiting_other", language, mention="@A") != WORDS("still_working_other", language, mention="@A")
