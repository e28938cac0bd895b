"""A run's usage with PostgreSQL: calls whose record could not reach the database (an outage)
are still counted, on this host and on any other that gathers the run's usage."""

from __future__ import annotations

import json
import logging

import pytest

from engine.artifact_store import artifact_store
from engine.artifacts import run_dir
from engine.settings import load_settings


def _record(turn: str, started: float) -> dict:
    return {"turn": turn, "role": "research", "model": "m", "input_tokens": 10, "output_tokens": 5,
            "started": started, "seconds": 0.25}


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_calls_the_database_missed_are_counted_and_shared(tmp_path, clean_env, pg_url):
    here = load_settings(data_dir=tmp_path / "a", database_url=pg_url)
    other = load_settings(data_dir=tmp_path / "b", database_url=pg_url)
    thread, run = "slack:T1:C2:1700000000.000100", "20261202T000000-abcd"
    folder = run_dir(here, thread, run)
    folder.mkdir(parents=True)
    stored, missed = _record("t1", 1764633600.125), _record("t1", 1764633601.5)
    store = artifact_store(here)
    store.add_usage(folder, stored)  # the second call's insert failed: the database was away
    (folder / "usage.jsonl").write_text("".join(json.dumps(r) + "\n" for r in (stored, missed)), encoding="utf-8")
    store.gather_usage(folder)
    assert _lines(folder / "usage.jsonl") == [stored, missed]
    store.gather_usage(folder)  # gathered again (a re-delivery): nothing counted twice
    assert _lines(folder / "usage.jsonl") == [stored, missed]
    elsewhere = run_dir(other, thread, run)
    artifact_store(other).gather_usage(elsewhere)  # the run resumed on another host
    assert _lines(elsewhere / "usage.jsonl") == [stored, missed]


class _FlakySink:
    """A usage sink that fails for the calls whose 1-based numbers are in ``down``, with the database's error."""

    def __init__(self, down: set[int]) -> None:
        self.down, self.calls, self.kept = down, 0, []

    def __call__(self, record: dict) -> None:
        self.calls += 1
        if self.calls in self.down:
            raise ConnectionError(f"connection refused (call {self.calls})")
        self.kept.append(record)


def _model_calls(recorder, count: int) -> None:
    from uuid import uuid4

    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, LLMResult

    for _ in range(count):
        run_id = uuid4()
        recorder.on_chat_model_start({}, [], run_id=run_id, tags=["role:research"], invocation_params={"model": "m"})
        message = AIMessage("x", usage_metadata={"input_tokens": 10, "output_tokens": 5, "total_tokens": 15})
        recorder.on_llm_end(LLMResult(generations=[[ChatGeneration(message=message)]]), run_id=run_id)


@pytest.mark.parametrize(("calls", "down", "expected"), [
    (6, {2, 3, 4}, [("WARNING", "event=usage_record_failed turn=t1 error=\"connection refused (call 2)\""),
                    ("INFO", "event=usage_record_recovered turn=t1 not_counted=3")]),
    (9, {1, 4, 5, 6, 7, 8}, [("WARNING", "event=usage_record_failed turn=t1 error=\"connection refused (call 1)\""),
                             ("INFO", "event=usage_record_recovered turn=t1 not_counted=1"),
                             ("WARNING", "event=usage_record_failed turn=t1 error=\"connection refused (call 4)\""),
                             ("INFO", "event=usage_record_recovered turn=t1 not_counted=5")]),
    (4, {3, 4}, [("WARNING", "event=usage_record_failed turn=t1 error=\"connection refused (call 3)\"")]),
    (3, set(), []),
])
def test_an_outage_of_the_usage_sink_is_logged_once_and_its_end_once(tmp_path, caplog, monkeypatch, calls, down,
                                                                     expected):
    import engine.models
    from engine.models import USAGE_SINK_REST, UsageRecorder

    clock = iter(range(0, 10_000, int(USAGE_SINK_REST) + 1))  # calls further apart than the sink's rest
    monkeypatch.setattr(engine.models, "_now", lambda: next(clock))
    sink = _FlakySink(down)
    recorder = UsageRecorder(tmp_path / "usage.jsonl", turn="t1", sink=sink)
    caplog.set_level(logging.INFO, logger="engine.models")
    _model_calls(recorder, calls)
    assert [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "engine.models"] == expected
    assert len(_lines(tmp_path / "usage.jsonl")) == calls  # every call is in the run's file all the same
    assert len(sink.kept) == calls - len(down)


def test_calls_during_an_outage_wait_for_the_sink_only_once_per_rest(tmp_path, caplog, monkeypatch):
    """An unreachable database makes each insert wait its connect timeout: after a failure the sink
    rests (``USAGE_SINK_REST`` s), so the model calls meanwhile do not wait; their records are in
    the run's file and counted as missed, then gathered (:meth:`gather_usage`)."""
    import engine.models
    from engine.models import USAGE_SINK_REST, UsageRecorder

    now = [100.0]
    monkeypatch.setattr(engine.models, "_now", lambda: now[0])
    sink = _FlakySink({1, 2})
    recorder = UsageRecorder(tmp_path / "usage.jsonl", turn="t1", sink=sink)
    caplog.set_level(logging.INFO, logger="engine.models")
    _model_calls(recorder, 5)  # within the rest: the sink is tried for the first only
    assert sink.calls == 1
    now[0] += USAGE_SINK_REST + 0.5
    _model_calls(recorder, 1)  # tried again: still down, rests again
    assert sink.calls == 2
    now[0] += USAGE_SINK_REST / 2
    _model_calls(recorder, 3)
    assert sink.calls == 2
    now[0] += USAGE_SINK_REST
    _model_calls(recorder, 1)  # back
    assert sink.calls == 3 and len(sink.kept) == 1
    assert [r.getMessage() for r in caplog.records if r.name == "engine.models"] == [
        "event=usage_record_failed turn=t1 error=\"connection refused (call 1)\"",
        "event=usage_record_recovered turn=t1 not_counted=9"]
    assert len(_lines(tmp_path / "usage.jsonl")) == 10
