"""Write a report's typeset files (report.tex, report.pdf, report.docx) atomically; failures are recorded."""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
from concurrent.futures import Future
from pathlib import Path

from engine.redact import quoted
from engine.render import ReportDocument

log = logging.getLogger(__name__)


def write_atomic(path: Path, data: str | bytes) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` through a temporary file and a rename.

    A reader (a chat upload, a download link) sees the old file or the whole new one, never a
    half-written file. Raises OSError when the folder cannot be written.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def _keep_warnings(usage: Path, warnings: list[str]) -> None:
    """Record the PDF's warnings as ``pdf_warnings`` in the run's usage.json (when the folder has one).

    The list replaces any earlier build's; an unreadable or non-object usage.json is left as it is.
    """
    try:
        data = json.loads(usage.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if not isinstance(data, dict) or (not warnings and "pdf_warnings" not in data):
        return
    if warnings:
        data["pdf_warnings"] = warnings
    else:
        data.pop("pdf_warnings")
    write_atomic(usage, json.dumps(data, indent=2, ensure_ascii=False))


#: Seconds between two checks for a noted signal while the main thread waits for the Word build.
WAIT_STEP = 0.1

#: The file beside the outputs that records why one was not built, by output; a later build of that
#: output removes it, so the folder never says "could not be built" beside a good file (a run
#: cancelled while typesetting and resumed, ``deepresearch render`` run again).
ERROR_LOGS = {"pdf": "pdf-error.log", "docx": "docx-error.log"}


def _record_failures(directory: Path, paths: dict, cancel: threading.Event | None) -> None:
    """Write each output's error log when it failed (its ``{kind}_error``, the PDF's log tail after
    it), and remove a stale one when it was built. A build stopped (``cancel`` set: Ctrl-C, a
    shutdown; or this process exiting, :data:`PDF_CANCELLED`, :data:`DOCX_CANCELLED`) did not fail:
    it writes no log, which would read as a failure, and leaves an earlier build's as it was."""
    stopped = cancel is not None and cancel.is_set()
    for kind, name in ERROR_LOGS.items():
        if kind in paths:
            (directory / name).unlink(missing_ok=True)
        elif stopped or paths.get(f"{kind}_error") in (PDF_CANCELLED, DOCX_CANCELLED):
            continue
        elif f"{kind}_error" in paths:
            tail = paths.get(f"{kind}_log_tail")
            write_atomic(directory / name, paths[f"{kind}_error"] + (f"\n\n{tail}" if tail is not None else "\n"))


def render_outputs(doc: ReportDocument, directory: Path, *, timeout: float = 120.0,
                   cancel: threading.Event | None = None) -> dict:
    """Write ``report.tex``, ``report.pdf`` and ``report.docx`` of ``doc`` into ``directory``.

    The PDF and the Word document are independent: they are built at the same time (latexmk and
    pandoc are separate processes, so the wall time is the slower of the two, not their sum), and
    either may fail without stopping the other.

    Returns:
        ``{"report_tex", "pdf", "docx"}`` paths (strings) for the files written, plus
        ``pdf_error`` and ``pdf_log_tail`` (also written to ``pdf-error.log``, unless the build
        was stopped: :func:`_record_failures`) when the PDF was not built, ``pdf_warnings`` (first the
        characters no installed font has, which the PDF shows as placeholders, then overfull boxes wider than
        :data:`engine.render.pdf.OVERFULL_LIMIT_PT` and missing glyphs) when it was built with
        them (also kept as ``pdf_warnings`` in the folder's ``usage.json``, logged at info level), and
        ``docx_error`` (one line, also written to ``docx-error.log``) when the Word document was
        not (:data:`DOCX_CANCELLED` when ``cancel`` stopped it: logged at info level, as the PDF's
        cancel is, never as a failure). An output built removes its error log left by an earlier build (:data:`ERROR_LOGS`).

    Raises:
        OSError: ``directory`` cannot be written.
    """
    from concurrent.futures import ThreadPoolExecutor

    from engine.render.latex import render_latex
    from engine.render.pandoc import PandocCancelled

    directory.mkdir(parents=True, exist_ok=True)
    paths: dict = {}
    try:
        tex = render_latex(doc, cancel)
    except PandocCancelled:  # neither output is built: the Word document needs no pandoc run then either
        log.info("event=pdf_failed error=%s", quoted(PDF_CANCELLED))
        log.info("event=docx_failed error=%s", quoted(DOCX_CANCELLED))
        paths = {"pdf_error": PDF_CANCELLED, "pdf_log_tail": "", "docx_error": DOCX_CANCELLED}
        _record_failures(directory, paths, cancel)
        return paths
    write_atomic(directory / "report.tex", tex)
    paths["report_tex"] = str(directory / "report.tex")
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="docx") as pool:
        docx = pool.submit(_docx, doc, directory / "report.docx", cancel)
        paths.update(_pdf(tex, directory, timeout, cancel, getattr(tex, "placeholders", ())))
        paths.update(_result(docx))
    _record_failures(directory, paths, cancel)
    return paths


def _result(future: Future) -> dict:
    """``future.result()``, waited for in steps of :data:`WAIT_STEP` seconds: a signal the kernel hands
    to another thread of this process (any thread that does not block it may take it, signal(7)) only
    sets CPython's flag, and a wait without a timeout in the main thread would run its handler when the
    Word build ends; each step's end runs it (a work horse's hand-back, a terminal's Ctrl-C)."""
    while True:
        try:
            return future.result(timeout=WAIT_STEP)
        except TimeoutError:
            continue


def _pdf(tex: str, directory: Path, timeout: float, cancel: threading.Event | None,
         placeholders: tuple[str, ...] = ()) -> dict:
    """Build ``report.pdf`` from ``tex`` (see :func:`render_outputs` for the keys returned);
    ``placeholders``: what ``tex`` shows as placeholders (:class:`engine.render.latex.LatexSource`),
    named in the first warning (:func:`engine.render.fonts.placeholder_warning`)."""
    from engine.render.fonts import placeholder_warning
    from engine.render.pdf import build_pdf, overfull_boxes

    paths: dict = {}
    build = build_pdf(tex, directory, timeout=timeout, cancel=cancel)
    if build.pdf is not None:
        paths["pdf"] = str(build.pdf)
        shown = placeholder_warning(placeholders)  # text the reader sees only as a placeholder: first
        problems = ([shown] if shown else []) + overfull_boxes(build.warnings) + [
            w for w in build.warnings if w.startswith("Missing character")]
        if problems:
            log.info("event=pdf_warnings count=%d first=%s", len(problems), quoted(problems[0]))
            paths["pdf_warnings"] = problems
        _keep_warnings(directory / "usage.json", problems)
        return paths
    cancelled = cancel is not None and cancel.is_set()  # the turn was cancelled: not a failure
    log.log(logging.INFO if cancelled else logging.WARNING, "event=pdf_failed error=%s", quoted(build.error or "-", 300))
    paths["pdf_error"] = build.error or "the PDF could not be built"
    paths["pdf_log_tail"] = build.log_tail or ""
    return paths


#: ``pdf_error`` of a PDF whose LaTeX was not made because the turn was cancelled (as :mod:`engine.render.pdf` words it).
PDF_CANCELLED = "LaTeX build cancelled"
#: ``docx_error`` of a Word build stopped because the turn was cancelled or its process is stopping.
DOCX_CANCELLED = "Word build cancelled"


def _docx(doc: ReportDocument, path: Path, cancel: threading.Event | None) -> dict:
    """Write the Word document: ``{"docx": path}``, or ``{"docx_error": one line}`` when pandoc failed
    or was stopped by ``cancel`` (:data:`DOCX_CANCELLED`, logged at info level like the PDF's cancel)."""
    from engine.render.docx import render_docx
    from engine.render.pandoc import PandocCancelled

    try:
        return {"docx": str(render_docx(doc, path, cancel=cancel))}
    except PandocCancelled:
        log.info("event=docx_failed error=%s", quoted(DOCX_CANCELLED))
        return {"docx_error": DOCX_CANCELLED}
    except (RuntimeError, OSError, ValueError) as err:  # pandoc's failures
        message = " ".join(str(err).split())[:300] or type(err).__name__
        cancelled = cancel is not None and cancel.is_set()  # the turn was cancelled: not a failure
        log.log(logging.INFO if cancelled else logging.WARNING, "event=docx_failed error=%s", quoted(message, 300))
        return {"docx_error": message}
