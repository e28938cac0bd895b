"""A run's usage with PostgreSQL: calls whose record could not reach the database (an outage)
are still counted, on this host and on any other that gathers the run's usage."""

from __future__ import annotations

import json

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
