"""The main graph's last nodes: finalize (synthesis, citations checked) and render_artifacts."""

from __future__ import annotations

import asyncio
import re
from dataclasses import asdict

from langchain_core.messages import BaseMessage, HumanMessage
from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime

from engine import prompts
from engine.artifacts import write_artifacts
from engine.citations import Cited, finalize_citations, source_list
from engine.graph.context import RunContext
from engine.graph.llm import invoke_with_context_retry, structured
from engine.graph.review import review_transcript
from engine.graph.state import AgentState
from engine.language import language_name
from engine.offline_text import phrase
from engine.schemas import ExecutiveSummary


async def finalize(state: AgentState, runtime: Runtime[RunContext]) -> dict:
    """Synthesize the final report from the research report and every review round.

    The result's ``[n]`` markers are checked against the registry, unknown ones removed and the
    rest renumbered 1..N; then the title and executive summary are written from it.
    """
    ctx = runtime.context
    get_stream_writer()({"event": "phase", "phase": "finalize"})
    registry = state.get("sources", {})
    numbering = state.get("numbering", {})
    language = state.get("language", "en")
    transcript = review_transcript(state)
    if transcript:
        def build(limit: int) -> list[BaseMessage]:
            return [HumanMessage(prompts.FINALIZE.format(
                date=ctx.today, question=state.get("question", ""), report=state.get("report", ""),
                review=transcript[-limit:] if limit < len(transcript) else transcript,
                sources=source_list(registry, numbering) or "(none)", language=language_name(language),
            ))]

        final = (await invoke_with_context_retry(ctx.model("final_report"), build, len(transcript))).text
    else:
        final = state.get("report", "")
    user_text = "\n".join(m.text for m in state.get("messages", []) if isinstance(m, HumanMessage))
    body, cited, removed = finalize_citations(final, registry, numbering, language,
                                              user_text=f"{state.get('question', '')}\n{user_text}")
    errors = state.get("research_errors", [])
    if errors:
        body = body.rstrip() + f"\n\n## {phrase('problems', language)}\n\n" + "\n".join(
            f"- {e}" for e in errors) + "\n"
    summary_prompt = prompts.EXECUTIVE_SUMMARY.format(date=ctx.today, report=body[:30000], language=language_name(language))
    summary = await structured(ctx.model("summarization"), ExecutiveSummary, ctx.settings).ainvoke(
        [HumanMessage(summary_prompt)])
    known = {c.number for c in cited}
    executive = re.sub(r"\[(\d+)\]", lambda m: m.group(0) if int(m.group(1)) in known else "", summary.executive_summary)
    title = summary.title.strip() or next(
        (ln[2:].strip() for ln in body.splitlines() if ln.startswith("# ")), state.get("question", "")[:100])
    return {
        "final_report": body,
        "cited": [asdict(c) for c in cited],
        "title": title,
        "executive_summary": executive.strip(),
        "removed_markers": removed,
    }


async def render_artifacts(state: AgentState, runtime: Runtime[RunContext]) -> dict:
    """Write report.md, review.md, sources.json, usage.json, report.tex and report.pdf."""
    ctx = runtime.context
    get_stream_writer()({"event": "phase", "phase": "render"})
    cited = [Cited(**c) for c in state.get("cited", [])]
    paths = await asyncio.to_thread(write_artifacts, state, cited, ctx.run_dir, ctx.settings, ctx.today,
                                    ctx.cancelled)
    get_stream_writer()({"event": "phase", "phase": "done"})
    return {"artifacts": paths}
