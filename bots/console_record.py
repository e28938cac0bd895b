"""A terminal thread's record (its question and options), written whole before the thread id is shown."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from engine.fsutil import write_atomic
from engine.text import clean_path, clean_text

log = logging.getLogger(__name__)


@dataclass
class ThreadRecord:
    """What ``deepresearch ask`` was started with, so ``--resume THREAD`` runs it the same way.

    Attributes:
        question: the (cleaned) question; lets ``--resume`` start a research whose process was
            killed before the graph's first checkpoint. "" in records written before it was kept.
        offline: ``--offline`` was given.
        corpus: the ``--corpus`` folder as spelt (absolute, symlinks kept), or None.
        no_clarify: ``--no-clarify`` was given.
        created_at: Unix time (seconds) the thread was started.
        clarification: the clarifying question asked, once one was (for the audit record).
    """

    question: str = ""
    offline: bool = False
    corpus: str | None = None
    no_clarify: bool = False
    created_at: float = field(default_factory=time.time)
    clarification: str = ""


def record_path(data_dir: Path, thread: str) -> Path:
    """``{DATA_DIR}/console/{safe thread id}.json``."""
    from engine.artifacts import safe_name

    return Path(data_dir) / "console" / f"{safe_name(thread)}.json"


def save_record(data_dir: Path, thread: str, record: ThreadRecord) -> None:
    """Write ``thread``'s record atomically (a reader sees the old record or the new one, never a part).

    Raises:
        OSError: the data folder cannot be written (full, read-only, permission).
    """
    # ASCII JSON: a corpus path with undecodable bytes keeps them as \udcXX escapes, and comes back the same
    write_atomic(record_path(data_dir, thread), json.dumps(asdict(record)))


def load_record(data_dir: Path, thread: str) -> ThreadRecord | None:
    """``thread``'s record, or None when there is none or it cannot be read.

    An unreadable record (an empty or cut-off file left by an older version on a full disk, bad
    JSON) counts as none, with a warning in the log: the checkpoint, not this file, holds the
    research, so ``--resume`` still works with the options given on the command line.
    """
    path = record_path(data_dir, thread)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        log.warning("event=console_record_unreadable path=%s error=%s", clean_path(path), err.strerror)
        return None
    try:
        data = json.loads(raw.decode("utf-8", "replace"))
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        return ThreadRecord(
            question=clean_text(data.get("question") or ""),
            offline=bool(data.get("offline")),
            corpus=str(data["corpus"]) if data.get("corpus") else None,
            no_clarify=bool(data.get("no_clarify")),
            created_at=float(data.get("created_at") or 0.0),
            clarification=clean_text(data.get("clarification") or ""),
        )
    except (ValueError, TypeError) as err:
        log.warning("event=console_record_unreadable path=%s error=%s", clean_path(path), type(err).__name__)
        return None
