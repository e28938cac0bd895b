"""Reading the audit trail: its records as :func:`jobs.audit.write` stored them (the JSON lines file
``{DEEPRESEARCH_DATA_DIR}/audit.jsonl``, or PostgreSQL's ``deepresearch_audit`` with ``DATABASE_URL``),
those of a window and a requester, and the lines that are not records counted."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from engine.settings import Settings
from jobs.audit_rows import record_epoch, research_key, window_start

#: The trail's file under ``DEEPRESEARCH_DATA_DIR`` (without ``DATABASE_URL``).
AUDIT_FILE = "audit.jsonl"
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
    from engine.database import connect, require_database

    require_database(settings)
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
    with connect(settings) as conn:
        return [row[0] for row in conn.execute(query + " ORDER BY a.at, a.id", args).fetchall()]
