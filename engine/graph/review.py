"""The adversarial review loop: solution → critique → perspective (N rounds), then finalize.

Role prompts are built per call and never stored in the message history; ``review_messages``
holds only the active role's tool exchange and is reset when the role finishes. Each node
returns only its own update; results accumulate in ``solutions``, ``critiques`` and
``perspectives``. Tool results go back to the role that asked, routed by ``review_phase``.
Roles name sources by their minted ids, as the report they review does.
"""

from __future__ import annotations

from datetime import UTC, datetime

from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime
from langgraph.types import Command

from engine import prompts
from engine.graph.actions import call_with_tools, prompted_messages
from engine.graph.context import RunContext
from engine.graph.researcher import merge_found, run_search
from engine.graph.sources import read_texts
from engine.graph.state import AgentState, override
from engine.graph.tools import run_tool_calls
from engine.language import language_name
from engine.prompt_sources import found_sources_block
from engine.source_links import public_url

MAX_ROLE_TOOL_CALLS = 6
NEXT = {"solution": "critique", "critique": "perspective"}
OUTPUT = {"solution": "solutions", "critique": "critiques", "perspective": "perspectives"}


@tool(description="List the sources the research report and findings cite (id, title and URL), with how many "
                  "sources were found in all and the titles of some not cited.")
def list_sources() -> str:
    """Schema only; run by review_tools."""
    return ""


@tool(description="Read one source's summary and key excerpts by its id, e.g. S1a2b3c.")
def read_source(source_id: str) -> str:
    """Schema only; run by review_tools."""
    return ""


@tool(description="Read the research findings (compressed notes per topic), optionally only topics containing `topic`.")
def read_findings(topic: str = "") -> str:
    """Schema only; run by review_tools."""
    return ""


@tool(description="Search the web for evidence; each new source comes with an id you may cite.")
def web_search(query: str) -> str:
    """Schema only; run by review_tools."""
    return ""


def role_tools(ctx: RunContext) -> list:
    """The tools the review roles have: the run's research, and web search only when enabled."""
    tools = [list_sources, read_source, read_findings]
    if ctx.settings.review_use_web and ctx.search.name != "none":
        tools.append(web_search)
    return tools


def _tools_note(ctx: RunContext) -> str:
    names = ", ".join(t.name for t in role_tools(ctx))
    return prompts.REVIEW_TOOLS_NOTE.format(tools=names)


def _common(state: AgentState, ctx: RunContext) -> dict:
    return {
        "date": ctx.today, "question": state.get("question", ""),
        "iteration": state.get("review_iteration", 0) + 1,
        "rounds": ctx.settings.max_review_iterations, "tools_note": _tools_note(ctx),
        "language": language_name(state.get("language", "en")),
    }


def _prompt(phase: str, state: AgentState, ctx: RunContext) -> str:
    c = _common(state, ctx)
    if phase == "solution":
        previous, rule = "", ""
        if state.get("solutions"):
            previous = (f"\n<Previous solution>\n{state['solutions'][-1]}\n</Previous solution>\n"
                        f"<Previous critique>\n{state['critiques'][-1]}\n</Previous critique>\n"
                        f"<Previous perspective>\n{state['perspectives'][-1]}\n</Previous perspective>\n")
            rule = prompts.SOLUTION_REVISE_RULE
        return prompts.SOLUTION.format(**c, report=state.get("report", ""), previous=previous, revise_rule=rule)
    if phase == "critique":
        return prompts.CRITIQUE.format(**c, solution=state["solutions"][-1])
    return prompts.PERSPECTIVE.format(**c, solution=state["solutions"][-1], critique=state["critiques"][-1])


async def _role(phase: str, state: AgentState, runtime: Runtime[RunContext]) -> Command:
    ctx = runtime.context
    get_stream_writer()({"event": "phase", "phase": "review", "iteration": state.get("review_iteration", 0) + 1})
    history = state.get("review_messages", [])
    calls_so_far = sum(len(getattr(m, "tool_calls", None) or []) for m in history)
    messages = [HumanMessage(_prompt(phase, state, ctx)), *history]
    if calls_so_far < MAX_ROLE_TOOL_CALLS:
        response = await call_with_tools(ctx.model("review"), role_tools(ctx), messages, ctx.settings)
    else:
        # the tool exchange so far, as plain text: the model gets no tools now, and the server may have none
        response = await ctx.model("review").ainvoke(
            prompted_messages(messages, []) if ctx.settings.llm_backend != "offline" else messages)
    if getattr(response, "tool_calls", None) and calls_so_far < MAX_ROLE_TOOL_CALLS:
        return Command(goto="review_tools", update={"review_messages": [response], "review_phase": phase})
    stamp = f"{phase}:{len(state.get(OUTPUT[phase], []))}|{datetime.now(UTC).isoformat(timespec='seconds')}"
    update: dict = {OUTPUT[phase]: [response.text.strip()], "review_messages": override([]), "review_phase": "",
                    "review_stamps": [stamp]}
    if phase in NEXT:
        return Command(goto=NEXT[phase], update=update)
    iteration = state.get("review_iteration", 0) + 1
    update["review_iteration"] = iteration
    return Command(goto="solution" if iteration < ctx.settings.max_review_iterations else "finalize", update=update)


