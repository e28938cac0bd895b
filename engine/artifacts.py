"""The files of one run: report.md, review.md, sources.json, usage.json, report.tex, report.pdf, report.docx."""

from __future__ import annotations

import json
import re
import threading
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from engine.citations import Cited, id_legend, ids_to_numbers, sources_section
from engine.file_labels import source_title
from engine.headings import nest_headings, shift_headings
from engine.offline_phrases import PHRASES, phrase
from engine.render import ReportDocument, ReviewRound, SourceEntry
from engine.settings import Settings
from engine.source_links import public_url
from engine.text import any_space_pattern, markdown_literal, ordinary_spaces


def safe_name(text: str) -> str:
    """A file-system-safe folder name for a thread or run id (``slack:T1:C2:3.4`` → ``slack_T1_C2_3.4``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "thread"


def run_dir(settings: Settings, thread_id: str, run_id: str) -> Path:
    """``{DATA_DIR}/artifacts/{thread}/{run}/``."""
    return settings.artifacts_dir / safe_name(thread_id) / safe_name(run_id)


def split_notice(markdown: str) -> tuple[str, str | None]:
    """Take the offline-mode notice (an italic line: the ``offline_notice`` phrase of any language,
    or any line naming the offline mode) out of a report."""
    notices = "|".join(any_space_pattern(text) for text in PHRASES["offline_notice"].values())
    match = re.search(rf"^\*((?:{notices})|[^*\n]*offline[^*\n]*)\*\s*$", markdown, re.MULTILINE | re.IGNORECASE)
    if not match:
        return markdown, None
    return (markdown[: match.start()] + markdown[match.end():]).replace("\n\n\n", "\n\n"), match.group(1).strip()


def _section(markdown: str, heading_words: tuple[str, ...]) -> str:
    """The text of the first ``##`` section whose heading contains one of ``heading_words``."""
    parts = re.split(r"^##\s+(.*)$", markdown, flags=re.MULTILINE)
    for i in range(1, len(parts) - 1, 2):
        if any(w in parts[i].lower() for w in heading_words):
            return parts[i + 1].strip()
    return ""


def _first_items(markdown: str, n: int) -> str:
    items = [ln for ln in markdown.splitlines() if re.match(r"^\s*(\d+\.|[-*])\s+", ln)]
    return "\n".join(items[:n]) if items else markdown.strip()[:1200]


def review_rounds(state: dict) -> list[ReviewRound]:
    """The review appendix: per round, what changed, the main critiques, how they were answered, the stakeholder objections raised (what stayed open is the report's own section)."""
    from engine.render.latex import labels_for
    from engine.render.markdown import escape_number_groups  # pypandoc and mistletoe: only when rendering

    sols, crits, pers = state.get("solutions", []), state.get("critiques", []), state.get("perspectives", [])
    changes = ("change", "änderung", "changement", "cambio", "modific", "wijziging", "mudança", "ändring", *(t.lower() for t in PHRASES["changes"].values()))
    numbers = state.get("numbering") or {}  # ids of sources the report cites read as their [n]
    sols, crits, pers = ([ids_to_numbers(escape_number_groups(t), numbers) for t in texts]
                         for texts in (sols, crits, pers))
    labels = labels_for(state.get("language") or "en")  # the question's language, as the report's headings
    rounds = []
    for i, critique in enumerate(crits):
        what = _section(sols[i], changes) if i > 0 else labels["first_solution"]
        nxt = sols[i + 1] if i + 1 < len(sols) else ""
        answered = _section(nxt, changes) if nxt else labels["final_synthesis"]
        rounds.append(ReviewRound(
            iteration=i + 1, what_changed=what or sols[i][:1200], critiques=_first_items(critique, 5),
            answers=answered or labels["not_said"], open_objections=_first_items(pers[i] if i < len(pers) else "", 5),
        ))
    return rounds


#: The level of review.md's heading over a role's text (``### Solution``); the text's own headings
#: are written this many levels further down, so that each is below it.
ROLE_HEADING_LEVEL = 3


