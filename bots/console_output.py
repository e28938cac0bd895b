"""What ``deepresearch ask`` prints: messages on stderr, the report's paths on stdout, their copy
into ``--out``, and the exit codes."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from bots.terminal_signals import EXIT_INTERRUPTED, interrupt_said
from bots.terminal_streams import put, silence
from engine.fsutil import copy_atomic, write_problem
from engine.text import clean_path, clean_text, terminal_line

if TYPE_CHECKING:
    from engine.runner import TurnOutcome


class _Console(Console):
    """rich's Console, except that an output that cannot take what is printed silences it instead of
    failing the run (:mod:`bots.terminal_streams`): a reader gone away (a broken pipe: ``ask … 2>&1 |
    head -2``, or a script that reads the thread id and closes the pipe; rich's default raises
    ``SystemExit(1)``), a full device (``2>/dev/full``: rich raises the ``OSError``) or a terminal
    gone (EIO). The research goes on and writes its files."""

    def on_broken_pipe(self) -> None:
        """Go quiet and send this stream to /dev/null (see https://docs.python.org/3/library/signal.html#note-on-sigpipe)."""
        self.quiet = True
        silence(self.file)

    def _check_buffer(self) -> None:
        # rich answers only BrokenPipeError (with on_broken_pipe); its writes raise every other
        # OSError of the stream (ENOSPC, EIO) from here, and print() then fails the run
        try:
            super()._check_buffer()
        except OSError:
            self.on_broken_pipe()
        except KeyboardInterrupt:
            # rich empties its buffer once written: a Ctrl-C that lands as it writes (after the line
            # showed, mostly) left it there, and the next line ("interrupted …") wrote it again
            del self._buffer[:]
            raise


#: Markup off: questions, answers, titles and errors are untrusted text, never rich markup.
err = _Console(stderr=True, highlight=False, soft_wrap=True, markup=False, emoji=False)
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_WAITING = 3
#: Another process runs this thread (a second terminal, a worker, a bot).
EXIT_BUSY = 4
#: The data folder or ``--out`` cannot be written (full disk, read-only, permission).
EXIT_STORAGE = 5
#: Redis (``REDIS_URL``) did not answer within its retry window (``DEEPRESEARCH_REDIS_RETRY_WINDOW``):
#: a local ``ask`` could not take the thread's lock, ``ask --queue`` could not queue or read the research.
EXIT_REDIS = 7


def stdout_line(text: str = "") -> None:
    """Print one line on stdout at once (the report's paths, its title); a reader gone away (a broken
    pipe) or an output that cannot take it (a full device: /dev/full) sends it, and all later output
    on stdout, to /dev/null instead of failing the run (:func:`bots.terminal_streams.put`): the files
    are written whatever stdout is."""
    put(sys.stdout, f"{text}\n")


#: The lines :func:`say` showed that tell why a run stopped (``deepresearch: …``), without that
#: prefix, oldest first: the audit trail records the one a run ended with (:func:`said_errors`).
_ERRORS: list[str] = []
_ERROR_PREFIX = "deepresearch: "


def say(text: str, style: str | None = None, end: str = "\n") -> None:
    """Print one message on stderr: cleaned (:func:`engine.text.terminal_line`: bytes that are not UTF-8
    shown as ``\\xNN``, no control character, terminal escape or bidirectional override), never parsed as markup.
    A ``deepresearch: …`` line (why a run stopped or was refused) is also kept for :func:`said_errors`."""
    line = terminal_line(text)
    if line.lstrip("\n").startswith(_ERROR_PREFIX):
        _ERRORS.append(line.strip().removeprefix(_ERROR_PREFIX))
    err.print(line, style=style, end=end, soft_wrap=True)


def say_interrupted_run(text: str) -> int:
    """:func:`say` the one line that says how a Ctrl-C (or SIGTERM) ended a run (``text``: what is
    saved and how to go on), after which a further interrupt changes nothing
    (:func:`bots.terminal_signals.interrupt_said`); returns the exit code 130."""
    say(text)
    interrupt_said()
    return EXIT_INTERRUPTED


def said_errors(since: int = 0) -> list[str]:
    """The ``deepresearch: …`` lines :func:`say` showed (prefix removed), from the ``since``-th on
    (``len(said_errors())`` marks a point to count from)."""
    return _ERRORS[since:]


#: The most skipped files an indexing run names one by one; the rest are counted.
MAX_SKIPS_SHOWN = 10


def index_skips(skipped_files: list[tuple[str, str]], root: Path) -> list[str]:
    """One line per file an indexing run skipped (``skipped_files``: ``(path, reason)`` of
    :class:`engine.search.corpus_index.IndexStats`), named from ``root`` down, e.g.
    ``"skipped notes/broken.pdf: corrupt PDF (PdfStreamError)"``; past :data:`MAX_SKIPS_SHOWN`,
    one more line counts the rest. ``root`` is the folder as given (relative, ``~``, a link): the
    paths are under it made absolute, as :func:`engine.search.corpus_files.indexable_files` reads it."""
    lines = []
    top = Path(clean_path(os.path.abspath(Path(root).expanduser())))  # the skipped paths are clean_path's text
    for path, reason in skipped_files[:MAX_SKIPS_SHOWN]:
        name = Path(path)
        if name.is_relative_to(top):
            name = name.relative_to(top)
        lines.append(f"skipped {clean_path(name)}: {clean_text(reason)}")
    if len(skipped_files) > MAX_SKIPS_SHOWN:
        lines.append(f"… and {len(skipped_files) - MAX_SKIPS_SHOWN} more skipped")
    return lines


def show_follow_ups(questions: list[str]) -> None:
    """The review's suggested follow-up questions (up to three, what the chat offers as buttons),
    on stderr after the report's paths, so the paths stay the only lines a script reads on stdout."""
    questions = [q for q in questions if q.strip()][:3]
    if questions:
        say("\nSuggested follow-up questions:")
        for q in questions:
            say(f"  - {q}")



def print_result(outcome: TurnOutcome, out: Path | None, again: str = "") -> int:
    """Print the title and file paths, copy them to ``out`` (``again``: see :func:`copy_out`); returns the exit code."""
    arts = outcome.artifacts
    if arts is None:
        return 0
    stdout_line(f"\n{clean_text(outcome.title or 'Report')}\n")
    if outcome.errors:
        count = len(outcome.errors)
        say(f"{count} research topic{' failed' if count == 1 else 's failed'}; the report says which.", style="yellow")
    for note in outcome.notes:  # e.g. the report cut at the model's output limit, with the setting
        say(note, style="yellow")
    files = [f for f in (arts.report_md, arts.pdf, arts.docx, arts.report_tex, arts.review_md, arts.sources_json,
                         arts.usage_json) if f is not None]
    for f in files:
        stdout_line(f"  {clean_path(f)}")
    show_follow_ups(outcome.follow_ups)
    if arts.pdf is None:
        say(f"The PDF could not be built: {arts.pdf_error}. The Markdown report is complete.", style="yellow")
    return copy_out(files, out, again)


def copy_out(files: list[Path], out: Path | None, again: str = "") -> int:
    """Copy the report ``files`` (their paths already printed) into ``out`` (created when missing;
    None: nothing to do); returns 0, or 5 with one line when ``out`` cannot be written, which names
    ``again``, the command that copies them once it can be (``deepresearch ask --resume THREAD``).

    A folder that already holds an earlier report (``report.md``...) keeps it: this one's files
    get the first free numbered names (``report-2.md``, ``report-2.pdf``...), said on the line.
    The report is copied whole or not at all: when a file cannot be copied (a full disk), or a
    Ctrl-C stops the copy (raised again), those copied before it are removed (free names: they
    replace nothing), so ``--resume``, which copies into the ``--out`` the thread keeps, makes it whole."""
    if out is None:
        return 0
    copied: list[Path] = []
    try:
        out.mkdir(parents=True, exist_ok=True)
        targets = _free_names(files, out)
        for f, target in zip(files, targets, strict=True):
            copy_atomic(f, target)
            copied.append(target)
    except BaseException as exc:  # noqa: BLE001 - all but OSError are raised again once the copies are gone
        for target in copied:
            with contextlib.suppress(OSError):
                target.unlink(missing_ok=True)
        if not isinstance(exc, OSError):
            raise
        say(f"deepresearch: the report is written (paths above) but could not be copied to {clean_path(out)}: "
            f"{write_problem(exc, out) or exc.strerror or type(exc).__name__}; nothing of it was copied."
            + (f" Copy it once the folder can be written with: {again}" if again else ""))
        return EXIT_STORAGE
    renamed = [t.name for f, t in zip(files, targets, strict=True) if t.name != f.name]
    stdout_line(f"  copied to {clean_path(out)}" + (f" as {', '.join(renamed)} (an earlier report is there)" if renamed else ""))
    return 0


def _free_names(files: list[Path], out: Path) -> list[Path]:
    """The paths in ``out`` for ``files``: their own names, else ``{stem}-{n}{suffix}`` with the
    first ``n`` (2, 3...) none of whose names is taken, so one report's files keep one number."""
    n = 1
    while True:
        names = [out / (f.name if n == 1 else f"{f.stem}-{n}{f.suffix}") for f in files]
        if not any(p.exists() for p in names):
            return names
        n += 1
