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


def _waiting_deletes(url: str, count: int, done) -> None:
    """Return once ``count`` sessions wait for a row lock in a purge of the journal, or the write
    ``done`` (a future) is over: a purge that skips locked rows waits for none (30 s at most)."""
    with psycopg.connect(url, autocommit=True) as conn:
        for _ in range(600):
            if done.done():
                return
            row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                               " AND wait_event_type = 'Lock' AND query LIKE 'DELETE FROM deepresearch_turn_journal%'"
                               ).fetchone()
            if row[0] >= count:
                return
            time.sleep(0.05)
    raise AssertionError(f"{count} purges never waited for a lock")


def test_two_writes_purging_expired_records_at_once_do_not_deadlock(tmp_path, pg_url, monkeypatch):
    """A write sometimes purges the expired records in its own transaction (``PURGE_CHANCE``). When
    it rewrites a record that had expired (a thread cancelled again a day later: ``cancel:{thread}``),
    it holds that row, which another write's purge still sees as expired and waits for; its own
    purge then waited for the expired rows the other purge took first: SQLSTATE 40P01. Made
    deterministic with a session holding the first expired row, so both purges would queue on it;
    a purge now skips the rows another transaction holds, and waits for none."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    journal = journal_store(make_settings(tmp_path / "data", database_url=pg_url))
    journal.put("cancel:a", {"cancelled": True}, ttl=60)  # the first row of the table...
    journal.put("cancel:x", {"cancelled": True}, ttl=60)  # ...then the one cancelled again
    with psycopg.connect(pg_url, autocommit=True) as conn:  # both expired a while ago
        conn.execute("UPDATE deepresearch_turn_journal SET expires_at = %s", (time.time() - 10,))
    monkeypatch.setattr("jobs.pg_journal.random.random", lambda: 0.0)  # every write purges
    started = threading.Event()
    with psycopg.connect(pg_url) as holder, ThreadPoolExecutor(2) as pool:
        holder.execute("SELECT 1 FROM deepresearch_turn_journal WHERE key = 'cancel:a' FOR UPDATE")
        other = pool.submit(journal.put, records.turn_key("t1"), {"state": "queued"}, 60)
        _waiting_deletes(pg_url, 1, other)  # its purge waits for cancel:a, before reaching cancel:x
        again = pool.submit(lambda: (started.set(), journal.put("cancel:x", {"cancelled": True}, ttl=60)))
        _waiting_deletes(pg_url, 2, again)  # cancel:x rewritten and held; its purge waits for cancel:a too
        holder.commit()
        other.result(timeout=60)
        again.result(timeout=60)
    assert started.is_set()
    assert journal.get("cancel:x") == {"cancelled": True}
    assert journal.get("cancel:a") is None


def test_two_hosts_moving_the_same_turns_in_opposite_orders_do_not_deadlock(tmp_path, pg_url):
    """Each host moves its turns.sqlite's open turns in one transaction, in the order its file lists
    them (by score). Two copies of a file listing the same turns in opposite orders, moved at once,
    would each hold one turn's row the other waits for (SQLSTATE 40P01). Made deterministic with two
    sessions holding q1's record and q2's place in the index (inserts not yet committed), let go
    one after the other."""
    from concurrent.futures import ThreadPoolExecutor

    from jobs import pg_journal

    journal_store(make_settings(tmp_path / "c", database_url=pg_url)).get("none")  # the tables exist
    hosts = []
    for name, scores in (("a", (1.0, 2.0)), ("b", (2.0, 1.0))):
        settings = make_settings(tmp_path / name, database_url=pg_url)
        settings.data_dir.mkdir(parents=True)
        local = SqliteStore(settings.data_dir / JOURNAL_FILE)
        for turn_id, score in zip(("q1", "q2"), scores, strict=True):
            local.put(records.turn_key(turn_id), {"turn_id": turn_id, "state": "queued"}, ttl=3600)
            local.index_add(records.OPEN_INDEX, turn_id, score)
        hosts.append(settings)
    assert [t[0] for t in pg_journal._open_turns(hosts[1].data_dir / JOURNAL_FILE)] == ["q2", "q1"]

    def waiting(count: int, futures) -> None:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            for _ in range(600):
                if all(f.done() for f in futures):
                    return
                row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                                   " AND wait_event_type = 'Lock'"
                                   " AND query LIKE 'INSERT INTO deepresearch_turn_journal%'").fetchone()
                if row[0] >= count:
                    return
                time.sleep(0.05)
        raise AssertionError(f"{count} moves never waited for a lock")

    holders = [psycopg.connect(pg_url) for _ in range(2)]
    try:
        holders[0].execute("INSERT INTO deepresearch_turn_journal (space, key, value) VALUES ('record', %s, '{}')",
                           (records.turn_key("q1"),))
        holders[1].execute("INSERT INTO deepresearch_turn_journal (space, key, score) VALUES (%s, 'q2', 0)",
                           ("index:" + records.OPEN_INDEX,))
        with ThreadPoolExecutor(2) as pool:
            a = pool.submit(pg_journal.move_sqlite_journal, hosts[0])
            waiting(1, [a])  # a waits for q1's record
            b = pool.submit(pg_journal.move_sqlite_journal, hosts[1])
            waiting(2, [a, b])  # b wrote q2's record and waits for its place in the index
            holders[0].rollback()  # a writes q1 and goes on to q2's record, which b holds
            waiting(2, [a, b])
            holders[1].rollback()  # b goes on to q1's record, which a holds
            moved = sorted([a.result(timeout=60), b.result(timeout=60)])
    finally:
        for conn in holders:
            conn.close()
    assert moved == [0, 2]
    journal = journal_store(hosts[0])
    assert sorted(journal.index_members(records.OPEN_INDEX)) == ["q1", "q2"]
