"""The main graph's research half: clarify_with_user, write_research_brief, final_report_generation."""

from __future__ import annotations

import logging
import re

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime
from langgraph.types import Command, interrupt

from engine import prompts
from engine.chinese import TRADITIONAL
from engine.graph.context import RunContext
from engine.graph.llm import invoke_with_context_retry
from engine.graph.output_limit import output_limit_note
from engine.graph.state import AgentState, override
from engine.language import language_name
from engine.model_sources import drop_model_sources
from engine.prompt_sources import found_sources_block
from engine.redact import quoted
from engine.schemas import ClarifyWithUser, ResearchQuestion

log = logging.getLogger(__name__)

# The findings handed to the report writer are capped (about 25k tokens) so its prompt stays
# bounded however many sources the researchers found; the context-length retry shortens further.
# With the source list (at most engine.prompt_sources.MAX_PROMPT_SOURCES lines) this bounds the prompt.
FINDINGS_BUDGET_CHARS = 100_000


def format_messages(messages: list[BaseMessage]) -> str:
    """The conversation as ``User:`` / ``Assistant:`` lines for a prompt."""
    lines = []
    for m in messages:
        who = "User" if isinstance(m, HumanMessage) else "Assistant"
        lines.append(f"{who}: {' '.join(m.text.split())}")
    return "\n".join(lines)


def discussion_block(state: AgentState) -> str:
    """The chat thread's earlier messages as the prompts' ``<Conversation>`` block ("" when none)."""
    text = (state.get("discussion") or "").strip()
    return prompts.DISCUSSION.format(discussion=text) if text else ""


async def clarify_with_user(state: AgentState, runtime: Runtime[RunContext]) -> Command:
    """Ask at most ``max_clarification_rounds`` clarifying questions, pausing with ``interrupt()``.

    First pass: the model decides, and a question is stored in ``pending_question`` (so the
    model is not called again when the node re-runs on resume). Second pass: ``interrupt``
    pauses the graph until ``Command(resume=answer)``; the answer joins the conversation.
    """
    ctx = runtime.context
    get_stream_writer()({"event": "phase", "phase": "clarify"})
    pending = state.get("pending_question")
    if pending:
        answer = interrupt({"question": pending})
        return Command(goto="write_research_brief", update={
            "messages": [AIMessage(pending), HumanMessage(str(answer))],
            "pending_question": "",
            "clarification_rounds": state.get("clarification_rounds", 0) + 1,
        })
    rounds = state.get("clarification_rounds", 0)
    if not ctx.settings.allow_clarification or rounds >= ctx.settings.max_clarification_rounds:
        return Command(goto="write_research_brief")
    prompt = prompts.CLARIFY.format(
        date=ctx.today, messages=format_messages(state["messages"]), discussion=discussion_block(state),
        language=language_name(state.get("language", "en")),
    )
    decision = await ctx.structured("research", ClarifyWithUser,
                                          default=ClarifyWithUser(need_clarification=False)).ainvoke([HumanMessage(prompt)])
    if decision.need_clarification and decision.question.strip():
        return Command(goto="clarify_with_user", update={"pending_question": decision.question.strip()})
    return Command(goto="write_research_brief")


async def write_research_brief(state: AgentState, runtime: Runtime[RunContext]) -> dict:
    """Turn the conversation into a brief; the supervisor starts from the brief alone."""
    ctx = runtime.context
    get_stream_writer()({"event": "phase", "phase": "brief"})
    context = ""
    if state.get("context"):
        context = ("\nAn earlier report in this conversation, for background (do not repeat it):\n"
                   f"<Earlier report>\n{state['context'][:12000]}\n</Earlier report>\n")
    prompt = prompts.RESEARCH_BRIEF.format(
        date=ctx.today, messages=format_messages(state["messages"]), context=context,
        discussion=discussion_block(state),
        language=language_name(state.get("language", "en")),
    )
    out = await ctx.structured("research", ResearchQuestion,
                                 default=ResearchQuestion(research_brief="")).ainvoke([HumanMessage(prompt)])
    brief = about_the_question(out.research_brief.strip(), state)
    get_stream_writer()({"event": "phase", "phase": "research"})
    return {
        "research_brief": brief,
        "supervisor_messages": override([HumanMessage(prompts.SUPERVISOR_START)]),
        "research_iterations": 0,
    }


