"""Audit records the trail could not take (a full or unwritable data dir): kept in a pending copy
outside the data dir, and put in the trail once it has room (:func:`flush`).

The copy is ``{XDG_STATE_HOME or ~/.local/state (engine.fsutil.xdg_base)}/deepresearch/audit-pending-{key}.jsonl``, one per
data dir (``key``: the first 16 hex digits of the SHA-256 of its resolved path), JSON lines, oldest
first. :func:`jobs.audit.write` flushes it before it writes a record (so the trail keeps the order
the records were made in), ``deepresearch`` flushes it as a command starts, and a worker as it starts.
A record goes into the trail once: a flush appends only the records the trail does not hold yet,
then empties the copy, so a flush stopped between the two leaves nothing to count twice.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
from pathlib import Path

from engine.fsutil import xdg_base
from engine.redact import quoted
from engine.settings import Settings

log = logging.getLogger(__name__)


def spare_path(settings: Settings) -> Path:
    """The pending copy of ``settings.data_dir``'s records (see the module's text)."""
    state = xdg_base("XDG_STATE_HOME", ".local/state")
    key = hashlib.sha256(str(Path(settings.data_dir).resolve()).encode()).hexdigest()[:16]
    return Path(state) / "deepresearch" / f"audit-pending-{key}.jsonl"


def keep(settings: Settings, record: dict) -> Path | None:
    """Add ``record`` to the pending copy (synced); returns its path, or None when it cannot be
    written either (the record is lost: the caller says so, :func:`jobs.audit.write`)."""
    path = spare_path(settings)
    try:
        _add_line(path, json.dumps(record, ensure_ascii=False) + "\n")
    except OSError:  # the caller's log line says the record was not kept
        return None
    return path


def _add_line(path: Path, line: str) -> None:
    """Append ``line`` to ``path`` (made with its folder when missing), synced before it returns."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())


def flush(settings: Settings, target: Path, parse) -> int:
    """Append the pending copy's records that ``target`` (a JSON-lines file of records: the trail,
    or PostgreSQL's pending file) lacks to it, synced, then empty the copy; returns how many were
    appended. ``parse(text)``: the records of a JSON-lines text (lines that are not JSON skipped).

    Raises:
        OSError: ``target`` cannot be written (the copy is left as it was).
    """
    path = spare_path(settings)
    if not path.is_file() or path.stat().st_size == 0:
        return 0
    with path.open("r+", encoding="utf-8") as spare:
        fcntl.flock(spare.fileno(), fcntl.LOCK_EX)
        waiting = parse(spare.read())
        if waiting:
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("a+", encoding="utf-8") as fh:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
                fh.seek(0)
                held = parse(fh.read())
                missing = [r for r in waiting if r not in held]
                fh.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in missing))
                fh.flush()
                os.fsync(fh.fileno())
        spare.truncate(0)
        spare.flush()
        os.fsync(spare.fileno())
    if waiting:
        log.info("event=audit_pending_written records=%d path=%s", len(missing), quoted(target, 1000))
        return len(missing)
    return 0
