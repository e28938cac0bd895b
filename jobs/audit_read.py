"""Reading the audit trail: its records as :func:`jobs.audit.write` stored them (the JSON lines file
``{DEEPRESEARCH_DATA_DIR}/audit.jsonl``, or PostgreSQL's ``deepresearch_audit`` with ``DATABASE_URL``),
those of a window and a requester, the lines that are not records counted, and up to when one
research's calls are counted (:func:`counted_until`)."""

from __future__ import annotations

import contextlib
import json
from datetime import UTC, datetime
from pathlib import Path

from engine.settings import Settings
from jobs import audit_pending
from jobs.audit_rows import record_epoch, research_key, window_start

#: The trail's file under ``DEEPRESEARCH_DATA_DIR`` (without ``DATABASE_URL``).
AUDIT_FILE = "audit.jsonl"
#: The records waiting under ``DEEPRESEARCH_DATA_DIR`` for PostgreSQL (with ``DATABASE_URL``).
PENDING_FILE = "audit-pending.jsonl"
#: Fields every record has (:func:`jobs.audit.build_record`); a line without them is not a record.
REQUIRED = ("at", "thread", "requester", "status")


def read(settings: Settings, *, since_days: float | None = None, user: str | None = None) -> list[dict]:
    """The records, oldest first, optionally only of the researches of the last ``since_days`` days
    and of one requester (see :func:`read_checked`, which also counts the lines that are not records)."""
    return read_checked(settings, since_days=since_days, user=user)[0]


def read_checked(settings: Settings, *, since_days: float | None = None, user: str | None = None,
                 now: float | None = None) -> tuple[list[dict], int]:
    """``(records, skipped)``: the records, oldest first, optionally only one requester's;
    ``skipped`` counts the stored lines that are not records (cut by a crash, not a JSON object, or
    missing a field of :data:`REQUIRED` or a readable ``at``).

    With ``since_days``, a research is read whole when any of its records (the same ``thread`` and
    ``research_started``) was written in the last ``since_days`` days before ``now`` (Unix seconds,
    the current time when not given): its attempts before that too, so its calls and tokens are
    all counted (:func:`jobs.audit_rows.researches` says it started before the window); a research whose records
    all came before is left out.

    Raises:
        engine.database.DatabaseError: ``DATABASE_URL`` is set and unusable.
        ValueError: ``since_days`` is not a finite number.
    """
    cutoff = window_start(since_days, now)
    if settings.database_url is not None:
        stored = _read_postgres(settings, cutoff, user)
        records = [r for r in stored if is_record(r)]
        return records, len(stored) - len(records)
    lines = _read_lines(settings)
    records = [r for r in parse_records("\n".join(lines)) if is_record(r)]
    skipped = len(lines) - len(records)
    records = [r for r in records if user is None or r.get("requester") == user]
    if cutoff is not None:
        shown = {research_key(r) for r in records if record_epoch(r) >= cutoff}
        records = [r for r in records if record_epoch(r) >= cutoff or research_key(r) in shown]
    return records, skipped


def is_record(record: object) -> bool:
    """True when ``record`` is a dict with every field of :data:`REQUIRED` (``requester`` may be
    empty: a turn lost before its thread was registered), a ``status`` and an ISO ``at``."""
    if not isinstance(record, dict) or any(k not in record for k in REQUIRED) or not record.get("status"):
        return False
    try:
        datetime.fromisoformat(str(record["at"]))
    except ValueError:
        return False
    return True


def _read_lines(settings: Settings) -> list[str]:
    path = Path(settings.data_dir) / AUDIT_FILE
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    return [line for line in text.splitlines() if line.strip()]


def parse_records(text: str) -> list[dict]:
    """The JSON objects of ``text``'s lines, in order; a line cut by a crash (not JSON) is left out."""
    out = []
    for line in text.splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line cut by a crash
    return out


def _read_postgres(settings: Settings, cutoff: float | None, user: str | None) -> list[dict]:
    """The stored records, oldest first, of ``user`` (any when None) and, with ``cutoff``, of the
    researches with a record at or after it (see :func:`read_checked`)."""
    from engine.pg_pool import pooled_connection

    query, args = "SELECT a.record FROM deepresearch_audit a WHERE true", []
    if user is not None:
        query += " AND a.requester = %s"
        args.append(user)
    if cutoff is not None:
        at = datetime.fromtimestamp(cutoff, UTC)
        same = " AND b.requester = a.requester" if user is not None else ""
        query += (" AND (a.at >= %s OR EXISTS (SELECT 1 FROM deepresearch_audit b WHERE b.at >= %s" + same
                  + " AND b.record->>'thread' = a.record->>'thread'"
                  " AND b.record->>'research_started' = a.record->>'research_started'))")
        args += [at, at]
    with pooled_connection(settings) as conn:
        return [row[0] for row in conn.execute(query + " ORDER BY a.at, a.id", args).fetchall()]