def review_markdown(state: dict) -> str:
    """review.md: every round's solution, critique and perspective in order, each with its
    timestamp, then the sources the roles cite; its own words in the question's language
    (``state["language"]``; the ``review_*`` and ``role_*`` phrases of :mod:`engine.offline_phrases`).

    A role's own headings are moved :data:`ROLE_HEADING_LEVEL` levels down (``## Recommendation``
    under ``### Solution`` is written ``##### Recommendation``; at most level 6):
    :func:`engine.render.reread.review_state_from_markdown` moves them back."""
    language = state.get("language") or "en"
    stamps = dict(s.split("|", 1) for s in state.get("review_stamps", []) if "|" in s)
    lines = [f"# {phrase('review_of', language, q=markdown_literal(state.get('question', '')))}", ""]
    sols, crits, pers = state.get("solutions", []), state.get("critiques", []), state.get("perspectives", [])
    if not sols:
        lines.append(phrase("no_review_rounds", language))
    for i in range(len(sols)):
        lines += [f"## {phrase('review_round', language, n=str(i + 1))}", ""]
        for items, key in ((sols, "solution"), (crits, "critique"), (pers, "perspective")):
            if i < len(items):
                stamp = stamps.get(f"{key}:{i}", "")
                text = shift_headings(items[i].strip(), ROLE_HEADING_LEVEL)
                heading = f"{'#' * ROLE_HEADING_LEVEL} {phrase('role_' + key, language)}"
                lines += [heading + (f" ({stamp})" if stamp else ""), "", text, ""]
    legend = id_legend([*sols, *crits, *pers], state.get("sources", {}), state.get("numbering"), language)
    if legend:
        lines += [f"## {phrase('review_legend', language)}", "", phrase("review_legend_note", language), "", *legend]
    return "\n".join(lines) + "\n"


def sources_record(state: dict, cited: list[Cited]) -> dict:
    """sources.json: the sources cited (``number``, ``id``, ``title``, ``url``), every source found
    (``id``, ``title``, ``url``, ``topic``), the research errors and the sources the review visited.

    A ``url`` is the source's web address, a corpus document's path in its folder, or a shared
    file's key; a ``file:`` URI is given by its file name alone (:func:`engine.source_links.public_url`).
    A ``title`` names a shared file's page or section in the report's language, as report.md does
    (:func:`engine.file_labels.source_title`)."""
    language = state.get("language") or "en"
    return {
        "cited": [{"number": c.number, "id": c.id, "title": source_title(c.title, c.url, language),
                   "url": public_url(c.url)} for c in cited],
        "found": [{"id": k, "title": source_title(v.get("title"), v["url"], language), "url": public_url(v["url"]),
                   "topic": v.get("topic")} for k, v in state.get("sources", {}).items()],
        "research_errors": state.get("research_errors", []),
        "visited_in_review": [public_url(url) for url in state.get("visited", [])],
    }


def _lead_once(summary: str, body: str) -> str:
    """``body`` without the paragraphs before its first section that the executive summary says
    word for word: a report with nothing to quote says so once, at the top."""
    said = {" ".join(p.split()) for p in re.split(r"\n\s*\n", summary) if p.strip()}
    if not said or body.startswith("## "):
        return body
    lead, sep, rest = body.partition("\n## ")
    kept = [p for p in re.split(r"\n\s*\n", lead) if " ".join(p.split()) not in said]
    return ("\n\n".join(kept).strip() + ("\n\n## " if kept and sep else sep) + rest).strip()


def _no_sources_note(found: int, language: str, above: str) -> str:
    """What the Sources section says when the report cites nothing: that no source was found, or
    that ``found`` were and none is cited; when the report above already says so, "(none)" or, with
    sources found, "(none cited)", never words that read as if nothing was found. The note is found
    in ``above`` whatever spaces stand where it has no-break ones (:func:`engine.text.ordinary_spaces`)."""
    notes = ([phrase("none_cited", language, found, n=str(found)), phrase("no_passages", language, found, n=str(found))]
             if found else [phrase("no_findings", language)])  # found and none cited is not "none found"
    said = any(ordinary_spaces(n) in ordinary_spaces(above) for n in notes)
    return (phrase("none_cited_short" if found else "none", language) if said else notes[0])


def clarifications(messages: list) -> list[str]:
    """Each clarifying question the bot asked in ``messages`` (the run's conversation: the question,
    then each question asked and its answer) with the requester's answer, as one line of plain text
    ``asked — answer`` (whitespace runs one space): the answer alone ("yes", "the second") would not
    say what it answers."""
    from langchain_core.messages import AIMessage, HumanMessage

    return [f"{' '.join(asked.text.split())} — {' '.join(answer.text.split())}"
            for asked, answer in zip(messages, messages[1:], strict=False)
            if isinstance(asked, AIMessage) and isinstance(answer, HumanMessage)]


def front_matter(question: str, date: str, language: str,
                 clarification: list[str] | tuple[str, ...] = ()) -> list[str]:
    """report.md's lines under the title and the notice, as the PDF and the Word document show them:
    the run's date, the whole question (the title may be a shortened one) and each clarifying
    question asked with its answer (:func:`clarifications`), each a paragraph ``**Label:** text``
    with the labels of ``language`` and its colon (``engine/render/templates/labels.json``: French
    ``**Date\u00a0:**``, with a no-break space; Chinese and Japanese ``**日期：**``, full-width), the text escaped
    (:func:`engine.text.markdown_literal`) to read as written, on one line.
    :func:`engine.render.reread.document_from_markdown` reads them back."""
    from engine.render.latex import labels_for  # pypandoc: only when the report is written

    labels = labels_for(language)
    colon = labels["colon"]
    lines = [f"**{labels['date']}{colon}** {date}", ""]
    if question.strip():
        lines += [f"**{labels['question']}{colon}** {markdown_literal(question)}", ""]
    for line in clarification:
        lines += [f"**{labels['clarification']}{colon}** {markdown_literal(line)}", ""]
    return lines


