"""A terminal thread's record (its question and options), written whole before the thread id is shown."""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from engine.fsutil import write_atomic
from engine.redact import quoted
from engine.text import clean_path, clean_text

log = logging.getLogger(__name__)


@dataclass
class ThreadRecord:
    """What ``deepresearch ask`` was started with, so ``--resume THREAD`` (the command every stopped
    run names) runs it the same way and delivers its report where the first run would have.

    Kept: the question, ``--offline``, ``--corpus``, ``--no-clarify`` (they shape the research itself,
    which must not change model or sources half-way) and ``--out`` (where the report goes). A
    ``--corpus`` or ``--out`` given again on the resume wins, and is kept instead; ``--offline`` and
    ``--no-clarify``, flags with no opposite, are on when kept or given. Not kept: ``--file`` (its files
    are read into the thread's own index at the start and are its sources on every resume: the paths
    are not read again), ``--answer`` (it answers one clarifying question), ``--queue`` (the command a
    queued run names says ``--queue``, and ``--resume`` without it of a thread the workers hold says
    so) and ``-v`` (this process's log on this terminal; kept, it could not be turned off again).

    Attributes:
        question: the (cleaned) question; lets ``--resume`` start a research whose process was
            killed before the graph's first checkpoint. "" in records written before it was kept,
            and in those of ``ask --queue`` (the workers hold its question; ``--resume`` without
            ``--queue`` must not start it here).
        offline: ``--offline`` was given.
        corpus: the ``--corpus`` folder as spelt (absolute, symlinks kept), or None.
        no_clarify: ``--no-clarify`` was given.
        created_at: Unix time (seconds) the thread was started.
        clarification: the clarifying question asked, once one was (for the audit record).
        out: the ``--out`` folder as spelt, made absolute against the folder ``ask`` ran in
            (symlinks kept), or None: the resume may run from anywhere.
        copied: the report was copied into ``out``; a later ``--resume`` of the finished research
            copies it again only into an ``--out`` given then.
    """

    question: str = ""
    offline: bool = False
    corpus: str | None = None
    no_clarify: bool = False
    created_at: float = field(default_factory=time.time)
    clarification: str = ""
    out: str | None = None
    copied: bool = False


def kept_out(record: ThreadRecord | None) -> Path | None:
    """The folder a ``--resume`` given no ``--out`` copies ``record``'s report into: its ``out``,
    unless the report was already copied there (or None: no record, no ``--out`` kept)."""
    if record is None or not record.out or record.copied:
        return None
    return Path(record.out)


def absolute(folder: Path) -> Path:
    """``folder`` (``--out``, ``--corpus``) as spelt, ``~`` expanded and made absolute against the
    current folder, symlinks kept (not resolved): the path ``--resume`` uses from any folder."""
    return Path(os.path.abspath(folder.expanduser()))


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
        log.warning("event=console_record_unreadable path=%s error=%s", quoted(clean_path(path), 1000), quoted(err.strerror))
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
            out=str(data["out"]) if data.get("out") else None,
            copied=bool(data.get("copied")),
        )
    except (ValueError, TypeError) as err:
        log.warning("event=console_record_unreadable path=%s error=%s", quoted(clean_path(path), 1000), type(err).__name__)
        return None


def keep_out(data_dir: Path, thread: str, out: Path, *, new: bool = False) -> None:
    """Make ``out`` (absolute) the folder ``thread``'s record keeps for its report (an ``--out`` given
    on this command line wins over the kept one), not yet copied into; ``new``: a record of this
    folder alone is written for a thread that has none yet (``ask --queue``).

    Raises:
        OSError: the data folder cannot be written (full, read-only, permission).
    """
    record = None if new else load_record(data_dir, thread)
    if record is not None and record.out == str(out):
        return
    record = record or ThreadRecord()
    record.out, record.copied = str(out), False
    save_record(data_dir, thread, record)


def mark_copied(data_dir: Path, thread: str, out: Path) -> None:
    """Note in ``thread``'s record that its report was copied into ``out`` when ``out`` is the folder
    kept there (:func:`kept_out`), so a later ``--resume`` does not copy it again. Never raises: the
    copy is made; a record that cannot be written (a full disk) is a log line, and at worst a later
    ``--resume`` copies the report again under free names (``report-2.md``...), replacing nothing."""
    record = load_record(data_dir, thread)
    if record is None or record.copied or record.out != str(out):
        return
    record.copied = True
    try:
        save_record(data_dir, thread, record)
    except OSError as err:
        log.warning("event=console_record_unwritable thread=%s error=%s", clean_text(thread),
                    quoted(err.strerror or type(err).__name__))
