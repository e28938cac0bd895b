"""Report artifacts: the final report's structure, rendered to LaTeX by a template and built to PDF."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class SourceEntry:
    """One cited source, numbered as in the report's ``[n]`` markers (1..N, no gaps)."""

    number: int
    title: str
    url: str


@dataclass
class ReviewRound:
    """The review appendix for one iteration; every field is Markdown and may be empty."""

    iteration: int
    what_changed: str = ""
    critiques: str = ""
    answers: str = ""
    open_objections: str = ""


@dataclass
class ReportDocument:
    """Everything ``report.tex`` is rendered from. The model never writes LaTeX.

    Attributes:
        title: the report's title (plain text).
        question: the user's question as asked (plain text, any language).
        date: the report's date: the run's, ISO ``YYYY-MM-DD``, or as a hand-edited report.md
            writes it ("1 March 2021 (revised)").
        executive_summary: Markdown, a few paragraphs; "" for a report without a summary (the
            outputs then show no summary section).
        body: the final report as Markdown, without its Sources section (it may contain
            headings, lists, tables, links, code, ``[n]`` citation markers).
        review: one :class:`ReviewRound` per review iteration (may be empty).
        sources: the cited sources, in number order.
        language: BCP-47 code of the question's language (``en``, ``de``, ``zh``...).
        notice: a line shown under the title (e.g. the offline-mode notice), or None.
        sources_section: whether the report has a Sources section; False for a report.md without
            one (:func:`engine.render.reread.document_from_markdown`): the outputs then show none.
        no_sources: what the Sources section says when ``sources`` is empty (plain text, as
            report.md says it: "(none cited)", "No sources were found ..."); "" for the
            ``no_sources`` phrase of ``language``.
        review_absent: the label (``templates/labels.json``) the appendix shows without rounds:
            ``noreview`` (the run had no review) or ``review_not_beside`` (re-rendered without
            the run's review.md beside the report).
        clarification: the clarifying question the bot asked and the requester's answer, shown
            under the question (plain text, ``asked — answer``, one line per question asked;
            :func:`engine.artifacts.clarifications`), "" when none was asked.
        front_markdown: the title and the lines under it as report.md writes them (Markdown, one
            line per field; a clarification's lines one per question), by key (``title``, when it
            has markup or escapes; ``date``, ``question``, ``clarification``): the outputs show them
            with their inline Markdown (bold, emphasis, code, links:
            :func:`engine.render.markdown.field_inlines`) where ``title``, ``date``, ``question`` and
            ``clarification`` hold their plain text (for the PDF's and the Word document's properties
            and the title a report without one takes from its question). A key absent (a run's own
            values, a question read from review.md) is shown as its plain text.
        labels: the report's own labels as its report.md writes them, by key of
            :func:`engine.render.latex.labels_for` (``{"date": "Datum", "summary": "Zusammenfassung"}``:
            :func:`engine.render.reread.document_from_markdown`); they stand for those of ``language``.
            A front field's label (``date``, ``question``, ``clarification``) is its bold text, with
            the colon when report.md writes it in the bold: ``**Date :**`` gives ``"Date "``.
        label_colons: by key of a front field whose report.md writes its colon after the bold label
            (``**Date** : 1er mars``), that colon with the spacing before it as written (``" :"``,
            ``":"``, ``"\u00a0:"``): the outputs show the label bold and this after it, not bold. A key
            absent has its colon in the bold (``**Date:**``, ``**Date :**``, ``**日期：**``).
        bold_colons: by key of a front field whose report.md writes its colon in the bold label, that
            colon as written: ``":"``, or the full-width ``"："`` Chinese and Japanese write
            (``**日期：** 2026-01-05``); the spacing before it is in ``labels``. A key absent from both
            takes ``":"`` after a label of ``labels``, else the language's colon (``labels.json``'s
            ``colon``: :func:`engine.render.latex.field_label`).
    """

    title: str
    question: str
    date: str
    executive_summary: str
    body: str
    review: list[ReviewRound] = field(default_factory=list)
    sources: list[SourceEntry] = field(default_factory=list)
    language: str = "en"
    notice: str | None = None
    sources_section: bool = True
    no_sources: str = ""
    review_absent: str = "noreview"
    clarification: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    label_colons: dict[str, str] = field(default_factory=dict)
    bold_colons: dict[str, str] = field(default_factory=dict)
    front_markdown: dict[str, str] = field(default_factory=dict)


@dataclass
class PdfBuild:
    """The outcome of compiling ``report.tex``: ``pdf`` on success, else ``error`` and ``log_tail``."""

    pdf: Path | None
    error: str | None = None
    log_tail: str | None = None
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)  # TeX's missing-glyph and overfull-box lines
