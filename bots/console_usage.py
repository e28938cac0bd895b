"""What is wrong with an ``ask`` command line, found before any research code is loaded, so bad
input is refused at once (exit 2, one line)."""

from __future__ import annotations

from pathlib import Path

from bots.console_files import files_problem
from engine.fsutil import folder_write_problem
from engine.runner import TurnRejected, validate_question
from engine.text import clean_path


def ask_problem(question: str, *, resume: str | None, out: Path | None, queue: bool, offline: bool,
                corpus: Path | None, no_clarify: bool, files: list[Path], answer: str | None = None) -> str | None:
    """The one line saying why ``deepresearch ask`` cannot start with these options (``question``
    already cleaned), or None: an empty question or ``--resume`` id, a question
    :func:`engine.runner.validate_question` refuses, a missing ``--corpus`` folder, an ``--out``
    that is a file or cannot be written, options ``--queue`` cannot honour, unusable ``--file`` paths,
    an ``--answer`` to a new question that ``--no-clarify`` asks nothing about."""
    if answer is not None and no_clarify and not resume:
        return ("--answer answers the clarifying question and --no-clarify asks none: put the detail in the "
                "question, or leave out --no-clarify.")
    return (_empty_problem(question, resume)
            or _usage_problem(question, resume, out, queue, offline=offline, corpus=corpus, no_clarify=no_clarify)
            or files_problem(files, queue)
            or _out_problem(out))  # last: it creates the folder, which a refused command must not leave


def _empty_problem(question: str, resume: str | None) -> str | None:
    """The usage line for an empty ``--resume`` thread id or an empty question; None for neither."""
    if resume is not None and not resume.strip():
        return ("usage: deepresearch ask --resume THREAD_ID — the thread id is empty (it is printed as "
                "\"thread: console:…\" when a run starts).")
    if not resume and not question.strip():
        return "usage: deepresearch ask \"QUESTION\" — the question is empty."
    return None


def _usage_problem(question: str, resume: str | None, out: Path | None, queue: bool, *, offline: bool,
                   corpus: Path | None, no_clarify: bool) -> str | None:
    """What is wrong with the command line before any work starts, or None."""
    if not resume:
        try:
            validate_question(question)
        except TurnRejected as exc:  # a sentence for a chat: in the line after "deepresearch: " it goes on in lower case
            text = str(exc)
            return text[:1].lower() + text[1:]
    if corpus is not None and not queue and not corpus.expanduser().is_dir():
        if not corpus.expanduser().exists():
            return f"--corpus {clean_path(corpus)}: no such folder"
        return f"--corpus {clean_path(corpus)} is not a folder"
    if out is not None and out.exists() and not out.is_dir():
        return _out_is_a_file(out)
    if queue and (offline or corpus is not None or no_clarify):
        given = ", ".join(name for name, on in (("--offline", offline), ("--corpus", corpus is not None),
                                                ("--no-clarify", no_clarify)) if on)
        return (f"{given}: with --queue the research runs on the workers with their own settings. Set "
                "DEEPRESEARCH_LLM, DEEPRESEARCH_SEARCH and DEEPRESEARCH_CORPUS_DIR (after `deepresearch index DIR`) "
                "or DEEPRESEARCH_ALLOW_CLARIFICATION where the workers run, or drop --queue.")
    return None


def _out_is_a_file(out: Path) -> str:
    return f"--out {clean_path(out)} is a file; give a folder (it is created when missing)."


def _out_problem(out: Path | None) -> str | None:
    """Why ``--out`` cannot be written (it is created, and a probe file written in it), or None."""
    why = folder_write_problem(out) if out is not None else None
    return f"--out {clean_path(out)} cannot be written: {why}." if why else None


def kept_out_problem(out: Path) -> str | None:
    """Why the ``--out`` folder a thread was started with (:func:`bots.console_record.kept_out`)
    cannot take its report now, at ``--resume``, or None: the first run's own line (a file there, a
    file above it, a folder that cannot be made or written; a folder gone is made again, as then),
    which names how to give another. Checked before any work, as the first run checked it."""
    why = _out_is_a_file(out) if out.exists() and not out.is_dir() else _out_problem(out)
    return f"{why} This thread was started with it; give another with --out DIR." if why else None