async def solution(state: AgentState, runtime: Runtime[RunContext]) -> Command:
    """Write (round 1) or revise (later rounds, saying how it differs) the solution."""
    return await _role("solution", state, runtime)


async def critique(state: AgentState, runtime: Runtime[RunContext]) -> Command:
    """Name the solution's flaws, unstated assumptions, missing evidence and improvements."""
    return await _role("critique", state, runtime)


async def perspective(state: AgentState, runtime: Runtime[RunContext]) -> Command:
    """Answer as a competitor, regulator, stakeholder or adversary would."""
    return await _role("perspective", state, runtime)


async def review_tools(state: AgentState, runtime: Runtime[RunContext]) -> Command:
    """Run the active role's tool calls, all at once, and route the results back to that role.

    Sources are named by their minted ids, as in the report; ``list_sources`` lists those the
    report and the findings cite, after the count of all found, and names a few not cited
    (:func:`~engine.prompt_sources.found_sources_block`).
    """
    ctx = runtime.context
    registry = dict(state.get("sources", {}))
    calls = state["review_messages"][-1].tool_calls
    # each call's pages and visits, merged below in the calls' order, not in the order they end
    visits: dict[str, list[str]] = {call["id"]: [] for call in calls}
    founds: dict[str, dict] = {}

    async def run_one(call: dict) -> ToolMessage:
        name, args, visited = call["name"], call.get("args") or {}, visits[call["id"]]
        if name == "web_search" and web_search in role_tools(ctx):
            text, found = await run_search([str(args.get("query", ""))], state.get("question", ""), ctx,
                                           focus=state.get("research_brief", ""))
            founds[call["id"]] = found
            visited.extend(rec["url"] for rec in found.values())
        elif name == "read_source":
            text = await _read_source(ctx, str(args.get("source_id", "")), registry, visited)
        else:
            text = _local_tool(name, args, state, registry, visited)
        return ToolMessage(text, tool_call_id=call["id"], name=name)

    replies = await run_tool_calls(calls, run_one)
    visited = [url for call in calls for url in visits[call["id"]]]
    new_sources = merge_found(founds.get(call["id"]) for call in calls)
    update = {"review_messages": replies, "visited": visited}
    if new_sources:
        update["sources"] = new_sources
        get_stream_writer()({"event": "sources_found", "ids": list(new_sources)})
    return Command(goto=state.get("review_phase") or "solution", update=update)


async def _read_source(ctx: RunContext, sid: str, registry: dict, visited: list[str]) -> str:
    """``read_source``: the source's title, URL, summary and key excerpts."""
    sid = sid.strip().strip("[]").strip()
    rec = registry.get(sid)
    if rec is None:
        return f"Error: there is no source with the id {sid!r}."
    visited.append(rec["url"])
    summary, excerpts = await read_texts(ctx, sid, rec)
    return f"[{sid}] {rec['title']} — {public_url(rec['url'])}\n{summary}\n" + "\n".join(f"> {e}" for e in excerpts)


def _local_tool(name: str, args: dict, state: AgentState, registry: dict, visited: list[str]) -> str:
    """The answer of a tool that reads the run's own research (``list_sources``, ``read_findings``);
    an error text for any other name."""
    if name == "list_sources":
        text = found_sources_block(registry, [state.get("report", ""), *state.get("notes", [])])
        return "No sources." if text == "(none)" else text
    if name == "read_findings":
        wanted = str(args.get("topic", "")).lower()
        notes = [n for n in state.get("notes", []) if wanted in n.lower()] or state.get("notes", [])
        return "\n\n".join(notes) or "No findings."
    return f"Error: the tool {name} is not available to you."


def review_transcript(state: AgentState) -> str:
    """Every round's solution, critique and perspective, in order, as Markdown."""
    parts = []
    rounds = zip(state.get("solutions", []), state.get("critiques", []), state.get("perspectives", []), strict=False)
    for i, (sol, cri, per) in enumerate(rounds, 1):
        parts.append(f"### Solution (round {i})\n{sol}\n\n### Critique (round {i})\n{cri}\n\n"
                     f"### Perspective (round {i})\n{per}\n")
    return "\n".join(parts)
