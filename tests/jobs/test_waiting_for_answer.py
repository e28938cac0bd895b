"""Which research of a person's waits for their answer in one conversation (a Slack DM's top-level
message answers it): jobs.waiting_for_answer on the thread registry."""

from __future__ import annotations

import time

from jobs import waiting_for_answer
from jobs.store import get_store
from jobs.threads import set_thread

DM = "slack:T1:D1:"


def test_the_latest_question_waiting_for_the_persons_answer_in_that_conversation(sqlite_settings):
    store, now = get_store(sqlite_settings), float(int(time.time()))  # whole seconds: exact sums
    ttl = sqlite_settings.clarify_ttl
    set_thread(store, f"{DM}1.0", status="paused", requester="U1", paused_at=now - 100)
    set_thread(store, f"{DM}2.0", status="paused", requester="U1", paused_at=now - 50)
    set_thread(store, f"{DM}3.0", status="running", requester="U1")
    set_thread(store, "slack:T1:C1:4.0", status="paused", requester="U1", paused_at=now - 10)  # another conversation
    set_thread(store, "slack:T1:D10:5.0", status="paused", requester="U1", paused_at=now - 10)  # another DM
    set_thread(store, f"{DM}6.0", status="paused", requester="U2", paused_at=now - 10)  # someone else's
    set_thread(store, f"{DM}7.0", status="paused", requester="U1", paused_at=now - ttl - 1)  # expired
    assert waiting_for_answer("U1", DM, settings=sqlite_settings, now=now).thread_id == f"{DM}2.0"
    # the one asked last, whichever record changed last
    set_thread(store, f"{DM}1.0", title="touched")
    assert waiting_for_answer("U1", DM, settings=sqlite_settings, now=now).thread_id == f"{DM}2.0"
    set_thread(store, f"{DM}2.0", status="queued")  # answered
    assert waiting_for_answer("U1", DM, settings=sqlite_settings, now=now).thread_id == f"{DM}1.0"
    # asked exactly clarify_ttl seconds ago still takes its answer, as the rules say
    assert waiting_for_answer("U1", DM, settings=sqlite_settings, now=now - 100 + ttl).thread_id == f"{DM}1.0"
    set_thread(store, f"{DM}1.0", status="cancelled")
    assert waiting_for_answer("U1", DM, settings=sqlite_settings, now=now) is None
    assert waiting_for_answer("U3", DM, settings=sqlite_settings, now=now) is None
