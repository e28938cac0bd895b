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


def test_two_hosts_storing_one_run_at_once_both_succeed_and_the_later_files_stay(tmp_path, clean_env, pg_url):
    """A run whose lease ran out mid-render is rendered again by a second worker: both store the run's
    files. Both are held on a row a third session inserted and has not committed, so each waits for the
    other's rows; neither may fail with a duplicate key, and the run holds one whole set of files."""
    import threading

    import psycopg

    from tests.waiting import wait_for

    settings = load_settings(data_dir=tmp_path, database_url=pg_url)
    store = artifact_store(settings)
    thread_key, run_key = "slack:T1:C2:1700000000.000100", "20260101T000000-abcd"
    folders = []
    for host in ("a", "b"):
        folder = run_dir(load_settings(data_dir=tmp_path / host, database_url=pg_url), thread_key, run_key)
        folder.mkdir(parents=True)
        (folder / "report.md").write_text(f"rendered on {host}\n")
        if host == "a":
            (folder / "report.pdf").write_bytes(b"%PDF a")  # host b's render has no PDF
        folders.append(folder)
    assert store.read(folders[0] / "report.md") is None  # the tables made
    errors: list[BaseException] = []

    def save(folder):
        try:
            store.save_run(folder)
        except BaseException as exc:  # noqa: BLE001 - the test reports it
            errors.append(exc)

    holder = psycopg.connect(pg_url)
    try:
        holder.execute("INSERT INTO deepresearch_artifacts (thread_key, run_key, name, content, size, sha256,"
                       " content_type) VALUES (%s, %s, 'report.md', '', 0, '', 'text/markdown')",
                       key_of(folders[0] / "report.md")[:2])
        savers = [threading.Thread(target=save, args=(f,)) for f in folders]
        savers[0].start()
        wait_for(lambda: _waiting_sessions(pg_url) >= 1, what="the first store waiting")
        savers[1].start()
        wait_for(lambda: _waiting_sessions(pg_url) >= 2, what="both stores waiting")
        holder.rollback()
    finally:
        holder.close()
    for saver in savers:
        saver.join(timeout=60)
    assert not errors, errors
    names = {}
    for name in ARTIFACT_NAMES:
        data = store.read(folders[0] / name)
        if data is not None:
            names[name] = data
    assert names == {"report.md": b"rendered on b\n"}  # the later store's whole set, nothing of the first


def _waiting_sessions(pg_url: str) -> int:
    """Sessions of ``pg_url``'s database waiting for a lock."""
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        return conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                            " AND wait_event_type = 'Lock'").fetchone()[0]
