"""`deepresearch` with the disk failing from a given moment, for the terminal tests:
``python -m tests.bots.disk_faults ask ...``.

``DISK_FULL_AT=Researching``: once the progress line shows that text, every write under
``DEEPRESEARCH_DATA_DIR`` fails as on a full disk: a file opened for writing raises
``OSError(ENOSPC)``, and a SQLite statement that writes raises ``sqlite3.OperationalError("database
or disk is full")`` (what SQLite says for ``SQLITE_FULL``); reads go on. ``AUDIT_DENIED=1``: the
audit trail alone cannot be written (``PermissionError``), a fault the run's last line does not tell.
``DISK_FULL_READS=1``: once full, a SQLite database under the data folder opened by URI (the corpus
index's readers) cannot create the ``-shm`` file its write-ahead log needs, as SQLite reads it on a
full tmpfs: its first statement raises ``sqlite3.OperationalError("disk I/O error")``
(``SQLITE_IOERR_SHMSIZE``); ``DISK_FULL_READS=only``: that alone, the files already there still
take writes. ``DISK_FULL_AT`` may also be text of a line the run says (``thread:``) or prints on stdout
(``report.md``: the disk fills once the report is written, as its files are listed).
"""

from __future__ import annotations

import builtins
import errno
import io
import os
import sqlite3
import sys
from pathlib import Path

DATA = Path(os.environ.get("DEEPRESEARCH_DATA_DIR", "data")).resolve()
#: Set once the disk is full.
FULL: list[bool] = []
#: False when only new files (a reader's ``-shm``) fail (``DISK_FULL_READS=only``).
WRITES_FAIL = os.environ.get("DISK_FULL_READS") != "only"
_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER", "VACUUM")


def _under_data(path: object) -> bool:
    try:
        return Path(os.fsdecode(path)).resolve().is_relative_to(DATA)
    except (TypeError, ValueError):
        return False  # a file descriptor, not a path


def _full(path: object) -> OSError:
    return OSError(errno.ENOSPC, "No space left on device", os.fsdecode(path))


def _refuse_sql(sql: str) -> None:
    if FULL and WRITES_FAIL and sql.lstrip().upper().startswith(_WRITES):
        raise sqlite3.OperationalError("database or disk is full")


def _no_shm() -> sqlite3.OperationalError:
    err = sqlite3.OperationalError("disk I/O error")
    err.sqlite_errorname = "SQLITE_IOERR_SHMSIZE"
    return err


def _wal_reader(database: object, uri: bool) -> bool:
    """True for a database under the data folder opened by URI (``file:...?mode=ro``)."""
    text = os.fsdecode(database) if isinstance(database, (str, bytes, os.PathLike)) else ""
    return uri and text.startswith("file:") and _under_data(text[5:].split("?")[0])


class _Cursor(sqlite3.Cursor):
    def execute(self, sql, *args, **kwargs):
        _refuse_sql(sql)
        return super().execute(sql, *args, **kwargs)

    def executemany(self, sql, *args, **kwargs):
        _refuse_sql(sql)
        return super().executemany(sql, *args, **kwargs)

    def executescript(self, script):
        _refuse_sql(script)
        return super().executescript(script)


class _Connection(sqlite3.Connection):
    reads_fail = False

    def cursor(self, factory=_Cursor):
        if self.reads_fail and FULL:
            raise _no_shm()
        return super().cursor(factory)

    def execute(self, sql, *args, **kwargs):
        return self.cursor().execute(sql, *args, **kwargs)

    def executemany(self, sql, *args, **kwargs):
        return self.cursor().executemany(sql, *args, **kwargs)

    def executescript(self, script):
        return self.cursor().executescript(script)


def refuse_writes(put=setattr, *, shm: bool = False) -> None:
    """Make every write under :data:`DATA` fail as on a full disk while :data:`FULL` holds an entry (the
    module's docstring says how; ``DISK_FULL_READS`` as there): ``sqlite3.connect``, ``open`` and
    ``os.open`` are replaced through ``put(module, name, value)`` (``setattr``, or a test's
    ``monkeypatch.setattr``, which puts them back after the test). With ``shm``, a SQLite database under
    :data:`DATA` opened while the disk is full cannot be read either (its statements raise SQLite's
    ``SQLITE_IOERR_SHMSIZE`` "disk I/O error"), as on a full tmpfs, where a database in write-ahead-log
    mode that no connection holds open needs a new ``-shm`` file to be read at all."""
    real_connect, real_open, real_os_open = sqlite3.connect, builtins.open, os.open

    def connect(*args, **kwargs):
        kwargs.setdefault("factory", _Connection)
        conn = real_connect(*args, **kwargs)
        if os.environ.get("DISK_FULL_READS") and args and _wal_reader(args[0], kwargs.get("uri", False)):
            conn.reads_fail = True
        if shm and FULL and args and _under_data(args[0]):
            conn.reads_fail = True
        return conn

    def open_(file, mode="r", *args, **kwargs):
        if FULL and WRITES_FAIL and any(m in mode for m in "wax+") and _under_data(file):
            raise _full(file)
        return real_open(file, mode, *args, **kwargs)

    def os_open(path, flags, *args, **kwargs):
        if FULL and WRITES_FAIL and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND) and _under_data(path):
            raise _full(path)
        return real_os_open(path, flags, *args, **kwargs)

    for module, name, value in ((sqlite3, "connect", connect), (builtins, "open", open_), (io, "open", open_),
                                (os, "open", os_open)):
        put(module, name, value)


def _install_full_disk(stage: str) -> None:
    refuse_writes()

    import bots.console

    shown = bots.console.ConsoleProgress.__call__

    def showing(self, progress) -> None:
        shown(self, progress)
        if stage in progress.render(elapsed=0):
            FULL.append(True)

    bots.console.ConsoleProgress.__call__ = showing
    said = bots.console.say

    def saying(line, *args, **kwargs) -> None:
        said(line, *args, **kwargs)
        if stage in str(line):
            FULL.append(True)

    bots.console.say = saying

    import bots.console_output

    printed = bots.console_output.stdout_line

    def printing(line, *args, **kwargs):
        result = printed(line, *args, **kwargs)
        if stage in str(line):
            FULL.append(True)
        return result

    bots.console_output.stdout_line = printing


def _deny_audit() -> None:
    import jobs.audit

    def denied(settings, record) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", str(Path(settings.data_dir) / jobs.audit.AUDIT_FILE))

    jobs.audit._write_file = denied


def main() -> None:
    """Install the faults the environment names, then run ``deepresearch`` with ``sys.argv``."""
    if os.environ.get("DISK_FULL_AT"):
        _install_full_disk(os.environ["DISK_FULL_AT"])
    if os.environ.get("AUDIT_DENIED"):
        _deny_audit()
    from bots.cli import main as cli

    sys.argv[0] = "deepresearch"
    cli()


if __name__ == "__main__":
    main()
