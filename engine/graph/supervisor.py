"""The supervisor subgraph: supervisor ⇄ supervisor_tools, fanning topics out to research units.

Each ``ConductResearch`` call becomes a ``Send`` to ``research_unit``; LangGraph runs them in
one superstep with at most ``max_concurrency`` (= ``max_concurrent_research_units``) at a
time, so units beyond the cap wait for a slot instead of being refused (open_deep_research
refuses them with an error). Each finished unit's result is checkpointed as a pending write,
so a run killed mid-way resumes without redoing finished units.
"""

from __future__ import annotations

import logging

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Command, Send

from engine import prompts
from engine.database import DatabaseError, database_url, explain, is_unavailable, reason
from engine.graph.actions import call_with_tools
from engine.graph.budget import not_covered, research_over_budget
from engine.graph.context import RunContext
from engine.graph.researcher import build_researcher_graph
from engine.graph.state import ResearchUnit, SupervisorState
from engine.graph.tools import fatal_errors, unavailable
from engine.language import language_name
from engine.redact import quoted
from engine.schemas import ConductResearch, ResearchComplete, think_tool

log = logging.getLogger(__name__)
# What the supervisor reads of each unit's notes: enough to judge coverage, bounded so that its
# prompt does not grow with the number of sources (the full notes go to the report writer).
SUPERVISOR_NOTE_CHARS = 4000
_RESEARCHER = build_researcher_graph()

def supervisor_prompt(brief: str, ctx: RunContext, language: str = "en") -> str:
    """The supervisor's system prompt for ``brief``."""
    return prompts.SUPERVISOR.format(
        date=ctx.today, brief=brief, max_units=ctx.settings.max_concurrent_research_units,
        max_iterations=ctx.settings.max_researcher_iterations, language=language_name(language),
    ) + ctx.files_prompt


#: How a failed topic's result starts in the supervisor's messages (the progress of a resumed run
#: reads its errors there, :mod:`engine.graph.standing`).
FAILED_UNIT = "Research on this topic failed: "

NO_PLAN = ("The model named no research topic (neither a tool call nor an action block), "
           "so the whole brief was researched as one topic.")


async def supervisor(state: SupervisorState, runtime: Runtime[RunContext]) -> dict:
    """Ask the research model what to research next (tools: ConductResearch, ResearchComplete, think_tool).

    Tool calls are native or prompted (:func:`engine.graph.actions.call_with_tools`). A turn
    that calls no tool before any research was delegated still makes progress: the brief is
    researched as one topic, and the report says so (:data:`NO_PLAN` in ``research_errors``).
    """
    ctx = runtime.context
    prompt = supervisor_prompt(state["research_brief"], ctx, state.get("language", "en"))
    messages = [SystemMessage(prompt), *state.get("supervisor_messages", [])]
    response = await call_with_tools(ctx.model("research"), [ConductResearch, ResearchComplete, think_tool],
                                     messages, ctx.settings)
    update: dict = {"research_iterations": state.get("research_iterations", 0) + 1}
    delegated = any(c["name"] == "ConductResearch" for m in state.get("supervisor_messages", [])
                    for c in getattr(m, "tool_calls", None) or [])
    if not response.tool_calls and not delegated:
        log.warning("event=supervisor_no_plan action=research_brief_as_one_topic")
        call = {"name": "ConductResearch", "args": {"research_topic": state["research_brief"]},
                "id": f"call_brief_{update['research_iterations']}", "type": "tool_call"}
        response = AIMessage(content=response.text, tool_calls=[call], id=response.id,
                             response_metadata=response.response_metadata, usage_metadata=response.usage_metadata)
        update["research_errors"] = [NO_PLAN]
    return {"supervisor_messages": [response], **update}


async def supervisor_tools(state: SupervisorState, runtime: Runtime[RunContext]) -> Command:
    """Answer think_tool calls, send each ConductResearch to a research unit, or end the research.

    Once the run's token budget is nearly used (:func:`engine.graph.budget.research_over_budget`)
    no new unit starts: the research ends, and the topics asked for are named in ``research_errors``
    so the report says what was not covered.
    """
    ctx = runtime.context
    last = state["supervisor_messages"][-1]
    calls = getattr(last, "tool_calls", None) or []
    over = state.get("research_iterations", 0) > ctx.settings.max_researcher_iterations
    if not calls or over or any(c["name"] == "ResearchComplete" for c in calls):
        return Command(goto=END)
    replies, sends = [], []
    for call in calls:
        if call["name"] == "think_tool":
            replies.append(ToolMessage(think_tool.invoke(call["args"]), tool_call_id=call["id"], name="think_tool"))
        elif call["name"] == "ConductResearch" and str(call["args"].get("research_topic", "")).strip():
            sends.append(Send("research_unit", ResearchUnit(
                topic=str(call["args"]["research_topic"]).strip(), tool_call_id=call["id"],
                language=state.get("language", "en"), brief=state.get("research_brief", ""))))
        else:
            replies.append(ToolMessage(f"Error: invalid call to {call['name']}.", tool_call_id=call["id"], name=call["name"]))
    if sends and research_over_budget(ctx):
        topics = [send.arg["topic"] for send in sends]
        log.warning("event=token_budget_reached tokens=%d topics_left=%d", ctx.tokens_used, len(topics))
        return Command(goto=END, update={"supervisor_messages": replies, "research_errors": not_covered(topics, ctx)})
    if not sends:
        return Command(goto="supervisor", update={"supervisor_messages": replies})
    return Command(goto=sends, update={"supervisor_messages": replies})


