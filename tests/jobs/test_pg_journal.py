"""The journal of turns in PostgreSQL (``DATABASE_URL``): pooled connections, fork(), the move from turns.sqlite.

Run against the real server of ``tests.pg_db``, each test on a database of its own (``pg_url``),
so the server connections counted are the journal's (the test's own observer left out).
"""

from __future__ import annotations

import logging
import os
import shutil
import time

import psycopg
import pytest

from engine.database import DatabaseUnavailable, is_unavailable
from jobs import records
from jobs.store import JOURNAL_FILE, SqliteStore, journal_store
from tests.engine.test_postgres_outage import outage
from tests.jobs.conftest import make_settings
from tests.waiting import wait_for

#: Journal writes per test: each a separate call, as a turn's claim and re-run fields are.
WRITES = 20


def _backends(observer) -> list[int]:
    """Server processes of client connections to the observer's database, the observer left out."""
    rows = observer.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                            " AND backend_type = 'client backend' AND pid <> pg_backend_pid()").fetchall()
    return sorted(row[0] for row in rows)


def _settled(observer) -> list[int]:
    """The backends once connections being closed are gone (at most one is left open by the journal)."""
    return wait_for(lambda: (lambda pids: [pids] if len(pids) <= 1 else None)(_backends(observer)),
                    what="the closed connections to leave pg_stat_activity")[0]


def _write(journal, n: int) -> None:
    journal.put(records.turn_key(f"t{n}"), {"state": "queued", "n": n}, ttl=60)
    journal.index_add(records.OPEN_INDEX, f"t{n}", float(n))


def test_journal_writes_share_one_server_connection(tmp_path, pg_url):
    journal = journal_store(make_settings(tmp_path / "data", database_url=pg_url))
    with psycopg.connect(pg_url, autocommit=True) as observer:
        _write(journal, 0)
        first = _settled(observer)
        assert len(first) == 1, "the journal keeps no connection between two writes"
        seen = []
        for n in range(1, WRITES):
            _write(journal, n)
            seen.append(_backends(observer))
        assert seen == [first] * (WRITES - 1)
    assert len(journal.index_members(records.OPEN_INDEX, limit=100)) == WRITES


def test_a_forked_child_writes_on_a_connection_of_its_own_and_the_parents_stays_usable(tmp_path, pg_url):
    """As an RQ work horse does: the parent used the journal, then forks; the child writes."""
    journal = journal_store(make_settings(tmp_path / "data", database_url=pg_url))
    with psycopg.connect(pg_url, autocommit=True) as observer:
        _write(journal, 0)
        parent = _settled(observer)
        assert len(parent) == 1
        pid = os.fork()
        if pid == 0:  # the child: never back into pytest
            code = 3
            try:
                _write(journal, 1)
                with psycopg.connect(pg_url, autocommit=True) as mine:
                    both = set(_backends(mine)) - {observer.info.backend_pid}
                code = 0 if len(both) == 2 and parent[0] in both else 1
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, "the child had no connection of its own, or failed"
        assert _settled(observer) == parent  # the child's went with it; the parent's is untouched
        _write(journal, 2)
        assert _backends(observer) == parent
    assert journal.get(records.turn_key("t1")) == {"state": "queued", "n": 1}
    assert journal.index_members(records.OPEN_INDEX) == ["t2", "t1", "t0"]


def test_an_outage_is_unavailable_and_the_journal_works_again_after_it(tmp_path, pg_url):
    journal = journal_store(make_settings(tmp_path / "data", database_url=pg_url))
    _write(journal, 0)
    with outage(pg_url):
        started = time.monotonic()
        with pytest.raises(DatabaseUnavailable) as info:
            _write(journal, 1)
        assert time.monotonic() - started < 15  # the pool's short wait, then today's one connection
        assert is_unavailable(info.value) and "not currently accepting connections" in str(info.value)
    _write(journal, 2)
    assert journal.index_members(records.OPEN_INDEX) == ["t2", "t0"]


def _sqlite_journal(data_dir) -> None:
    """A host's turns.sqlite from before DATABASE_URL: two open turns, one ended, one expired."""
    local = SqliteStore(data_dir / JOURNAL_FILE)
    now = time.time()
    for turn_id, state, ttl, score in (("q1", "queued", 3600, now), ("r1", "running", 3600, now + 1),
                                       ("d1", "done", 3600, None), ("x1", "queued", 0.001, now - 1)):
        rec = {"turn_id": turn_id, "state": state, "created_at": now, "turn": {"thread_id": f"console:{turn_id}"}}
        local.put(records.turn_key(turn_id), rec, ttl=ttl)
        if score is not None:  # as records.mirror keeps the index: open turns only
            local.index_add(records.OPEN_INDEX, turn_id, score)
    time.sleep(0.01)  # x1's 1 ms of life are over


def _journal_rows(pg_url: str) -> list[tuple]:
    with psycopg.connect(pg_url) as conn:
        return conn.execute("SELECT space, key, value->>'state' FROM deepresearch_turn_journal"
                            " ORDER BY space, key").fetchall()


def test_open_turns_of_a_hosts_turns_sqlite_move_into_postgres_once(tmp_path, pg_url, caplog):
    caplog.set_level(logging.INFO, logger="jobs")
    host_a = make_settings(tmp_path / "a", database_url=pg_url)
    _sqlite_journal(host_a.data_dir)
    shutil.copy(host_a.data_dir / JOURNAL_FILE, tmp_path / "copy.sqlite")
    journal = journal_store(host_a)
    assert journal.index_members(records.OPEN_INDEX) == ["r1", "q1"]
    assert journal.get(records.turn_key("q1"))["state"] == "queued"
    assert journal.get(records.turn_key("d1")) is None and journal.get(records.turn_key("x1")) is None
    assert not (host_a.data_dir / JOURNAL_FILE).exists() and (host_a.data_dir / f"{JOURNAL_FILE}.moved").is_file()
    moved = [r.getMessage() for r in caplog.records if "event=turn_journal_moved" in r.getMessage()]
    assert len(moved) == 1 and "moved=2" in moved[0], moved
    # a worker claims q1 and ends r1 in PostgreSQL; then a second host (or a restart before the file
    # was renamed) finds the same turns.sqlite: nothing is copied again, nothing reopened
    journal.put(records.turn_key("q1"), {"turn_id": "q1", "state": "running"})
    journal.put(records.turn_key("r1"), {"turn_id": "r1", "state": "done"})
    journal.index_remove(records.OPEN_INDEX, "r1")
    before = _journal_rows(pg_url)
    host_b = make_settings(tmp_path / "b", database_url=pg_url)
    host_b.data_dir.mkdir(parents=True)
    shutil.copy(tmp_path / "copy.sqlite", host_b.data_dir / JOURNAL_FILE)
    again = journal_store(host_b)
    assert again.index_members(records.OPEN_INDEX) == ["q1"]
    assert _journal_rows(pg_url) == before
    assert not (host_b.data_dir / JOURNAL_FILE).exists()
    moved = [r.getMessage() for r in caplog.records if "event=turn_journal_moved" in r.getMessage()]
    assert len(moved) == 2 and "moved=0" in moved[1], moved
    journal_store(host_a).get(records.turn_key("q1"))  # a later use reads no file
    assert len([r for r in caplog.records if "event=turn_journal_moved" in r.getMessage()]) == 2
