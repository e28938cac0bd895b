"""The audit trail: one structured record per research, written when it ends.

A record says when the research started and ended, where (platform, workspace or tenant,
channel or chat), who asked what (the question cut to :data:`QUESTION_CHARS`), whether a
clarifying question was asked, how it ended (``done``, ``failed``, ``cancelled``, ``rejected``),
how long it took, the model calls and tokens by role, the sources found, the files delivered and
the error line. It never holds a token, a key or a password: only ids, the question, counts and
file names, and its text fields go through :func:`engine.redact.redact`.

Records are JSON lines in ``{DATA_DIR}/audit.jsonl``, or rows of ``deepresearch_audit`` when
``DATABASE_URL`` is set (so every host writes to one trail). ``deepresearch audit`` reads them;
``deepresearch prune`` drops records older than its ``--older-than``. A record that cannot reach
a PostgreSQL away right now waits in this host's ``{DATA_DIR}/audit-pending.jsonl`` and is
inserted before the next record this host writes (:func:`write`).

The trail is append-only: a research stopped and resumed (an ``ask`` interrupted with Ctrl-C, then
``ask --resume``; a research paused at its clarifying question, then answered) has one record per
attempt, each with the model calls and tokens no earlier record of the research counted (its
``calls_to`` says up to when: :func:`counted_until`; an attempt killed before it could write its record
leaves its calls to the attempt that resumes it), and all with the research's ``thread``
and ``research_started``; :func:`jobs.audit_rows.researches` combines them into one row for ``deepresearch audit``.
An attempt that stops at its clarifying question is a record with status ``paused`` (its calls so
far), written when the question is asked, so they are in the trail whether or not it is answered.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import threading
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from engine.artifacts import safe_name
from engine.outage_log import handled
from engine.redact import quoted, redact
from engine.settings import OFFLINE_MODEL_NAME, Settings
from jobs import audit_pending
from jobs.audit_read import AUDIT_FILE as AUDIT_FILE
from jobs.audit_read import PENDING_FILE as PENDING_FILE
from jobs.audit_read import REQUIRED as REQUIRED
from jobs.audit_read import counted_until as counted_until
from jobs.audit_read import is_record as is_record
from jobs.audit_read import parse_records as _parse
from jobs.audit_read import read as read
from jobs.audit_read import read_checked as read_checked
from jobs.audit_read import research_key_of as research_key_of
from jobs.audit_read import turn_recorded as turn_recorded
from jobs.audit_rows import record_epoch

log = logging.getLogger(__name__)

#: Characters of the question kept in a record.
QUESTION_CHARS = 300
#: Characters of the error line kept in a record.
ERROR_CHARS = 300
#: Records of this host that PostgreSQL could not take yet (JSON lines), oldest first.
_file_lock = threading.Lock()


def turn_usage(settings: Settings, thread_id: str, since: float, until: float | None = None) -> dict:
    """The model calls of ``thread_id`` that started at or after ``since`` (Unix seconds), and
    before ``until`` when given: the usage records of :class:`engine.models.UsageRecorder`, from ``deepresearch_usage`` with
    ``DATABASE_URL`` (every host's calls), else from this host's ``usage.jsonl`` of each run.

    Returns ``{"model_calls": n, "tokens": total, "tokens_by_role": {role: {"input": n, "output": n}},
    "models": {model: {"calls": n, "tokens": n}}}`` (``models`` names the offline model,
    ``offline-extractive``, whose calls use no language model).
    """
    by_role: dict[str, dict[str, int]] = {}
    models: dict[str, dict[str, int]] = {}
    calls = 0
    for rec in _usage_records(settings, thread_id):
        started = float(rec.get("started") or 0)
        if started < since or (until is not None and started >= until):
            continue
        slot = by_role.setdefault(str(rec.get("role") or "unknown"), {"input": 0, "output": 0})
        slot["input"] += int(rec.get("input_tokens") or 0)
        slot["output"] += int(rec.get("output_tokens") or 0)
        model = models.setdefault(str(rec.get("model") or "unknown"), {"calls": 0, "tokens": 0})
        model["calls"] += 1
        model["tokens"] += int(rec.get("input_tokens") or 0) + int(rec.get("output_tokens") or 0)
        calls += 1
    total = sum(v["input"] + v["output"] for v in by_role.values())
    return {"model_calls": calls, "tokens": total, "tokens_by_role": by_role, "models": models}


def spent_tokens(usage: dict) -> int:
    """The tokens of :func:`turn_usage`'s ``usage`` that language models spent: its ``tokens`` without
    the offline model's (:data:`engine.settings.OFFLINE_MODEL_NAME`), whose counts are estimates of
    text it never sent to a model. What a daily token budget counts (:func:`jobs.quotas.add_tokens`)."""
    offline = (usage.get("models") or {}).get(OFFLINE_MODEL_NAME) or {}
    return max(0, int(usage.get("tokens") or 0) - int(offline.get("tokens") or 0))


def _usage_records(settings: Settings, thread_id: str) -> list[dict]:
    if settings.database_url is not None:
        from engine.pg_pool import pooled_connection

        with pooled_connection(settings) as conn:
            rows = conn.execute("SELECT record FROM deepresearch_usage WHERE thread_key = %s ORDER BY id",
                                (safe_name(thread_id),)).fetchall()
        return [row[0] for row in rows if isinstance(row[0], dict)]
    out: list[dict] = []
    for path in (settings.artifacts_dir / safe_name(thread_id)).glob("*/usage.jsonl"):
        try:
            out += _parse(path.read_text(encoding="utf-8"))
        except OSError:
            continue
    return out


def sources_count(directory: str | None) -> int:
    """How many sources the run in ``directory`` found (its ``sources.json``); 0 when unknown."""
    if not directory:
        return 0
    try:
        data = json.loads((Path(directory) / "sources.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0
    return len(data.get("found") or []) if isinstance(data, dict) else 0


def where(thread_id: str) -> dict:
    """``{"platform", "workspace", "channel"}`` of a thread key (``slack:{team}:{channel}:{ts}``,
    ``teams:{tenant}:{conversation}``, ``console:{id}``)."""
    parts = thread_id.split(":")
    platform = parts[0]
    if platform == "slack" and len(parts) >= 4:
        return {"platform": platform, "workspace": parts[1], "channel": parts[2]}
    if platform == "teams" and len(parts) >= 3:
        return {"platform": platform, "workspace": parts[1], "channel": ":".join(parts[2:]).split(";")[0]}
    return {"platform": platform, "workspace": "", "channel": ":".join(parts[1:])}


def build_record(*, thread_id: str, requester: str, question: str, status: str, started_at: float,
                 clarification: str = "", usage: dict | None = None, sources: int = 0,
                 files: Iterable[str] = (), error: str = "", ended_at: float | None = None,
                 research_started: float | None = None, calls_to: float | None = None,
                 turn_id: str | None = None) -> dict:
    """One audit record (a JSON-safe dict) from the facts of a research (or of one attempt at it)
    that ended now.

    ``started_at``/``ended_at``: Unix seconds of this attempt; ``research_started``: Unix seconds
    the research itself started (its first attempt; ``started_at`` when not given), kept to the
    microsecond as ``research_started``, which with ``thread`` names the research
    (:func:`jobs.audit_rows.researches`); ``usage``: :func:`turn_usage`'s dict, this attempt's calls only;
    ``files``: the delivered files (only their names are kept); ``calls_to``: Unix seconds before which
    every call of the research is counted by this record or an earlier one (:func:`counted_until`),
    None when it counted none that it could vouch for (a refusal, or usage that could not be read);
    ``turn_id``: the chat turn the attempt ran (kept as ``turn``, so a retry of that turn can tell its
    record is written: :func:`jobs.audit_read.turn_recorded`), none for an ``ask`` run.
    """
    ended = time.time() if ended_at is None else ended_at
    usage = usage or {"model_calls": 0, "tokens": 0, "tokens_by_role": {}}
    return {
        "at": datetime.fromtimestamp(ended, UTC).isoformat(timespec="seconds"),
        "started": datetime.fromtimestamp(started_at or ended, UTC).isoformat(timespec="seconds"),
        "research_started": research_key_of(research_started or started_at or ended),
        **where(thread_id),
        "thread": thread_id,
        "requester": requester,
        "question": redact(" ".join(question.split()))[:QUESTION_CHARS],
        "clarification": redact(" ".join((clarification or "").split()))[:QUESTION_CHARS] or None,
        "status": status,
        "duration_seconds": round(max(0.0, ended - (started_at or ended)), 1),
        "model_calls": int(usage.get("model_calls", 0)),
        "tokens": int(usage.get("tokens", 0)),
        "tokens_by_role": usage.get("tokens_by_role") or {},
        "models": usage.get("models") or {},
        "sources": int(sources),
        "files": [Path(f).name for f in files],
        "error": redact(" ".join((error or "").split()))[:ERROR_CHARS] or None,
        "calls_to": calls_to,
        **({"turn": turn_id} if turn_id else {}),
    }


def record_end(settings: Settings, thread_id: str, status: str, *, files: Iterable[str] = (),
               directory: str | None = None, error: str = "", thread: dict | None = None,
               attempt_started: float | None = None, paused_at: float | None = None,
               turn_id: str | None = None) -> bool:
    """Write the audit record of the attempt at ``thread_id``'s research that ended now with ``status``.

    The requester, question, clarifying question and the research's start (``started_at``) come
    from the thread's registry record (:mod:`jobs.threads`), or from ``thread`` when given (a
    record just replaced); the sources from ``directory``'s ``sources.json``. The model calls and
    tokens are those of the runs' usage files since the research's calls already recorded (the
    thread record's ``audited_to``, set by a ``paused`` record) or else since its start, so every
    call is in one record. ``attempt_started`` (Unix seconds): when this attempt began (its turn was
    queued; the time of the message for an ending that runs nothing, such as a cancel while paused),
    its ``started`` and duration, never before the calls it counts.

    ``paused_at`` (with status ``paused``): the attempt stopped at its clarifying question then;
    only calls that started before it count, and the thread record's ``audited_to`` becomes it, so
    the record of the attempt that answers, or of the research ended unanswered (cancelled or
    expired), counts only what follows. Usage that cannot be read (PostgreSQL away) is logged
    (``event=audit_usage_unknown``) and counted as none, so the record is still written (a
    ``paused`` one then leaves ``audited_to`` as it was: the next record counts those calls). Never
    raises (see :func:`write`); a pause that cannot be marked on the thread writes no record, and
    the research's next record counts its calls.

    ``turn_id``: the turn this attempt ran. What its thread's record lacks (Redis lost it, and a
    later write made a new one) comes from that turn's record, in Redis or in its durable journal
    (:func:`jobs.records.research_facts`), so the record names the research's question, requester,
    start and calls whatever Redis lost.

    Returns True when the record was kept (:func:`write`).
    """
    try:
        from jobs.store import get_store
        from jobs.threads import read_thread

        store = get_store(settings)
        thread = thread if thread is not None else read_thread(store, thread_id) or {}
        thread = _with_turn_facts(store, thread, turn_id)
        research = _research_start(thread) or time.time()
        since = max(research, float(thread.get("audited_to") or 0))
        read_at = time.time()
        try:
            usage = turn_usage(settings, thread_id, since, until=paused_at)
        except Exception as err:  # the record matters more than its token counts
            log.warning("event=audit_usage_unknown thread=%s error=%s", thread_id, type(err).__name__)
            usage = None
        record = build_record(
            thread_id=thread_id, requester=str(thread.get("requester") or ""), question=str(thread.get("question") or ""),
            status=status, started_at=max(since, float(attempt_started or 0)), research_started=research,
            clarification=str(thread.get("clarify_question") or ""), usage=usage,
            sources=sources_count(directory), files=files, error=error,
            calls_to=None if usage is None else (paused_at or read_at), turn_id=turn_id,
        )
        if paused_at is not None and usage is not None:  # calls not read now are counted by the next record
            _mark_audited(store, thread_id, research, paused_at)
    except Exception as err:  # bookkeeping must not fail a research
        log.error("event=audit_write_failed error=%s detail=%s", type(err).__name__, quoted(err))
        return False
    return write(settings, record)


def _with_turn_facts(store, thread: dict, turn_id: str | None) -> dict:
    """``thread`` (a thread's registry record) with what it lacks of the research's facts taken
    from turn ``turn_id``'s record (Redis's, else the journal's); ``thread`` itself without one."""
    from jobs import records

    if not turn_id or (thread.get("turn_id") == turn_id and thread.get("started_at") and thread.get("requester")):
        return thread
    rec = store.get(records.turn_key(turn_id))
    if rec is None and store.journal is not None:
        rec = store.journal.get(records.turn_key(turn_id))
    if not rec:
        return thread
    facts = rec.get("research")
    if not isinstance(facts, dict):  # a record written before the facts were kept
        from jobs.turns import Turn

        facts = records.research_facts(None, Turn.from_dict(rec["turn"]))
    return {**thread, **{k: v for k, v in facts.items() if v and not thread.get(k)}}


def _research_start(thread: dict) -> float:
    """Unix seconds the research of a thread's registry record started (0 when unknown)."""
    return float(thread.get("started_at") or thread.get("created_at") or 0)


def _mark_audited(store, thread_id: str, research: float, until: float) -> None:
    """Note on ``thread_id``'s registry record that the calls of its research (the one started at
    ``research``) before ``until`` are recorded; a later research of the thread is left alone."""
    from jobs.threads import update_thread

    def change(old: dict | None) -> dict | None:
        if not old or _research_start(old) != research:
            return None
        return {**old, "audited_to": max(float(old.get("audited_to") or 0), until)}

    update_thread(store, thread_id, change)


def write(settings: Settings, record: dict) -> bool:
    """Append ``record`` to the trail (JSON lines, or ``deepresearch_audit`` with ``DATABASE_URL``).

    With ``DATABASE_URL``, the records waiting in :data:`PENDING_FILE` go in first, in the same
    transaction; when PostgreSQL cannot be reached right now (:func:`engine.database.is_unavailable`)
    ``record`` joins them instead (``event=audit_record_deferred``). The records of the pending copy
    outside the data dir (:mod:`jobs.audit_pending`) go in before ``record``; a trail that cannot be
    written (a full disk) keeps ``record`` there, to be written by the next flush.

    Returns True when ``record`` is kept (in the trail, or waiting); False when it could not be
    kept anywhere. Never raises: a trail that cannot be written is one ``event=audit_write_failed``
    log line (with ``kept=`` the pending copy, or ``none``), and the research's delivery goes on.
    """
    try:
        flush_pending(settings)
        _store(settings, record)
    except Exception as err:  # bookkeeping must not fail a research
        kept = audit_pending.keep(settings, record)
        log.error("event=audit_write_failed error=%s detail=%s kept=%s", type(err).__name__,
                  quoted(err), kept or "none", extra=handled() if kept else None)
        return kept is not None
    return True


def flush_pending(settings: Settings) -> int:
    """Put the records waiting in this data dir's pending copy (:mod:`jobs.audit_pending`) in the
    trail (``audit.jsonl``, or :data:`PENDING_FILE` on the way to PostgreSQL); returns how many.

    Raises:
        OSError: the trail cannot be written yet (the records keep waiting).
    """
    name = PENDING_FILE if settings.database_url is not None else AUDIT_FILE
    with _file_lock:
        return audit_pending.flush(settings, Path(settings.data_dir) / name, _parse)


def flush_pending_logged(settings: Settings) -> int:
    """:func:`flush_pending`, its failure logged (``event=audit_pending_kept``: the records keep
    waiting for the next flush) instead of raised; returns how many records went in."""
    try:
        return flush_pending(settings)
    except Exception as err:  # they wait for the next flush
        log.warning("event=audit_pending_kept error=%s path=%s", type(err).__name__, quoted(audit_pending.spare_path(settings), 1000))
        return 0


def _store(settings: Settings, record: dict) -> None:
    """:func:`write`'s trail step for ``record`` (its errors raised, PostgreSQL away deferred)."""
    from engine.database import is_unavailable

    if settings.database_url is None:
        _write_file(settings, record)
    else:
        try:
            _write_postgres(settings, record)
        except Exception as err:
            if not is_unavailable(err):
                raise
            _append(Path(settings.data_dir) / PENDING_FILE, record)
            log.warning("event=audit_record_deferred thread=%s status=%s error=%s", record.get("thread"),
                        record.get("status"), type(err).__name__)
            return
    log.info("event=audit_record thread=%s status=%s", record.get("thread"), record.get("status"))


def _write_file(settings: Settings, record: dict) -> None:
    """Append ``record`` to this host's trail, ``{DATA_DIR}/audit.jsonl`` (see :func:`_append`)."""
    _append(Path(settings.data_dir) / AUDIT_FILE, record)


def _append(path: Path, record: dict) -> None:
    """Append ``record`` as one JSON line to ``path``, synced (``fsync``) before it returns."""
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(record, ensure_ascii=False) + "\n"
    # the lock orders appends of every process of the host with prune's rewrite and the pending flush
    with _file_lock, path.open("a", encoding="utf-8") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())