def research_key_of(research_started: float) -> str:
    """A record's ``research_started`` (ISO, to the microsecond) for the research started then (Unix seconds)."""
    return datetime.fromtimestamp(research_started, UTC).isoformat(timespec="microseconds")


def counted_until(settings: Settings, thread_id: str, research_started: float) -> float | None:
    """Unix seconds before which the calls of ``thread_id``'s research (the one started at
    ``research_started``) are counted by its records so far, in the trail or waiting in a pending
    copy (:data:`PENDING_FILE`, :mod:`jobs.audit_pending`): their latest ``calls_to``; None when no
    record counted any. The next record counts the calls from there (an attempt killed before it
    could write its own record leaves its calls to the attempt that resumes it). A record written
    before ``calls_to`` was kept counted its attempt's calls up to its ``at`` (whole seconds): the
    second after it. Raises what reading the trail raises (PostgreSQL unusable, an unreadable file)."""
    key = research_key_of(research_started)
    ends = []
    for rec in _research_records(settings, thread_id, key):
        if rec.get("calls_to") is not None:
            ends.append(float(rec["calls_to"]))
        elif "calls_to" not in rec and rec.get("status") != "rejected":
            ends.append(int(record_epoch(rec)) + 1.0)
    return max(ends, default=None)


def turn_recorded(settings: Settings, thread_id: str, turn_id: str, *, since: float | None = None) -> bool:
    """Whether the trail (or a pending copy of this host, :data:`PENDING_FILE`, :mod:`jobs.audit_pending`)
    holds a record of chat turn ``turn_id`` of ``thread_id`` (its ``turn``, :func:`jobs.audit.build_record`);
    in PostgreSQL, one written at or after ``since`` (Unix seconds: when the turn was queued; any time when
    None). The pending copies are read first: a record waiting for a PostgreSQL away is found without it.
    Raises what reading the trail raises (PostgreSQL unusable, an unreadable file)."""
    data = Path(settings.data_dir)
    postgres = settings.database_url is not None
    for path in (data / (PENDING_FILE if postgres else AUDIT_FILE), audit_pending.spare_path(settings)):
        with contextlib.suppress(FileNotFoundError):
            if any(is_record(r) and r.get("thread") == thread_id and r.get("turn") == turn_id
                   for r in parse_records(path.read_text(encoding="utf-8"))):
                return True
    if not postgres:
        return False
    from engine.database import connect, require_database

    require_database(settings)
    with connect(settings) as conn:  # the index on ``at`` keeps this to the turn's own days
        return conn.execute("SELECT 1 FROM deepresearch_audit WHERE at >= %s AND record->>'thread' = %s"
                            " AND record->>'turn' = %s LIMIT 1",
                            (datetime.fromtimestamp(int(since or 0), UTC), thread_id, turn_id)).fetchone() is not None


def _research_records(settings: Settings, thread_id: str, key: str) -> list[dict]:
    """The records of the research (``thread_id``, its ``research_started`` ``key``) in the trail and
    the pending copies of this host."""
    data = Path(settings.data_dir)
    texts = []
    if settings.database_url is not None:
        from engine.pg_pool import pooled_connection

        with pooled_connection(settings) as conn:
            rows = conn.execute("SELECT record FROM deepresearch_audit WHERE record->>'thread' = %s"
                                " AND record->>'research_started' = %s", (thread_id, key)).fetchall()
        stored = [row[0] for row in rows if isinstance(row[0], dict)]
        files = (data / PENDING_FILE, audit_pending.spare_path(settings))
    else:
        stored, files = [], (data / AUDIT_FILE, audit_pending.spare_path(settings))
    for path in files:
        with contextlib.suppress(FileNotFoundError):
            texts.append(path.read_text(encoding="utf-8"))
    return [r for r in (*stored, *parse_records("\n".join(texts)))
            if is_record(r) and r.get("thread") == thread_id and r.get("research_started") == key]
