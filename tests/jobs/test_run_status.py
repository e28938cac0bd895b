"""The status message of a turn: its elapsed time grows while the research runs, and it always
ends in a final state, a research that fails on a bad setting included."""

from __future__ import annotations

import re
import time
from pathlib import Path

from jobs import handle_message, thread_info
from tests.fakes.recording_port import RecordingPort, read_events
from tests.jobs.conftest import make_settings
from tests.waiting import LONG, scaled, wait_for, wait_idle

ELAPSED = re.compile(r"(\d+):(\d\d) elapsed")


def _start(settings, log: Path, thread: str, question: str, turn_id: str):
    port = RecordingPort.create(log, thread).reference()
    return handle_message(thread, "U1", question, port, turn_id, settings=settings, explicit_start=True)


def _moved(log: Path) -> int:
    """Seconds the status clock advanced while it said the files were being built."""
    shown = [_seconds(e["text"]) for e in read_events(log, "console:clock")
             if e["op"] == "update" and "Building the files" in e["text"]]
    return shown[-1] - shown[0] if shown and None not in shown else 0


def _seconds(text: str) -> int | None:
    found = ELAPSED.search(text)
    return int(found.group(1)) * 60 + int(found.group(2)) if found else None


def test_the_elapsed_time_counts_from_the_turns_start_and_keeps_counting_in_a_long_phase(
        tmp_path, runner_for, monkeypatch):
    """A phase without progress events (typesetting the files) still shows the clock moving."""
    import engine.graph.finish as finish
    from jobs import run

    monkeypatch.setattr(run, "CLOCK_INTERVAL", 0.5, raising=False)
    build = finish.write_artifacts

    def slow_build(*args, **kwargs):
        # a PDF build with no progress event meanwhile, lasting until the status shows 2 s more than when it began
        wait_for(lambda: _moved(log) >= 2, what="the clock to move during the build", timeout=LONG)
        return build(*args, **kwargs)

    monkeypatch.setattr(finish, "write_artifacts", slow_build)
    settings = make_settings(tmp_path / "data")
    runner = runner_for(settings)
    log = tmp_path / "events.jsonl"
    began = time.monotonic()
    _start(settings, log, "console:clock", "How do heat pumps work?", "c1")
    wait_idle(runner)
    texts = [e["text"] for e in read_events(log, "console:clock") if e["op"] == "update"]
    shown = [_seconds(t) for t in texts if _seconds(t) is not None]
    assert shown == sorted(shown), texts
    assert shown[0] <= time.monotonic() - began + 1, texts  # counted from this turn's start, not before
    assert _moved(log) >= 2, texts  # the long build is seen counting
    assert thread_info("console:clock", settings=settings).status == "done"


def test_the_clock_refreshes_at_its_interval_until_stopped_and_never_after(monkeypatch):
    """The status clock (:func:`jobs.run._tick`): its default interval is ``CLOCK_INTERVAL``, a
    given one wins, and once stopped it ends without a last refresh. A clock that ends by itself
    (an error, a loop that never starts) fails at once with what ended it."""
    import asyncio

    from jobs import run

    # three ticks 0.01 s apart take milliseconds even on a busy machine; the interval not used is an hour
    bound = scaled(5.0)

    async def ticks(interval: float | None, clock: float) -> tuple[int, bool]:
        monkeypatch.setattr(run, "CLOCK_INTERVAL", clock)
        stop, calls = asyncio.Event(), []
        task = asyncio.ensure_future(run._tick(stop, lambda: calls.append(stop.is_set()), interval))
        await asyncio.wait_for(_until(lambda: len(calls) >= 3 or task.done()), timeout=bound)
        assert not task.done(), f"the clock ended by itself after {len(calls)} refreshes: {task!r}"
        stop.set()
        await asyncio.wait_for(task, timeout=bound)
        return len(calls), any(calls)

    async def _until(condition) -> None:
        while not condition():
            await asyncio.sleep(0.005)

    for interval, clock in ((0.01, 3600.0), (None, 0.01)):  # whichever is used, the other would hang
        count, after_stop = asyncio.run(ticks(interval, clock))
        assert count >= 3 and not after_stop