def _write_postgres(settings: Settings, record: dict) -> None:
    """Insert the records waiting in :data:`PENDING_FILE`, then ``record``, in one transaction; the
    file is emptied once it commits (under its ``flock``, so an append waits for that).

    Raises:
        engine.database.DatabaseError: PostgreSQL cannot be used (``DatabaseUnavailable``: right now).
        psycopg.Error: the insert failed.
    """
    from psycopg.types.json import Jsonb

    from engine.pg_pool import pooled_connection

    pending = Path(settings.data_dir) / PENDING_FILE
    with pooled_connection(settings) as conn, _file_lock, contextlib.ExitStack() as held:
        fh = held.enter_context(pending.open("r+", encoding="utf-8")) if pending.exists() else None
        waiting: list[dict] = []
        if fh is not None:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            waiting = [r for r in _parse(fh.read()) if is_record(r)]
        with conn.transaction(), conn.cursor() as cur:
            cur.executemany("INSERT INTO deepresearch_audit (at, requester, record) VALUES (%s, %s, %s)",
                            [(datetime.fromisoformat(r["at"]), r.get("requester") or "", Jsonb(r))
                             for r in (*waiting, record)])
        if fh is not None:  # what the file held is in PostgreSQL now
            fh.truncate(0)
            fh.flush()
            os.fsync(fh.fileno())
            if waiting:
                log.info("event=audit_pending_written records=%d", len(waiting))


