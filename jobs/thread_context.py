"""What a research of a thread is given beside its turn's question or answer: the files shared in the
thread, read into the thread's index for the research's search, with the thread's discussion for a new
question (:func:`shared_material`), and the thread's last report as a follow-up question's context
(:func:`earlier_report`). :mod:`jobs.run` passes both to :func:`engine.runner.run_turn`."""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

from engine.artifact_store import artifact_store
from engine.files import ingest
from engine.settings import Settings
from jobs.port import ChatPort
from jobs.threads import thread_info
from jobs.turns import Turn

#: The job's lines keep its logger (``logger=jobs.run``) wherever in jobs/ they are written.
log = logging.getLogger("jobs.run")

#: Characters of an earlier report given to a follow-up research as context.
CONTEXT_CHARS = 30_000


def shared_material(port: ChatPort, t: Turn, settings: Settings) -> dict:
    """Read the files shared in turn ``t``'s thread into its index (:func:`engine.files.ingest`), when
    ``port`` can list them; returns ``{"discussion": ...}`` for a start turn with one, else ``{}``. A port
    that fails to list them is logged (``event=thread_material_failed``): the research runs without them.

    Raises:
        What :func:`engine.files.ingest` raises for files the port did list.
    """
    gather = getattr(port, "thread_material", None)
    if gather is None:
        return {}
    with tempfile.TemporaryDirectory(prefix="deepresearch-files-") as folder:
        try:
            material = gather(t.turn_id, Path(folder), settings)
        except Exception as err:  # the files are a bonus: the research runs without them
            log.warning("event=thread_material_failed turn=%s error=%s", t.turn_id, type(err).__name__)
            return {}
        if material.files:
            ingest(settings, t.thread_id, material.files)
    return {"discussion": material.discussion} if t.kind == "start" and material.discussion else {}


def earlier_report(thread_id: str, settings: Settings) -> str | None:
    """The first :data:`CONTEXT_CHARS` characters of thread ``thread_id``'s last report (``report.md``,
    read through the artifact store: the run may have been rendered on another host), or None when the
    thread has none or it cannot be read (an ``OSError``).

    Raises:
        The store errors of :func:`jobs.threads.thread_info` and the artifact store's errors other than an
        ``OSError`` (PostgreSQL's); ``UnicodeDecodeError`` for a report that is not UTF-8.
    """
    info = thread_info(thread_id, settings=settings)
    if info is None or info.report_dir is None:
        return None
    try:  # the run may have been rendered on another host: read it through the artifact store
        path = artifact_store(settings).local(info.report_dir / "report.md")
        return path.read_bytes().decode()[:CONTEXT_CHARS] if path else None
    except OSError:
        return None
