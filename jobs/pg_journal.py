"""The journal of turns in PostgreSQL (``DATABASE_URL``), and the move of a host's ``turns.sqlite`` into it."""

from __future__ import annotations

import json
import logging
import os
import random
import sqlite3
import time
from pathlib import Path

from engine.pg_pool import pooled_connection
from engine.redact import quoted
from engine.settings import Settings
from jobs import records
from jobs.store import JOURNAL_FILE, PURGE_CHANCE, Store, Updater, connect_sqlite

log = logging.getLogger(__name__)

#: What a host's ``turns.sqlite`` is renamed to once its open turns are in PostgreSQL (its ``-wal``
#: and ``-shm`` files follow it), so it is read once; kept for the operator, never read again.
MOVED_SUFFIX = ".moved"
_TABLE = "deepresearch_turn_journal"
_RECORD = "record"
#: The purge of expired records a write sometimes does in its transaction (``PURGE_CHANCE``). It skips
#: the rows another transaction holds: a write that rewrites a record which had expired (a thread
#: cancelled again after ``CANCEL_TTL``) holds that row, and a purge waiting for it while holding
#: the expired rows it took first could meet that write's own purge waiting for those (a deadlock,
#: SQLSTATE 40P01). A row skipped is purged by a later write.
_PURGE = (f"DELETE FROM {_TABLE} WHERE space = %(space)s AND key IN (SELECT key FROM {_TABLE}"
          " WHERE space = %(space)s AND expires_at <= %(now)s FOR UPDATE SKIP LOCKED)")

#: Data dirs whose ``turns.sqlite`` this process has moved, or found absent.
_moved: set[str] = set()


class PostgresJournal(Store):
    """The journal of turns in PostgreSQL (``DATABASE_URL``), table ``deepresearch_turn_journal``.

    With several hosts each bot and worker has its own data dir, so a journal there would hold only
    what its own host wrote: a turn queued by a bot on host A could be recovered only by a worker on
    host A, and its end written on host B would stay unknown to A. Here every host reads and writes
    the same one. Only what the journal is used for is kept (:func:`jobs.records.mirror`,
    :mod:`jobs.journal`): records by key with expiry, and sorted indexes. Each call is one
    transaction on a connection of the process's pool (:func:`engine.pg_pool.pooled_connection`:
    one server connection for the many writes of a turn, a pool of its own in a forked work horse).
    Before its first call on a host, the open turns of the data dir's ``turns.sqlite`` (kept there
    before ``DATABASE_URL`` was set) are moved in (:func:`move_sqlite_journal`).

    Raises (every method): :class:`engine.database.DatabaseUnavailable` when PostgreSQL cannot be
    reached right now (a ``ConnectionError``), another :class:`engine.database.DatabaseError`
    when it refuses the login or the database is missing, psycopg's errors otherwise.
    """

    SERVICE = "PostgreSQL"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def _connect(self):
        if str(Path(self.settings.data_dir).resolve()) not in _moved:
            move_sqlite_journal(self.settings)
        return pooled_connection(self.settings)

    def get(self, key: str) -> dict | None:
        with self._connect() as conn:
            row = conn.execute(f"SELECT value FROM {_TABLE} WHERE space = %s AND key = %s"
                               " AND (expires_at IS NULL OR expires_at > %s)",
                               (_RECORD, key, time.time())).fetchone()
        return row[0] if row and isinstance(row[0], dict) else None

    def put(self, key: str, value: dict, ttl: float | None = None) -> None:
        from psycopg.types.json import Jsonb

        now = time.time()
        with self._connect() as conn:
            conn.execute(f"INSERT INTO {_TABLE} (space, key, value, expires_at) VALUES (%s, %s, %s, %s)"
                         " ON CONFLICT (space, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at",
                         (_RECORD, key, Jsonb(value), now + ttl if ttl else None))
            if ttl and random.random() < PURGE_CHANCE:
                conn.execute(_PURGE, {"space": _RECORD, "now": now})

    def add(self, key: str, value: dict, ttl: float | None = None) -> bool:
        raise NotImplementedError("the journal of turns is written with put")

    def update(self, key: str, fn: Updater, ttl: float | None = None) -> dict | None:
        raise NotImplementedError("the journal of turns is written with put")

    def delete(self, key: str, *, if_field: tuple[str, object] | None = None) -> bool:
        """Delete the record ``key`` (``deepresearch prune`` forgetting a thread); True when there was one.

        Raises:
            NotImplementedError: with ``if_field`` (the journal is written with put only).
        """
        if if_field is not None:
            raise NotImplementedError("the journal of turns is written with put")
        with self._connect() as conn:
            return conn.execute(f"DELETE FROM {_TABLE} WHERE space = %s AND key = %s", (_RECORD, key)).rowcount > 0

    def index_add(self, index: str, member: str, score: float) -> None:
        with self._connect() as conn:
            conn.execute(f"INSERT INTO {_TABLE} (space, key, score) VALUES (%s, %s, %s)"
                         " ON CONFLICT (space, key) DO UPDATE SET score = excluded.score",
                         ("index:" + index, member, score))

    def index_remove(self, index: str, member: str) -> None:
        with self._connect() as conn:
            conn.execute(f"DELETE FROM {_TABLE} WHERE space = %s AND key = %s", ("index:" + index, member))

    def index_members(self, index: str, limit: int = 100) -> list[str]:
        with self._connect() as conn:
            rows = conn.execute(f"SELECT key FROM {_TABLE} WHERE space = %s ORDER BY score DESC LIMIT %s",
                                ("index:" + index, max(limit, 1))).fetchall()
        return [row[0] for row in rows]