def prune(settings: Settings, *, older_than_days: float, dry_run: bool = False) -> int:
    """Drop records older than ``older_than_days``; returns how many (would) go.

    Raises:
        engine.database.DatabaseError: ``DATABASE_URL`` is set and unusable. OSError: the file.
    """
    cutoff = time.time() - older_than_days * 86400
    if settings.database_url is not None:
        from engine.pg_pool import pooled_connection

        with pooled_connection(settings) as conn:
            if dry_run:
                return int(conn.execute("SELECT count(*) FROM deepresearch_audit WHERE at < %s",
                                        (datetime.fromtimestamp(cutoff, UTC),)).fetchone()[0])
            return conn.execute("DELETE FROM deepresearch_audit WHERE at < %s",
                                (datetime.fromtimestamp(cutoff, UTC),)).rowcount
    path = Path(settings.data_dir) / AUDIT_FILE
    if not path.exists():
        return 0
    with _file_lock, path.open("r+", encoding="utf-8") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)  # appends wait while the file is rewritten in place
        records = _parse(fh.read())
        kept = [r for r in records if record_epoch(r) >= cutoff]
        if not dry_run and len(kept) < len(records):
            fh.seek(0)
            fh.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept))
            fh.truncate()
            fh.flush()
            os.fsync(fh.fileno())
    return len(records) - len(kept)
