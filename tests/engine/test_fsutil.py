"""Tests of atomic writes and of telling a refusing disk from a bad file (`engine.fsutil`)."""

from __future__ import annotations

import errno
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from engine.fsutil import (
    copy_atomic,
    disk_refused,
    storage_problem,
    writable_folder_problem,
    write_atomic,
    write_problem,
)

ROOT = Path(__file__).resolve().parents[2]


def test_write_atomic_replaces_whole_files_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "new" / "folder" / "record.json"
    write_atomic(target, '{"a": "é"}')
    assert target.read_text(encoding="utf-8") == '{"a": "é"}'
    write_atomic(target, b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    assert [p.name for p in target.parent.iterdir()] == ["record.json"]


def test_write_atomic_on_a_full_disk_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "record.json"
    target.write_text("old and whole")
    script = ("import resource, sys; from pathlib import Path; from engine.fsutil import write_atomic\n"
              "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
              "write_atomic(Path(sys.argv[1]), 'x' * 100000)\n")
    out = subprocess.run([sys.executable, "-c", script, str(target)], capture_output=True, text=True, cwd=ROOT,
                         timeout=120)
    assert out.returncode != 0 and "File too large" in out.stderr
    assert target.read_text() == "old and whole"
    assert [p.name for p in tmp_path.iterdir()] == ["record.json"]


def test_copy_atomic_onto_itself_is_a_no_op(tmp_path: Path) -> None:
    src = tmp_path / "report.md"
    src.write_text("# Report\n")
    copy_atomic(src, src)
    copy_atomic(src, tmp_path / "." / "report.md")
    assert src.read_text() == "# Report\n"
    (tmp_path / "out").mkdir()
    copy_atomic(src, tmp_path / "out" / "report.md")
    assert (tmp_path / "out" / "report.md").read_text() == "# Report\n"


def test_storage_problem_names_disk_faults_and_not_bad_files(tmp_path: Path) -> None:
    assert storage_problem(OSError(errno.ENOSPC, "No space left on device")) == "the disk is full"
    assert "read-only" in storage_problem(OSError(errno.EROFS, "Read-only file system"))
    wrapped = RuntimeError("node failed")
    wrapped.__cause__ = OSError(errno.EDQUOT, "Disk quota exceeded")
    assert "quota" in storage_problem(wrapped)
    assert storage_problem(ValueError("x")) is None and storage_problem(OSError(errno.ECONNREFUSED, "x")) is None

    conn = sqlite3.connect(tmp_path / "small.sqlite")
    conn.execute("PRAGMA max_page_count = 3")  # a database that cannot grow: SQLite's own "disk is full"
    conn.execute("CREATE TABLE t (x)")
    with pytest.raises(sqlite3.OperationalError) as full:
        conn.executemany("INSERT INTO t VALUES (?)", [("x" * 1000,)] * 50)
    conn.close()
    assert storage_problem(full.value) == "the disk is full"

    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(sqlite3.DatabaseError) as bad:
        sqlite3.connect(junk).execute("SELECT * FROM sqlite_master").fetchall()
    assert storage_problem(bad.value) is None  # the file is bad, the disk is fine


def test_disk_refused_is_a_full_over_quota_or_read_only_disk_and_nothing_an_admin_must_change(tmp_path: Path) -> None:
    """The faults a later try may not meet (room freed, the disk remounted); not a permission or a bad file."""
    wrapped = RuntimeError("writing the turn record")
    wrapped.__cause__ = OSError(errno.EDQUOT, "Disk quota exceeded")
    refused = [OSError(errno.ENOSPC, "No space left on device"), OSError(errno.EROFS, "Read-only file system"),
               wrapped, sqlite3.OperationalError("database or disk is full"),
               sqlite3.OperationalError("attempt to write a readonly database")]
    assert all(disk_refused(err) for err in refused)
    no_shm = sqlite3.OperationalError("disk I/O error")  # a full tmpfs: no room for a database's -shm
    no_shm.sqlite_errorname = "SQLITE_IOERR_SHMSIZE"
    assert disk_refused(no_shm) and not disk_refused(sqlite3.OperationalError("disk I/O error"))
    others = [OSError(errno.EACCES, "Permission denied"), OSError(errno.ENOTDIR, "Not a directory"),
              sqlite3.OperationalError("database is locked"), ValueError("x"), None]
    assert not any(disk_refused(err) for err in others)

    conn = sqlite3.connect(tmp_path / "small.sqlite")
    conn.execute("PRAGMA max_page_count = 3")  # SQLite's own SQLITE_FULL
    conn.execute("CREATE TABLE t (x)")
    with pytest.raises(sqlite3.OperationalError) as full:
        conn.executemany("INSERT INTO t VALUES (?)", [("x" * 1000,)] * 50)
    conn.close()
    assert disk_refused(full.value)


def test_writable_folder_problem(tmp_path: Path) -> None:
    assert writable_folder_problem(tmp_path / "a" / "b") is None
    assert not (tmp_path / "a").exists()  # nothing created by asking
    (tmp_path / "file").write_text("x")
    assert writable_folder_problem(tmp_path / "file" / "out") == f"{tmp_path / 'file'} is a file, not a folder"
    err = OSError(errno.ENOTDIR, "Not a directory")
    assert write_problem(err, tmp_path / "file" / "data") == f"{tmp_path / 'file'} is a file, not a folder"
    if os.geteuid() != 0:  # root writes through permissions; a read-only mount is tested in tests/bots
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o555)
        assert "not writable" in writable_folder_problem(locked / "out")