def test_a_research_failing_on_an_unindexed_corpus_ends_its_status_and_says_why_once(tmp_path, runner_for):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# Heat pumps\n\nThey move heat.\n")
    settings = make_settings(tmp_path / "data", search="corpus", corpus_dir=folder)
    runner = runner_for(settings)  # as if the index was deleted after the start-up check
    log = tmp_path / "events.jsonl"
    _start(settings, log, "console:unindexed", "How do heat pumps work?", "u1")
    wait_idle(runner)
    events = read_events(log, "console:unindexed")
    status_id = next(e["id"] for e in events if e["op"] == "post" and e["text"].startswith("Starting the research"))
    last = [e["text"] for e in events if e["op"] == "update" and e["id"] == status_id][-1]
    assert last.startswith("Stopped: the research failed"), last
    failures = [e["text"] for e in events if e["op"] == "post" and e["text"].startswith("The research failed")]
    assert len(failures) == 1 and "is not indexed yet" in failures[0]


def test_a_status_text_that_cannot_be_written_never_fails_the_research(tmp_path, runner_for, monkeypatch, caplog):
    """The status message is best effort: a progress text that raises is logged once and the
    research goes on to its report."""
    import logging

    from jobs import delivery, run

    monkeypatch.setattr(run, "CLOCK_INTERVAL", 0.05, raising=False)
    broken: list[float] = []

    def progress_text(*args, **kwargs):
        broken.append(time.monotonic())
        raise RuntimeError("the clock broke")

    monkeypatch.setattr(delivery, "progress_text", progress_text)
    settings = make_settings(tmp_path / "data")
    runner = runner_for(settings)
    caplog.set_level(logging.WARNING, logger="jobs.delivery")
    _start(settings, tmp_path / "events.jsonl", "console:text", "How do heat pumps work?", "t1")
    wait_idle(runner)
    assert len(broken) > 1 and thread_info("console:text", settings=settings).status == "done"
    lines = [r.getMessage() for r in caplog.records if "status_text_failed" in r.getMessage()]
    assert len(lines) == 1 and "error=RuntimeError" in lines[0], lines


def test_a_helper_of_the_research_that_breaks_is_logged_at_once_and_the_research_goes_on(
        tmp_path, runner_for, monkeypatch, caplog):
    """The tasks beside the research (status edits, clock, cancel poll) end only when it ends; one
    that raises instead is logged as it happens, while the research still runs, and does not stop it."""
    import logging

    import engine.graph.finish as finish
    from jobs import status

    build = finish.write_artifacts

    def build_once_logged(*args, **kwargs):  # the research is still running: the line is there already
        wait_for(lambda: _helper_lines(caplog), what="the broken helper's log line", timeout=LONG)
        return build(*args, **kwargs)

    monkeypatch.setattr(finish, "write_artifacts", build_once_logged)
    settings = make_settings(tmp_path / "data")
    runner = runner_for(settings)
    running: list[str] = []

    async def pump(self, stop, tick=0.25):
        running.append(thread_info("console:helper", settings=settings).status)
        raise RuntimeError("the status pump broke")

    monkeypatch.setattr(status.StatusMessage, "pump", pump)
    caplog.set_level(logging.ERROR, logger="jobs.run")
    _start(settings, tmp_path / "events.jsonl", "console:helper", "How do heat pumps work?", "h1")
    wait_idle(runner)
    assert running == ["running"] and thread_info("console:helper", settings=settings).status == "done"
    lines = _helper_lines(caplog)
    assert len(lines) == 1 and "helper=status_pump" in lines[0] and "error=RuntimeError" in lines[0], lines


def _helper_lines(caplog) -> list[str]:
    return [r.getMessage() for r in list(caplog.records) if "turn_helper_failed" in r.getMessage()]
