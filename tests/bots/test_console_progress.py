"""The terminal's progress lines when stderr is not a terminal (a log, a pipe, CI)."""

from __future__ import annotations

import time

from bots import console
from engine.progress import Progress


def test_what_the_run_waits_for_is_always_printed_and_the_rest_at_most_every_two_seconds(monkeypatch):
    said: list[str] = []
    monkeypatch.setattr(console, "say", lambda text, *a, **k: said.append(text))
    shown = console.ConsoleProgress(started=time.monotonic())
    shown.tty = False
    progress = Progress(phase="research")
    shown(progress)
    progress.topics_started = 2
    shown(progress)  # same stage, within 2 s: not printed
    progress.waiting = "the database did not answer; trying again (2 of 4)"
    shown(progress)  # printed at once
    progress.apply({"event": "topic_started", "topic": "t"})  # the run goes on: the wait is over
    assert progress.waiting == ""
    assert len(said) == 2 and said[1].endswith("· the database did not answer; trying again (2 of 4)"), said
    assert "trying again" not in progress.render()


def test_counts_are_shown_once_there_is_something_to_count():
    """Before the supervisor has planned any topic, "topics 0/0 done · 0 sources found" says nothing:
    the line is the stage and the time; once topics exist, both counts are shown (0 sources too)."""
    progress = Progress(phase="clarify")
    assert progress.render(elapsed=3) == "Checking the question · 0:03 elapsed"
    progress.apply({"event": "phase", "phase": "research"})
    assert progress.render(elapsed=4) == "Researching · 0:04 elapsed"
    progress.apply({"event": "topic_started", "topic": "t"})
    assert progress.render(elapsed=5) == "Researching · topics 0/1 done · 0 sources found · 0:05 elapsed"
    fresh = Progress(phase="research")  # a resumed run: sources known from the checkpoint, topics not
    fresh.sources_found = 4
    assert fresh.render(elapsed=0) == "Researching · 4 sources found · 0:00 elapsed"
