"""Run one turn of a research thread: start, resume after a clarification, with progress."""

from __future__ import annotations

import asyncio
import functools
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from engine.phrasebook import BASE_LANGUAGE
from engine.phrases import WORDS, say
from engine.progress import Progress
from engine.settings import Settings
from engine.text import clean_text, has_words, without_bidi_controls


class RunCancelled(Exception):
    """The turn's cancel event was set; the graph stopped at its last checkpoint."""


class TurnRejected(Exception):
    """The turn cannot run (empty or over-long question, nothing to resume); its message is for users.

    ``TurnRejected(key, **fields)``: ``key`` is a ``rejected_*`` entry of :data:`engine.phrases.WORDS`
    and ``fields`` its template's (numbers as ``int``, written per language); ``str(err)`` is the
    English text (the terminal, logs, stored records) and :meth:`text` the text in a language. A
    ``key`` the catalogue lacks is a message said as given in every language.
    """

    def __init__(self, key: str, /, **fields: object) -> None:
        self.key = key
        self.fields = fields
        super().__init__(self.text())

    def __reduce__(self):  # pickled (a queue, a process pool) with its key and fields, not only its English
        return functools.partial(TurnRejected, self.key, **self.fields), ()

    def text(self, language: str = BASE_LANGUAGE) -> str:
        """The refusal in ``language`` (an ISO 639-1 code; English when the catalogue lacks it)."""
        if self.key not in WORDS.catalogue:
            return self.key
        return say(self.key, language, **self.fields)


MAX_QUESTION_CHARS = 8000


def validate_question(question: str | None) -> str:
    """Clean, strip and check a question; returns the text to research.

    The text goes through :func:`engine.text.clean_text` first (lone surrogates and invalid
    bytes replaced, control characters other than newline and tab dropped), so what is stored,
    prompted and printed is always valid UTF-8; bidirectional embeddings, overrides and isolates
    are dropped too (:func:`engine.text.without_bidi_controls`: an override left open would show the
    report's title reversed, "woH" for "How"). A question of invisible format characters alone (a
    zero-width space, Unicode category Cf) is empty.

    Raises:
        TurnRejected: the question is empty, has no letter or digit (:func:`engine.text.has_words`), or is over :data:`MAX_QUESTION_CHARS` characters (a
            project limit that keeps a question, plus the brief and prompts, far inside any
            model's context window).
    """
    text = without_bidi_controls(clean_text(question)).strip()
    if not text or all(ch.isspace() or unicodedata.category(ch) == "Cf" for ch in text):
        raise TurnRejected("rejected_question_empty")
    if not has_words(text):
        raise TurnRejected("rejected_question_no_words")
    if len(text) > MAX_QUESTION_CHARS:
        raise TurnRejected("rejected_question_too_long", length=len(text), limit=MAX_QUESTION_CHARS)
    return text


@dataclass
class Artifacts:
    """Paths of one run's files under ``{DATA_DIR}/artifacts/{thread}/{run}/``.

    ``pdf`` is None when the PDF could not be built; then ``pdf_error`` says why (one line)
    and ``pdf_log_tail`` holds the end of the LaTeX log. ``pdf_warnings`` lists overfull boxes
    and missing glyphs of a PDF that was built. ``docx`` is None when the Word document could
    not be written; then ``docx_error`` says why.
    """

    directory: Path
    report_md: Path
    sources_json: Path
    usage_json: Path
    review_md: Path | None = None
    report_tex: Path | None = None
    pdf: Path | None = None
    pdf_error: str | None = None
    pdf_log_tail: str | None = None
    docx: Path | None = None
    docx_error: str | None = None
    pdf_warnings: list[str] = field(default_factory=list)

    def files(self) -> list[Path]:
        """The files a chat surface delivers: the Markdown report, then the PDF and the Word
        document when they were built."""
        return [p for p in (self.report_md, self.pdf, self.docx) if p is not None]


@dataclass
class TurnOutcome:
    """What one turn ended with.

    status:
        ``clarify``: the graph paused on ``interrupt()``; ``question`` is to be asked in the thread.
        ``done``: the report is written; ``summary`` (Markdown, a few hundred words) and
        ``artifacts`` are set; ``follow_ups`` holds up to three suggested follow-up questions
        (plain text, in the question's language; may be empty); ``notes`` the lines the report
        carries about how it was written (e.g. cut at the model's output limit), also in ``summary``.
    """

    status: Literal["clarify", "done"]
    thread_id: str
    run_id: str
    question: str | None = None
    summary: str | None = None
    title: str | None = None
    artifacts: Artifacts | None = None
    errors: list[str] = field(default_factory=list)
    offline: bool = False
    follow_ups: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


ProgressCallback = Callable[[Progress], None]
#: Called once the final text exists and before the files are typeset, with ``{"title": str,
#: "summary": Markdown str (as :attr:`TurnOutcome.summary`), "follow_ups": list[str]}``; called
#: again when a run interrupted while typesetting is resumed.
ReportCallback = Callable[[dict], None]


async def run_turn(
    thread_id: str,
    *,
    question: str | None = None,
    answer: str | None = None,
    settings: Settings,
    on_progress: ProgressCallback | None = None,
    cancel: asyncio.Event | None = None,
    context: str | None = None,
    resume_only: bool = False,
    discussion: str | None = None,
    on_report: ReportCallback | None = None,
) -> TurnOutcome:
    """Run the research graph for ``thread_id`` until it pauses or ends.

    Exactly one of:
        ``question``: start a new research in this thread (``context`` is an earlier report
        of the thread, given to the model as background; ``discussion`` the chat thread's earlier
        messages, ``Name: text`` lines, given to the clarify and brief steps as conversation, not
        instructions, and named in the report).
        ``answer``: resume a graph paused on its clarifying question with ``Command(resume=answer)``.
        ``resume_only=True``: continue an interrupted run from its last checkpoint.

    ``on_progress`` gets a :class:`engine.progress.Progress` snapshot at every graph event;
    ``on_report`` (see :data:`ReportCallback`) gets the summary as soon as the final text exists,
    so a chat can post it while the PDF and the Word document are still being built.

    ``question``, ``answer`` and ``context`` go through :func:`engine.text.clean_text` here, so
    every entry point (terminal, chat, queue) stores and prompts only valid, control-free text.

    Raises:
        TurnRejected: bad input (empty, over :data:`MAX_QUESTION_CHARS`, nothing paused to answer).
        RunCancelled: ``cancel`` was set; the checkpoint stays resumable.
        engine.settings.SettingsError, engine.search.base.SearchError, openai errors: after
        the bounded retries, for the caller to report.
    """
    if question is not None:  # its language is detected before the first model call
        from engine.language import prefetch_language_model

        prefetch_language_model()
    from engine.graph.run import run_graph_turn

    return await run_graph_turn(
        thread_id,
        question=None if question is None else clean_text(question),
        answer=None if answer is None else clean_text(answer),
        settings=settings,
        on_progress=on_progress,
        cancel=cancel,
        context=None if context is None else clean_text(context),
        resume_only=resume_only,
        discussion=None if discussion is None else clean_text(discussion),
        on_report=on_report,
    )


async def thread_status(thread_id: str, *, settings: Settings) -> Literal["none", "paused", "interrupted", "done"]:
    """Where a thread's graph stands in the checkpointer.

    ``none``: never run; ``paused``: waiting on the clarifying question's answer;
    ``interrupted``: stopped mid-run (killed or cancelled), resumable; ``done``: finished.
    """
    from engine.graph.run import graph_thread_status

    return await graph_thread_status(thread_id, settings=settings)
