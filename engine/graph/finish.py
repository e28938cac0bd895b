"""The main graph's last nodes: finalize (synthesis, citations checked) and render_artifacts."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import asdict

from langchain_core.messages import BaseMessage, HumanMessage
from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime

from engine import prompts
from engine.artifact_store import artifact_store
from engine.artifacts import TITLE_LINE, clarifications, write_artifacts
from engine.citations import Cited, Numbering
from engine.graph.context import RunContext
from engine.graph.llm import invoke_with_context_retry
from engine.graph.output_limit import output_limit_note
from engine.graph.review import review_transcript
from engine.graph.state import AgentState
from engine.headings import nest_headings
from engine.language import language_name
from engine.model_sources import drop_model_sources
from engine.offline_phrases import phrase
from engine.prompt_sources import found_sources_block
from engine.redact import quoted
from engine.schemas import ExecutiveSummary
from engine.text import markdown_literal, markdown_unescape

log = logging.getLogger(__name__)

#: Follow-up questions a report suggests at most (three buttons under the chat summary).
MAX_FOLLOW_UPS = 3
#: Characters of one suggested follow-up question at most (the prompt asks for 200).
FOLLOW_UP_CHARS = 300


def open_objections(state: AgentState) -> str:
    """The review's last critique and last perspective: what the review left open ("(none)" without a review)."""
    parts = []
    if state.get("critiques"):
        parts.append(f"### Critique\n{state['critiques'][-1]}")
    if state.get("perspectives"):
        parts.append(f"### Perspective\n{state['perspectives'][-1]}")
    return "\n\n".join(parts) or "(none)"


def clean_follow_ups(questions: list[str], numbering: Numbering) -> list[str]:
    """At most :data:`MAX_FOLLOW_UPS` distinct questions, each on one line, without source ids,
    cut to :data:`FOLLOW_UP_CHARS` characters; empty ones dropped."""
    out: list[str] = []
    for raw in questions:
        text = " ".join(numbering.strip(str(raw)).split()).strip(" -*")
        if len(text) > FOLLOW_UP_CHARS:
            text = text[: FOLLOW_UP_CHARS - 1].rsplit(" ", 1)[0] + "…"
        if text and text.casefold() not in {q.casefold() for q in out}:
            out.append(text)
    return out[:MAX_FOLLOW_UPS]


def below_title(report: str) -> str:
    """``report`` (the model's Markdown) with its title line (a level-1 heading first, see
    :data:`engine.artifacts.TITLE_LINE`) as written and every other heading moved down, relative
    levels kept, so that none is at level 1: report.md's sections stand beside its Executive
    summary, under its one title."""
    title = TITLE_LINE.match(report)
    head = title.group(0) if title else ""
    return head + nest_headings(report[len(head):], 1)


async def finalize(state: AgentState, runtime: Runtime[RunContext]) -> dict:
    """Synthesize the final report from the research report and every review round.

    The summary step also suggests up to :data:`MAX_FOLLOW_UPS` follow-up questions from the
    review's open objections (:func:`open_objections`), in the question's language
    (``follow_ups``; none without a review that left something open), none asking for what the
    asker's answer to a clarifying question gave (its prompt carries each question asked and its
    answer, :func:`engine.artifacts.clarifications`).

    Every writer cites by minted id; here, in code, the ids in the report's prose become ``[n]``
    (1..N by first use; unknown ids removed) and nothing else changes. The executive summary is
    written from the report with its ids and numbered the same way; the title cites nothing.
    The synthesis prompt lists only the sources the report and the review cite (at most
    :data:`~engine.prompt_sources.MAX_PROMPT_SOURCES`), after the count of all found, and names a few
    found and not cited (:func:`~engine.prompt_sources.found_sources_block`).

    A list of sources the synthesis ends with goes before anything is numbered
    (:func:`engine.model_sources.drop_model_sources`): the Sources section is generated.

    The report's own headings stay under its title (:func:`below_title`). The report's Problems
    section lists the research errors, then ``report_notes`` (each once):
    a draft or synthesis the model stopped at its output limit, kept to its last whole paragraph.
    """
    ctx = runtime.context
    get_stream_writer()({"event": "phase", "phase": "finalize"})
    registry = state.get("sources", {})
    language = state.get("language", "en")
    final, notes = await _synthesis(state, ctx)
    final = drop_model_sources(final)  # before numbering: an id only its own list cites is not cited
    problems = problems_section(state, notes)
    asked = clarifications(state.get("messages", []))
    summary_prompt = prompts.EXECUTIVE_SUMMARY.format(
        date=ctx.today, report=(final.rstrip() + problems)[:30000], language=language_name(language),
        question=state.get("question", ""), objections=open_objections(state)[:8000],
        clarification=prompts.CLARIFICATION.format(answers="\n".join(asked)) if asked else "")
    summary = await ctx.structured("summarization", ExecutiveSummary,
                                     default=ExecutiveSummary(title="", executive_summary="")).ainvoke(
        [HumanMessage(summary_prompt)])
    user_text = "\n".join(m.text for m in state.get("messages", []) if isinstance(m, HumanMessage))
    numbering = Numbering(registry, user_text=f"{state.get('question', '')}\n{user_text}")
    # prose brackets shaped like citations are escaped first: the only [n] left are the numbered ids
    from engine.render.markdown import escape_number_groups  # pypandoc: imported where the report is written

    body = numbering.apply(escape_number_groups(below_title(final))).rstrip() + problems.rstrip() + "\n"
    executive = numbering.apply(escape_number_groups(summary.executive_summary))
    title = numbering.strip(summary.title).strip() or next(
        (markdown_unescape(ln[2:].strip()) for ln in body.splitlines() if ln.startswith("# ")),
        state.get("question", "")[:100])
    log.info("event=citations_numbered cited=%d found=%d removed=%s", len(numbering.numbers), len(registry),
             quoted(",".join(numbering.removed[:10])))
    return {
        "final_report": body,
        "cited": [asdict(c) for c in numbering.cited],
        "numbering": dict(numbering.numbers),
        "title": title,
        "executive_summary": executive.strip(),
        "removed_markers": numbering.removed,
        "follow_ups": clean_follow_ups(summary.follow_up_questions, numbering),
        "report_notes": notes,
    }