async def research_unit(unit: ResearchUnit, runtime: Runtime[RunContext]) -> dict:
    """Run one researcher on one topic; a failure is recorded (and shown in the report), not hidden.

    Except a service that is down (:func:`engine.graph.tools.fatal_errors`) or cannot be reached
    right now (:func:`engine.graph.tools.unavailable`: PostgreSQL, the network): that error is
    raised (an unreachable PostgreSQL as :class:`engine.database.DatabaseUnavailable`), so the
    superstep, and the turn, stop instead of a report written without the topic, and the turn's
    retry resumes from the last checkpoint. Units of the superstep that had finished are kept as
    pending writes and not run again (LangGraph's checkpointing of finished tasks).

    Raises:
        engine.database.DatabaseUnavailable, ConnectionError: a service cannot be reached right now.
    """
    ctx = runtime.context
    writer = get_stream_writer()
    topic = unit["topic"]
    writer({"event": "topic_started", "topic": topic})
    log.info("event=unit_started topic=%s", quoted(topic, 80))
    try:
        out = await _RESEARCHER.ainvoke(
            {"researcher_messages": [HumanMessage(prompts.RESEARCHER_START)], "topic": topic,
             "brief": unit.get("brief") or topic, "language": unit["language"]},
            context=ctx,
        )
    except fatal_errors():
        writer({"event": "topic_finished", "topic": topic, "error": "service unavailable"})
        raise
    except Exception as err:
        if unavailable(err):  # the report would silently lack the topic: the turn is retried instead
            log.warning("event=unit_interrupted topic=%s error=%s action=retry_turn%s", quoted(topic, 80),
                        type(err).__name__, _unanswered(err))
            writer({"event": "topic_finished", "topic": topic, "error": "service unavailable"})
            if is_unavailable(err) and not isinstance(err, DatabaseError) and ctx.settings.database_url is not None:
                raise explain(err, database_url(ctx.settings)) from err
            raise
        message = f"{topic[:120]}: {type(err).__name__}: {str(err)[:300]}"
        log.warning("event=unit_failed topic=%s error=%s", quoted(topic, 80), type(err).__name__)
        writer({"event": "topic_finished", "topic": topic, "error": message})
        return {
            "supervisor_messages": [ToolMessage(f"{FAILED_UNIT}{message}",
                                                tool_call_id=unit["tool_call_id"], name="ConductResearch")],
            "research_errors": [message],
            "units_done": [topic],
        }
    notes = out.get("compressed_research", "") or "No findings."
    brief_notes = notes if len(notes) <= SUPERVISOR_NOTE_CHARS else notes[:SUPERVISOR_NOTE_CHARS] + " […]"
    writer({"event": "topic_finished", "topic": topic})
    writer({"event": "sources_found", "ids": list(out.get("sources", {}))})
    log.info("event=unit_finished topic=%s sources=%d", quoted(topic, 80), len(out.get("sources", {})))
    update = {
        "supervisor_messages": [ToolMessage(brief_notes, tool_call_id=unit["tool_call_id"], name="ConductResearch")],
        "notes": [f"### {topic}\n{notes}"],
        "sources": out.get("sources", {}),
        "research_errors": out.get("research_errors", []),
        "units_done": [topic],
    }
    # an empty update would still be one more pending write in the checkpoints
    return {key: value for key, value in update.items() if value}


def build_supervisor_graph():
    """The compiled supervisor subgraph; it shares ``notes``, ``sources`` and errors with the main graph."""
    g = StateGraph(SupervisorState, context_schema=RunContext)
    g.add_node("supervisor", supervisor)
    g.add_node("supervisor_tools", supervisor_tools)
    g.add_node("research_unit", research_unit)
    g.add_edge(START, "supervisor")
    g.add_edge("supervisor", "supervisor_tools")
    g.add_edge("research_unit", "supervisor")
    return g.compile()


def _unanswered(err: BaseException) -> str:
    """`` why="PostgreSQL (DATABASE_URL) did not answer: <cause>"`` when ``err`` is PostgreSQL being
    unreachable (:func:`engine.database.is_unavailable`), its cause redacted (no password of the URL);
    "" for any other error (the error's class name already says which service)."""
    if not is_unavailable(err):
        return ""
    return f" why={quoted(f'PostgreSQL (DATABASE_URL) did not answer: {reason(err)}', 300)}"