#: The level of report.md's Executive summary heading; the summary's own headings are moved below it.
SUMMARY_HEADING_LEVEL = 2
#: The model's title over its report (its first line, a level-1 heading): report.md has its own.
TITLE_LINE = re.compile(r"\A\s*# .*\n")


def write_artifacts(state: dict, cited: list[Cited], directory: Path, settings: Settings, today: str,
                    cancel: threading.Event | None = None, summary_cache: dict | None = None) -> dict:
    """Write every file of the run into ``directory``, each atomically (temp file, then rename).

    report.md: the title, the notice, :func:`front_matter`, the executive summary (its own headings
    below its heading: :data:`SUMMARY_HEADING_LEVEL`), the report without its first title line, the
    Sources section.

    ``summary_cache`` (the turn's :meth:`engine.graph.summaries.SummaryCache.counts`) is kept in
    ``usage.json`` beside the tokens by role, and so is the report's ``language`` (BCP-47: what
    :func:`engine.render.reread.read_report` renders it in where its labels are words of several).

    A PDF or Word failure is recorded, never raised, and never stops the other files.

    Returns:
        A dict of paths (strings): ``directory``, ``report_md``, ``review_md``, ``sources_json``,
        ``usage_json``, ``report_tex``, ``pdf``, ``docx``; ``pdf_error`` and ``pdf_log_tail``
        when the PDF could not be built, ``pdf_warnings`` when it overflowed or lacked glyphs,
        ``docx_error`` when the Word document could not be written.
    """
    from engine.render.outputs import render_outputs, write_atomic

    directory.mkdir(parents=True, exist_ok=True)
    language = state.get("language", "en")
    # a shared file's page or section in the report's language, in its Sources, PDF and Word document
    cited = [replace(c, title=source_title(c.title, c.url, language)) for c in cited]
    body, notice = split_notice(state.get("final_report", "").rstrip())
    summary = nest_headings(state.get("executive_summary", "").strip(), SUMMARY_HEADING_LEVEL)
    text_body = _lead_once(summary, TITLE_LINE.sub("", body, count=1).strip())
    title = state.get("title") or state.get("question", "")[:100]
    head = [f"# {markdown_literal(title)}", ""]
    if notice:
        head += [f"*{notice}*", ""]
    asked = clarifications(state.get("messages") or [])
    head += front_matter(state.get("question", ""), today, language, asked)
    if summary:
        head += [f"{'#' * SUMMARY_HEADING_LEVEL} {phrase('executive_summary', language)}", "", summary, ""]
    no_sources = _no_sources_note(len(state.get("sources") or {}), language, "\n".join(head) + text_body)
    report_md = "\n".join(head) + "\n" + text_body + "\n\n" + sources_section(cited, language, no_sources)
    paths = {"directory": str(directory)}
    paths["report_md"] = str(write_atomic(directory / "report.md", report_md))
    paths["review_md"] = str(write_atomic(directory / "review.md", review_markdown(state)))
    paths["sources_json"] = str(write_atomic(directory / "sources.json",
                                             json.dumps(sources_record(state, cited), indent=2, ensure_ascii=False)))
    from engine.artifact_store import artifact_store
    from engine.models import summarize_usage  # here: engine.models loads langchain-core, which the
    # chat servers' and the audit's imports of this module (safe_name) do not need

    artifact_store(settings).gather_usage(directory)  # with PostgreSQL: the calls of every host
    usage = summarize_usage(directory / "usage.jsonl")
    usage["generated_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    usage["language"] = language  # the report's language: `deepresearch render` renders it in that one
    if summary_cache is not None:
        usage["summary_cache"] = summary_cache
    paths["usage_json"] = str(write_atomic(directory / "usage.json", json.dumps(usage, indent=2)))

    doc = ReportDocument(
        title=title,
        question=state.get("question", ""),
        date=today,
        executive_summary=summary,
        body=text_body,
        review=review_rounds(state),
        sources=[SourceEntry(number=c.number, title=c.title, url=c.url) for c in cited],
        language=language,
        notice=notice,
        no_sources=no_sources,
        clarification="\n".join(asked),
    )
    paths.update(render_outputs(doc, directory, timeout=settings.pdf_timeout, cancel=cancel))
    return paths
