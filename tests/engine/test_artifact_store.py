"""The artifact store: report files in PostgreSQL, read back into an empty data dir."""

from __future__ import annotations

import pytest

from engine.artifact_store import ARTIFACT_NAMES, LocalArtifacts, PostgresArtifacts, artifact_store, key_of
from engine.artifacts import run_dir
from engine.settings import load_settings


def test_files_round_trip_between_two_data_dirs(tmp_path, clean_env, pg_url):
    writer = load_settings(data_dir=tmp_path / "a", database_url=pg_url)
    reader = load_settings(data_dir=tmp_path / "b", database_url=pg_url)
    folder = run_dir(writer, "slack:T1:C2:1700000000.000100", "20260101T000000-abcd")
    folder.mkdir(parents=True)
    contents = {name: (name.encode() + bytes(range(256)) * 50) for name in ARTIFACT_NAMES}
    for name, data in contents.items():
        (folder / name).write_bytes(data)
    (folder / "usage.jsonl").write_text("{}\n")  # scratch: not kept
    store = artifact_store(writer)
    assert isinstance(store, PostgresArtifacts)
    store.save_run(folder)
    other = artifact_store(reader)
    for name, data in contents.items():
        copy = other.local(folder / name)  # a path of the writer's host
        assert copy == reader.artifacts_dir / folder.parent.name / folder.name / name
        assert copy.read_bytes() == data
    assert other.local(folder / "usage.jsonl") is None and other.local(folder / "missing.pdf") is None
    folder.joinpath("report.md").write_bytes(b"rendered again")
    store.save_run(folder)  # a re-render replaces the run's files together
    assert other.read(folder / "report.md") == b"rendered again"
    other.delete_thread("slack:T1:C2:1700000000.000100")
    assert store.read(folder / "report.pdf") is None and not (reader.artifacts_dir / folder.parent.name).exists()


def test_paths_outside_the_layout_are_refused(tmp_path, clean_env):
    settings = load_settings(data_dir=tmp_path)
    assert isinstance(artifact_store(settings), LocalArtifacts)
    for bad in ("report.md", "../../etc/passwd", "a/../b/report.md", "t/r/re port.md"):
        with pytest.raises(ValueError):
            key_of(bad)
        assert artifact_store(settings).local(tmp_path / "nowhere" / bad) is None
