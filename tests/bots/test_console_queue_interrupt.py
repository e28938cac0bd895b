"""Ctrl-C while `ask --queue` hands the question over or follows the queued research: what goes on, and
the line that says so."""

from __future__ import annotations

import re
import signal
import subprocess
import sys

import pytest

from tests.bots.test_console_queue import env_for
from tests.waiting import LONG


def test_a_ctrl_c_while_following_names_the_command_that_follows_it_again(tmp_path, redis_db):
    env = env_for(tmp_path, redis_db)  # no worker: the research stays queued while the terminal follows it
    ask = subprocess.Popen([sys.executable, "-m", "bots.cli", "ask", "--queue",
                            "How do heat pumps work?"], env=env, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    said = []
    for line in ask.stderr:  # wait for the event, not a time: the line that says it waits for a worker
        said.append(line)
        if line.startswith("queued; waiting for a worker"):
            break
    ask.send_signal(signal.SIGINT)
    _, rest = ask.communicate(timeout=LONG)
    text = "".join(said) + rest
    thread = re.search(r"thread: (console:\S+)", text).group(1)
    assert ask.returncode == 130, text
    assert f"the research goes on on the workers. Follow it with: deepresearch ask --queue --resume {thread}" in text
    assert "Traceback" not in text


#: ``deepresearch {args}`` (the console script's entry) with RQ's enqueue stopped by ``{sig}`` sent
#: to the process itself, before the job is written or, with ``{after}``, once it is.
_INTERRUPTED_HAND_OVER = """
import os, sys
import rq
write = rq.Queue.enqueue
def enqueue(self, *args, **kwargs):
    if {after}:
        write(self, *args, **kwargs)
    os.kill(os.getpid(), {sig})
rq.Queue.enqueue = enqueue
sys.argv = ["deepresearch", *{args}]
from bots.entry import main
main()
"""


def _ask_interrupted_in_the_hand_over(tmp_path, redis_db, sig: int, *, after: bool,
                                      args: tuple[str, ...] = ("ask", "--queue", "How do heat pumps work?"),
                                      ) -> subprocess.CompletedProcess:
    env = env_for(tmp_path, redis_db)  # no worker: a queued research stays queued
    env["DEEPRESEARCH_MAX_RUNNING_PER_USER"] = "1"
    script = _INTERRUPTED_HAND_OVER.format(after=after, sig=int(sig), args=list(args))
    return subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=LONG)


def _settings(tmp_path, redis_db):
    from tests.jobs.conftest import make_settings

    return make_settings(tmp_path / "data", redis_url=redis_db, max_running_per_user=1)


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_question_interrupted_before_it_was_queued_holds_neither_its_thread_nor_a_slot(tmp_path, redis_db, sig,
                                                                                        code):
    """Ctrl-C (or SIGTERM) before RQ took the job: nothing was queued, the thread is failed as after a
    failed hand-over, the slot is free, and the user asks again at once, in that thread too."""
    from bots.console_queue import requester
    from jobs import handle_message, quotas, threads_of
    from jobs.store import get_store
    from tests.fakes.recording_port import RecordingPort

    out = _ask_interrupted_in_the_hand_over(tmp_path, redis_db, sig, after=False)
    assert out.returncode == code, out.stderr
    assert "Traceback" not in out.stderr and "thread:" not in out.stderr
    assert out.stderr.strip().splitlines()[-1] == "deepresearch: interrupted before the research started; nothing was queued."
    settings, me = _settings(tmp_path, redis_db), requester()
    [thread] = threads_of(me, settings=settings)
    assert thread.status == "failed"
    assert quotas.holding(get_store(settings), user=me, thread_id=thread.thread_id) == []
    port = RecordingPort.create(tmp_path / "events.jsonl", thread.thread_id).reference()
    again = handle_message(thread.thread_id, me, "How loud are heat pumps?", port, "e2", settings=settings,
                           explicit_start=True)
    assert again.action == "started"


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_question_interrupted_once_it_was_queued_names_its_thread_and_how_to_follow_it(tmp_path, redis_db, sig,
                                                                                        code):
    """Ctrl-C (or SIGTERM) once RQ took the job: the research runs on the workers, so the terminal
    names its thread and the command that follows it, as when the following is interrupted."""
    from rq import Queue

    from jobs import thread_info
    from jobs.queue import QUEUE_NAME, job_id_for
    from jobs.redisconn import redis_connection

    out = _ask_interrupted_in_the_hand_over(tmp_path, redis_db, sig, after=True)
    assert out.returncode == code, out.stderr
    assert "Traceback" not in out.stderr
    thread = re.search(r"^thread: (console:\S+)$", out.stderr, re.MULTILINE).group(1)
    assert out.stderr.strip().splitlines()[-1] == ("deepresearch: interrupted; the research goes on on the workers. "
                                                   f"Follow it with: deepresearch ask --queue --resume {thread}")
    settings = _settings(tmp_path, redis_db)
    info = thread_info(thread, settings=settings)
    assert info.status == "queued"
    assert Queue(QUEUE_NAME, connection=redis_connection(redis_db)).job_ids == [job_id_for(info.turn_id)]


def test_an_answer_interrupted_before_it_was_queued_frees_the_thread_and_says_where_to_look(tmp_path, redis_db):
    """Ctrl-C while the answer to the clarifying question is handed over, before RQ took the job: as
    after a failed hand-over, the thread is failed and holds no slot; the line says the answer was
    not queued and names the command that shows the thread."""
    import time

    from bots.console_queue import requester
    from jobs import handle_message, quotas, thread_info
    from jobs.store import get_store
    from jobs.threads import set_thread
    from tests.fakes.recording_port import RecordingPort

    settings, me, thread = _settings(tmp_path, redis_db), requester(), "console:paused"
    port = RecordingPort.create(tmp_path / "events.jsonl", thread).reference()
    assert handle_message(thread, me, "How do heat pumps work?", port, "e1", settings=settings,
                          explicit_start=True).action == "started"
    store = get_store(settings)  # as the worker leaves it: waiting for an answer, its slot given back
    set_thread(store, thread, status="paused", paused_at=time.time(), clarify_question="Which climate?")
    quotas.release(store, "e1", user=me, thread_id=thread)
    out = _ask_interrupted_in_the_hand_over(tmp_path, redis_db, signal.SIGINT, after=False,
                                            args=("ask", "--queue", "--resume", thread, "--answer", "cold winters"))
    assert out.returncode == 130, out.stderr
    assert "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines()[-1] == ("deepresearch: interrupted; the answer was not queued. See where "
                                                   f"the research stands with: deepresearch ask --queue --resume {thread}")
    assert thread_info(thread, settings=settings).status == "failed"
    assert quotas.holding(store, user=me, thread_id=thread) == []
