"""The rows of ``deepresearch audit``: the records of one research combined (:func:`researches`),
and the window of ``--since`` (:func:`window_start`). See :mod:`jobs.audit` for the records."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Iterable
from datetime import datetime


def window_start(since_days: float | None, now: float | None = None) -> float | None:
    """Unix seconds ``since_days`` days before ``now`` (the current time when not given); None
    without ``since_days``.

    Raises:
        ValueError: ``since_days`` is not a finite number.
    """
    if since_days is None:
        return None
    if not math.isfinite(since_days):
        raise ValueError("since_days must be a finite number of days")
    return (time.time() if now is None else now) - since_days * 86400


def research_key(record: dict) -> tuple:
    """What names a record's research: ``(thread, research_started)``; a record without
    ``research_started`` is a research of its own (its identity)."""
    return (
        (record.get("thread"), record["research_started"])
        if record.get("research_started")
        else (id(record),)
    )


def researches(records: Iterable[dict], *, window: float | None = None) -> list[dict]:
    """One row per research from ``records`` (oldest first, as :func:`jobs.audit.read` returns them), in the
    order their last records were written.

    The records of one research (the same ``thread`` and ``research_started``: an ``ask``
    interrupted or failed, then finished by ``ask --resume``; a research paused at its clarifying
    question, then answered, cancelled or expired; an answer refused over a quota in the
    research it belonged to) become one row: the last record's fields (its final status, error,
    sources and files), the first record's ``started``, and the sums of their
    ``duration_seconds``, ``model_calls``, ``tokens``, ``tokens_by_role`` and ``models`` (each record counts
    only its own attempt's calls). Every row has ``attempts``, how many records it combines, and
    ``before_window``: True when ``window`` (Unix seconds, :func:`window_start`) is given and the
    research started before it. A record without ``research_started`` (written before it was kept)
    is a research of its own.
    """
    groups: dict[tuple, list[dict]] = {}
    ends: dict[tuple, int] = {}  # where each research's last record is
    for n, record in enumerate(records):
        key = research_key(record)
        groups.setdefault(key, []).append(record)
        ends[key] = n
    rows = [_combined(groups[key]) for key in sorted(groups, key=ends.__getitem__)]
    return [{**row, "before_window": window is not None and _started(row) < window} for row in rows]


def _started(row: dict) -> float:
    """Unix seconds a row's research started: ``research_started``, else ``started``."""
    for field in ("research_started", "started"):
        with contextlib.suppress(TypeError, ValueError):
            return datetime.fromisoformat(str(row.get(field))).timestamp()
    return record_epoch(row)


def _combined(group: list[dict]) -> dict:
    """The row of one research from its records, oldest first (see :func:`researches`). A research that
    was done is shown done, with its report's fields, though a runner stopped longer than its lease
    (:attr:`jobs.locks.ThreadLock.absent`) may write its own end after the one that finished it."""
    last = next((r for r in reversed(group) if r.get("status") == "done"), group[-1])
    if len(group) == 1:
        return {**last, "attempts": 1}
    return {
        **last,
        "started": group[0].get("started", last.get("started")),
        "clarification": next((r["clarification"] for r in reversed(group) if r.get("clarification")), None),
        "duration_seconds": round(sum(float(r.get("duration_seconds") or 0) for r in group), 1),
        "model_calls": sum(int(r.get("model_calls") or 0) for r in group),
        "tokens": sum(int(r.get("tokens") or 0) for r in group),
        "tokens_by_role": _summed(group, "tokens_by_role", ("input", "output")),
        "models": _summed(group, "models", ("calls", "tokens")),
        "attempts": len(group),
    }


def _summed(group: list[dict], field: str, counts: tuple[str, ...]) -> dict[str, dict[str, int]]:
    """``{name: {count: sum}}`` of the records' ``field`` (``tokens_by_role``: ``{role: {"input",
    "output"}}``, ``models``: ``{model: {"calls", "tokens"}}``), each count summed by name."""
    out: dict[str, dict[str, int]] = {}
    for record in group:
        for name, used in (record.get(field) or {}).items():
            slot = out.setdefault(name, dict.fromkeys(counts, 0))
            for count in counts:
                slot[count] += int((used or {}).get(count) or 0)
    return out


def record_epoch(record: dict) -> float:
    """Unix seconds of a record's ``at`` (0 when it cannot be read)."""
    try:
        return datetime.fromisoformat(str(record.get("at"))).timestamp()
    except ValueError:
        return 0.0