def _open_turns(path: Path) -> list[tuple[str, float, dict, float | None]]:
    """``(turn_id, score, record, expires_at)`` of each turn in the open index of the SQLite journal at
    ``path`` whose record has neither expired nor ended (:data:`jobs.records.TERMINAL`)."""
    conn = connect_sqlite(path)
    try:
        rows = conn.execute("SELECT i.member, i.score, k.value, k.expires_at FROM idx i JOIN kv k"
                            " ON k.key = ? || i.member WHERE i.name = ? AND (k.expires_at IS NULL OR k.expires_at > ?)",
                            (records.turn_key(""), records.OPEN_INDEX, time.time())).fetchall()
    finally:
        conn.close()
    turns = [(member, score, json.loads(value), expires_at) for member, score, value, expires_at in rows]
    return [turn for turn in turns if turn[2].get("state") not in records.TERMINAL]


def move_sqlite_journal(settings: Settings) -> int:
    """Move the open turns of the data dir's ``turns.sqlite`` (written before ``DATABASE_URL`` was set)
    into PostgreSQL's journal, then rename the file (:data:`MOVED_SUFFIX`); returns how many were added.

    Turns queued before the switch are then recovered should Redis lose them
    (:func:`jobs.journal.recover_lost`). A turn the table already holds is left as it is there
    (``ON CONFLICT DO NOTHING``): another host, or this one before a crash cut the rename, moved
    it, and a worker may have claimed or ended it since. Done once per process and data dir;
    logs ``event=turn_journal_moved`` with the counts. A file that cannot be read is logged and left.

    Raises:
        engine.database.DatabaseError: PostgreSQL cannot be used (the file stays, for the next call).
    """
    path, done = Path(settings.data_dir) / JOURNAL_FILE, str(Path(settings.data_dir).resolve())
    if not path.is_file():
        _moved.add(done)
        return 0
    try:
        turns = _open_turns(path)
    except (sqlite3.Error, OSError, ValueError) as err:
        log.error("event=turn_journal_move_failed path=%s error=%s", quoted(path, 1000), quoted(err))
        _moved.add(done)
        return 0
    added = _insert_open(settings, turns)
    _moved.add(done)
    try:
        os.replace(path, path.with_name(path.name + MOVED_SUFFIX))
    except FileNotFoundError:
        return added  # another process of this host moved it at the same moment
    except OSError as err:  # every turn is in PostgreSQL: a later start reads the file again, adding nothing
        log.error("event=turn_journal_move_failed path=%s open=%d moved=%d error=%s", quoted(path, 1000), len(turns), added, quoted(err))
        return added
    for extra in ("-wal", "-shm"):
        try:
            os.replace(f"{path}{extra}", f"{path}{MOVED_SUFFIX}{extra}")
        except OSError:
            pass  # none: SQLite removed it when the last connection closed
    log.warning("event=turn_journal_moved path=%s open=%d moved=%d", quoted(path, 1000), len(turns), added)
    return added


def _insert_open(settings: Settings, turns: list[tuple[str, float, dict, float | None]]) -> int:
    """Insert each turn's record and, when its record was new, its place in the open index; one transaction.

    The turns go in the order of their ids, whatever their file's order: two hosts moving the same
    turns at once (copies of one file) would otherwise each hold a row the other waits for (a
    deadlock, SQLSTATE 40P01; one order for all is the PostgreSQL manual's remedy).
    """
    from psycopg.types.json import Jsonb

    added = 0
    with pooled_connection(settings) as conn:
        for turn_id, score, rec, expires_at in sorted(turns, key=lambda turn: turn[0]):
            cur = conn.execute(f"INSERT INTO {_TABLE} (space, key, value, expires_at) VALUES (%s, %s, %s, %s)"
                               " ON CONFLICT (space, key) DO NOTHING",
                               (_RECORD, records.turn_key(turn_id), Jsonb(rec), expires_at))
            if cur.rowcount:
                conn.execute(f"INSERT INTO {_TABLE} (space, key, score) VALUES (%s, %s, %s)"
                             " ON CONFLICT (space, key) DO NOTHING", ("index:" + records.OPEN_INDEX, turn_id, score))
                added += 1
    return added