async def _synthesis(state: AgentState, ctx: RunContext) -> tuple[str, list[str]]:
    """The report synthesized with the review (the report as it is without a review), and the
    note when the model stopped it at its output limit (:mod:`engine.graph.output_limit`)."""
    report, transcript = state.get("report", ""), review_transcript(state)
    if not transcript:
        return report, []

    def build(limit: int) -> list[BaseMessage]:
        review = transcript[-limit:] if limit < len(transcript) else transcript
        return [HumanMessage(prompts.FINALIZE.format(
            date=ctx.today, question=state.get("question", ""), report=report, review=review,
            sources=found_sources_block(state.get("sources", {}), [report, review]),
            citation_rule=prompts.CITATION_RULE, language=language_name(state.get("language", "en")),
        ))]

    response = await invoke_with_context_retry(ctx.model("final_report"), build, len(transcript))
    note = output_limit_note(response, "the final synthesis of the report")
    return response.text, [note] if note else []


def problems_section(state: AgentState, notes: list[str]) -> str:
    """The report's closing Markdown (outside the numbering: it cites nothing): the research errors,
    then the report's notes (``report_notes`` and ``notes``, each once) under the Problems heading,
    then a line saying the chat thread's earlier discussion was used; "" when there is none. Each
    error and note is plain text, escaped (:func:`engine.text.markdown_literal`) to show as written."""
    errors = [*state.get("research_errors", []), *dict.fromkeys([*state.get("report_notes", []), *notes])]
    problems = ""
    if errors:
        heading = phrase("problems", state.get("language", "en"))
        # plain text (a topic, an error message): shown as written, its "<b>" or "*" no markup
        problems = f"\n\n## {heading}\n\n" + "\n".join(f"- {markdown_literal(e)}" for e in errors) + "\n"
    if (state.get("discussion") or "").strip():
        count = len([ln for ln in state["discussion"].splitlines() if ln.strip()])
        problems += (f"\n\n_This research used the chat thread's earlier discussion ({count} message"
                     f"{'' if count == 1 else 's'}) as background to the question._\n")
    return problems


async def render_artifacts(state: AgentState, runtime: Runtime[RunContext]) -> dict:
    """Write report.md, review.md, sources.json, usage.json, report.tex, report.pdf and report.docx,
    then keep them in the artifact store."""
    ctx = runtime.context
    from engine.graph.run import summary_markdown  # the graph's runner imports this module

    write = get_stream_writer()
    write({"event": "phase", "phase": "render"})
    # the final text exists: a chat can post the summary now, while the files are typeset
    write({"event": "report_ready", "title": state.get("title") or "",
           "summary": summary_markdown(state, offline=ctx.settings.llm_backend == "offline"),
           "follow_ups": list(state.get("follow_ups") or [])})
    cited = [Cited(**c) for c in state.get("cited", [])]
    try:
        paths = await asyncio.to_thread(write_artifacts, state, cited, ctx.run_dir, ctx.settings, ctx.today,
                                        ctx.cancelled, ctx.summaries.counts())
        # with DATABASE_URL every host reads them from PostgreSQL; the folder is this host's cache
        await asyncio.to_thread(artifact_store(ctx.settings).save_run, ctx.run_dir)
    except asyncio.CancelledError:  # Ctrl-C, shutdown: the LaTeX build in the thread stops too
        ctx.cancelled.set()
        raise
    get_stream_writer()({"event": "phase", "phase": "done"})
    return {"artifacts": paths}