#: Languages written without spaces between words: no word check on their briefs.
UNSPACED_LANGUAGES = {"zh", TRADITIONAL, "ja", "ko", "th"}


def about_the_question(brief: str, state: AgentState) -> str:
    """``brief``, or the user's question when the brief is empty or shares no word of four letters
    or more with what the user wrote: a small model's "brief" that repeats the prompt's own words
    would send every search after them (none of them matches a page about the question). Briefs in
    languages written without spaces (:data:`UNSPACED_LANGUAGES`) are only checked for being empty."""
    question = state["question"]
    if not brief:
        return question
    if state.get("language", "en") in UNSPACED_LANGUAGES:
        return brief
    asked = "\n".join([question, *(m.text for m in state.get("messages", []) if isinstance(m, HumanMessage))])
    words = set(re.findall(r"[^\W\d_]{4,}", asked.casefold()))
    if words and not words & set(re.findall(r"[^\W\d_]{4,}", brief.casefold())):
        log.warning("event=brief_off_question brief=%s", quoted(brief))
        return question
    return brief


def findings_for_prompt(state: AgentState) -> str:
    """Every research unit's notes, as written: each fact cites its sources by minted id."""
    return "\n\n".join(state.get("notes", []))


async def final_report_generation(state: AgentState, runtime: Runtime[RunContext]) -> dict:
    """Write the research report in one call from the compressed findings (never raw pages).

    The prompt lists only the sources the findings cite (at most
    :data:`~engine.prompt_sources.MAX_PROMPT_SOURCES`), after a line counting all those found and before
    one naming a few that the findings do not cite (no URL: :func:`~engine.prompt_sources.found_sources_block`),
    so it grows with the capped findings, not with the number of results each search returned, and
    a report with nothing to quote can say how many sources were found. The report cites by minted id.

    A list of sources the model wrote at the end goes (:func:`engine.model_sources.drop_model_sources`):
    the review reads the report without it, and the delivered report's Sources list is generated.

    A context-length error is retried with the findings shortened by 10% (open_deep_research).
    A report the model stopped at its output limit is kept up to its last whole paragraph, and
    ``report_notes`` says so with the setting to raise (:mod:`engine.graph.output_limit`).
    """
    ctx = runtime.context
    get_stream_writer()({"event": "phase", "phase": "report"})
    findings = findings_for_prompt(state)
    registry = state.get("sources", {})
    errors = state.get("research_errors", [])
    error_block = ""
    if errors:
        error_block = "\n<Research errors>\n" + "\n".join(f"- {e}" for e in errors) + "\n</Research errors>\n" \
            "Say in the report which topics could not be researched and why.\n"
    if not state.get("sources"):
        error_block += "\nNo sources were found: say so plainly and do not cite anything.\n"

    def build(limit: int) -> list[BaseMessage]:
        shown = findings[:limit]
        return [HumanMessage(prompts.FINAL_REPORT.format(
            date=ctx.today, brief=state["research_brief"], findings=shown,
            sources=found_sources_block(registry, [shown]), errors=error_block,
            citation_rule=prompts.CITATION_RULE, language=language_name(state.get("language", "en")),
        ))]

    budget = min(len(findings), FINDINGS_BUDGET_CHARS)
    response = await invoke_with_context_retry(ctx.model("final_report"), build, budget)
    note = output_limit_note(response, "the report")
    # the supervisor's exchange is done with: later checkpoints need not carry it
    return {"report": drop_model_sources(response.text).strip(), "supervisor_messages": override([]),
            "report_notes": [note] if note else []}


def after_report(state: AgentState, runtime: Runtime[RunContext]) -> str:
    """Go to the review loop, or straight to finalize when ``max_review_iterations`` is 0."""
    return "solution" if runtime.context.settings.max_review_iterations > 0 else "finalize"

