"""The researcher subgraph: researcher ⇄ researcher_tools (search, think_tool) → compress_research."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Iterable

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Command

from engine import prompts
from engine.citations import cited_ids, keep_known_ids, merge_sources, source_id
from engine.compat import estimate_tokens
from engine.database import database_url, explain, is_unavailable, reason
from engine.graph.actions import call_with_tools
from engine.graph.context import RunContext
from engine.graph.llm import ReportIncomplete, invoke_with_context_retry
from engine.graph.sources import keep_texts, read_texts
from engine.graph.state import ResearcherOutput, ResearcherState
from engine.graph.summaries import Summary
from engine.graph.tools import run_tool_calls, unavailable
from engine.language import language_name
from engine.redact import quoted
from engine.schemas import ResearchComplete, think_tool
from engine.schemas import Summary as SummarySchema
from engine.search.base import SearchError, SearchResult
from engine.search.extract import opening_heading
from engine.search.postgres_text import SearchUnavailable
from engine.source_links import public_url
from engine.text import parse_url

log = logging.getLogger(__name__)
MAX_PAGE_CHARS = 50_000  # open_deep_research's max_content_length for page summaries
#: What a researcher (and the review's web search) reads of each page it finds: its title, site and
#: the start of its summary, like a search engine's result list (about 160 characters); enough to judge what is covered and
#: what to search next. The compressor, which writes the notes, reads every page's whole summary and
#: excerpts once (:func:`results_for_compression`), so the researcher's later turns do not carry them.
RESULT_VIEW_CHARS = 160


@tool(description="Search for documents on the topic. Give one to three focused queries.")
def search(queries: list[str]) -> str:
    """Schema only: the researcher_tools node runs the search with the run's back-end."""
    return ""


@tool(description="Search the files shared in this conversation (PDF, Word, text...). Give one to three "
                  "focused queries. Results name the file and page or section.")
def search_thread_files(queries: list[str]) -> str:
    """Schema only: the researcher_tools node searches the thread's file index."""
    return ""


SEARCH_TOOLS = ("search", "search_thread_files")


async def search_or_unavailable(queries: list[str], topic: str, ctx: RunContext, backend=None,
                                focus: str = "") -> tuple[str, dict]:
    """:func:`run_search`, with an :func:`unavailable` service raised as an error that stops the
    research instead of answering the model with an error (:func:`engine.graph.tools.fatal_errors`)
    and has the turn go on from its last checkpoint: PostgreSQL (with ``DATABASE_URL``: the store
    that keeps the pages' texts) as :class:`engine.database.DatabaseUnavailable`, naming the
    database and not the search back-end; any other service as
    :class:`engine.search.postgres_text.SearchUnavailable` (a ``ConnectionError``).

    Raises:
        engine.database.DatabaseUnavailable: PostgreSQL cannot be reached right now.
        SearchUnavailable: another service cannot be reached right now.
        engine.search.base.SearchError: the back-end cannot answer otherwise.
    """
    try:
        return await run_search(queries, topic, ctx, backend, focus)
    except SearchError:
        raise
    except Exception as err:
        if not unavailable(err):
            raise
        if is_unavailable(err) and ctx.settings.database_url is not None:
            raise explain(err, database_url(ctx.settings)) from err
        raise SearchUnavailable(f"{(backend or ctx.search).name} search failed: {type(err).__name__}: "
                                f"{reason(err)}") from err


async def _summarize(result: SearchResult, raw: str, query: str, ctx: RunContext) -> Summary:
    """Summarize one page with the summarization model, under the summarization timeout.

    Falls back to the back-end's snippet when the summarizer times out or fails (logged), as
    open_deep_research does.
    """
    prompt = prompts.SUMMARIZE_PAGE.format(date=ctx.today, query=query, content=raw[:MAX_PAGE_CHARS])
    model = ctx.structured("summarization", SummarySchema)
    try:
        out = await asyncio.wait_for(model.ainvoke([HumanMessage(prompt)]), ctx.settings.summarization_timeout)
        return out.summary, list(out.key_excerpts)[:5]
    except TimeoutError:
        log.warning("event=summary_timeout url=%s seconds=%s", quoted(result.url, 1000), ctx.settings.summarization_timeout)
    except Exception as err:  # the page stays usable through its snippet
        log.warning("event=summary_failed url=%s error=%s", quoted(result.url, 1000), type(err).__name__)
    return result.content or raw[:1500], []


async def page_summary(result: SearchResult, query: str, ctx: RunContext) -> Summary:
    """``(summary, key excerpts)`` of one page: the snippet when it has no raw text, the raw text
    itself when under ``summary_min_tokens``, else one summary per run
    (:class:`engine.graph.summaries.SummaryCache`), made for ``query``.

    As the summary is shared by every caller, ``query`` must be the same whoever asks first (the
    run's research brief, :func:`run_search`), or the run's result depends on which concurrent
    researcher reaches the page first."""
    raw = (result.raw_content or "").strip()
    if not raw:
        return result.content, []
    if estimate_tokens(raw) < ctx.settings.summary_min_tokens:
        ctx.summaries.kept_as_is += 1
        return raw, []
    return await ctx.summaries.get(result.url, raw, lambda: _summarize(result, raw, query, ctx))


async def _query_pages(query: str, ctx: RunContext, backend, focus: str) -> list[tuple[SearchResult, Summary]]:
    """One query's pages with their summaries (made for ``focus``); the summaries start as soon as
    the query returns."""
    batch = await backend.search(query, ctx.settings.search_max_results)
    summaries = await asyncio.gather(*(page_summary(r, focus, ctx) for r in batch))
    return list(zip(batch, summaries, strict=True))


async def run_search(queries: list[str], topic: str, ctx: RunContext, backend=None,
                     focus: str = "") -> tuple[str, dict]:
    """Run the queries on ``backend`` (default: the run's search back-end; the thread's files for
    ``search_thread_files``), summarize every page, register the sources.

    Every query runs at once, and each query's pages are summarised as soon as it returns, for
    ``focus``: the run's research brief (``topic`` when empty), the same for every researcher and
    query, because a page is summarised once per run and shared (:func:`page_summary`); a summary
    made for whichever query reached the page first would make the report depend on the order the
    concurrent researchers ran in.
    Returns ``(tool_text, sources)``: ``tool_text`` holds one ``--- SOURCE [Sxxxxxx]: title``
    block per distinct document (URL, summary, key excerpts); ``sources`` maps ids to records
    (their summaries and excerpts in the run's store, :func:`engine.graph.sources.keep_texts`).
    Raises:
        engine.search.base.SearchError: the back-end cannot answer.
    """
    queries = [q for q in (queries or [topic]) if q and q.strip()][:3] or [topic]
    backend = backend or ctx.search
    per_query = await asyncio.gather(*(_query_pages(q, ctx, backend, focus or topic) for q in queries))
    unique: dict[str, tuple[SearchResult, Summary]] = {}
    for pages in per_query:
        for r, summary in pages:
            unique.setdefault(r.url, (r, summary))
    if not unique:
        if backend.name == "none":
            return "No search back-end is configured (DEEPRESEARCH_SEARCH=none): no documents.", {}
        return "No documents matched these queries.", {}
    blocks, sources = [], {}
    for r, (summary, excerpts) in unique.values():
        sid = source_id(r.url)
        sources[sid] = {"id": sid, "url": r.url, "title": r.title or r.url, "summary": summary,
                        "excerpts": excerpts, "topic": topic}
        blocks.append(result_view(sid, sources[sid]))
    return "\n".join(blocks), await keep_texts(ctx, sources)


def merge_found(founds: Iterable[dict | None]) -> dict:
    """The sources of several searches ``{id: record}`` as one registry, in the searches' order:
    a page more than one found keeps the first search's record (:func:`engine.citations.merge_sources`),
    so the tool calls of one turn, run at once, give the same sources whichever ends first."""
    return functools.reduce(merge_sources, (found or {} for found in founds), {})


def _without_title(summary: str, title: str) -> str:
    """``summary`` without its first block when that is a heading marked as one (Markdown ``# Title``
    or a setext underline: :func:`engine.search.extract.opening_heading`) that repeats ``title``
    (spaces and case aside): a page's own heading, shown once, in the source's line.

    A first line not marked as a heading stays even when it equals the title: a text file's (or a
    Markdown file's first paragraph's) first short line is its title
    (:func:`engine.search.extract.extract_document`), and may be the very sentence the research must
    quote. So a corpus Markdown file's ``# heading`` is not repeated, while an HTML page's ``<h1>``
    (plain text once extracted) or a web page's first line that matches its title is read twice
    rather than hidden; a thread file's title (``name, section``) is never its first line.
    """
    found = opening_heading(summary)
    if found and " ".join(found[0].split()).casefold() == " ".join((title or "").split()).casefold():
        return found[1]
    return summary.strip()


def result_view(sid: str, rec: dict) -> str:
    """One page as a researcher reads it: ``--- SOURCE [id]: title (site)`` and the first
    :data:`RESULT_VIEW_CHARS` characters of its summary (cut at a word, whitespace collapsed)."""
    text = " ".join(_without_title(rec.get("summary") or "", rec["title"]).split())
    if len(text) > RESULT_VIEW_CHARS:
        text = text[:RESULT_VIEW_CHARS].rsplit(" ", 1)[0] + " …"
    site = parse_url(rec["url"]).netloc or public_url(rec["url"])
    return f"--- SOURCE [{sid}]: {rec['title']} ({site})\n{text}\n"


async def results_for_compression(ctx: RunContext, sources: dict) -> str:
    """Every source a researcher found, once, in the order found: ``--- SOURCE [id]: title``, then
    the whole summary and the key excerpts (read back from the run's store)."""
    blocks = []
    for sid, rec in sources.items():
        summary, excerpts = await read_texts(ctx, sid, rec)
        text = f"--- SOURCE [{sid}]: {rec['title']}\n{_without_title(summary, rec['title'])}\n"
        if excerpts:
            text += "KEY EXCERPTS: " + " | ".join(excerpts) + "\n"
        blocks.append(text)
    return "\n".join(blocks)


async def researcher(state: ResearcherState, runtime: Runtime[RunContext]) -> dict:
    """Ask the research model for the next searches (tools: search, think_tool, ResearchComplete).

    Tool calls are native or prompted (:func:`engine.graph.actions.call_with_tools`). A turn
    that calls no tool before any search still makes progress: the topic itself is searched
    once, and the report says so (in ``research_errors``).
    """
    ctx = runtime.context
    system = prompts.RESEARCHER.format(
        date=ctx.today, topic=state["topic"], search_name=ctx.search.name,
        max_calls=ctx.settings.max_react_tool_calls,
    ) + ctx.files_prompt
    history = state.get("researcher_messages", [])
    tools = [search, *([search_thread_files] if ctx.thread_files else []), think_tool, ResearchComplete]
    response = await call_with_tools(ctx.model("research"), tools, [SystemMessage(system), *history], ctx.settings)
    searched = any(c["name"] in SEARCH_TOOLS for m in history for c in getattr(m, "tool_calls", None) or [])
    if response.tool_calls or searched:
        return {"researcher_messages": [response]}
    log.warning("event=researcher_no_search topic=%s action=search_topic_once", quoted(state["topic"], 80))
    call = {"name": "search", "args": {"queries": [state["topic"][:300]]}, "id": "call_topic_search",
            "type": "tool_call"}
    response = AIMessage(content=response.text, tool_calls=[call], id=response.id,
                         response_metadata=response.response_metadata, usage_metadata=response.usage_metadata)
    note = (f"{state['topic'][:120]}: the model made no search call (neither a tool call nor an action block), "
            "so the topic itself was searched once.")
    return {"researcher_messages": [response], "research_errors": [note]}


async def researcher_tools(state: ResearcherState, runtime: Runtime[RunContext]) -> Command:
    """Run the researcher's tool calls, all at once; a call over the cap, or one that fails, gets an
    error message the model can read (:func:`engine.graph.tools.run_tool_calls`)."""
    ctx = runtime.context
    last = state["researcher_messages"][-1]
    calls = getattr(last, "tool_calls", None) or []
    done_calls = state.get("tool_call_iterations", 0)
    if not calls or any(c["name"] == "ResearchComplete" for c in calls):
        return Command(goto="compress_research")
    founds: dict[str, dict] = {}  # each call's sources, merged in the calls' order, not the order they end

    async def run_one(call: dict) -> ToolMessage:
        if done_calls + calls.index(call) >= ctx.settings.max_react_tool_calls:
            return ToolMessage(f"Error: the limit of {ctx.settings.max_react_tool_calls} tool calls is reached.",
                               tool_call_id=call["id"], name=call["name"])
        if call["name"] == "search":
            text, founds[call["id"]] = await search_or_unavailable(call["args"].get("queries") or [], state["topic"],
                                                                   ctx, focus=state.get("brief", ""))
            return ToolMessage(text, tool_call_id=call["id"], name="search")
        if call["name"] == "search_thread_files" and ctx.thread_files is not None:
            text, founds[call["id"]] = await search_or_unavailable(call["args"].get("queries") or [], state["topic"],
                                                                   ctx, ctx.thread_files, state.get("brief", ""))
            return ToolMessage(text, tool_call_id=call["id"], name="search_thread_files")
        if call["name"] == "think_tool":
            return ToolMessage(think_tool.invoke(call["args"]), tool_call_id=call["id"], name="think_tool")
        return ToolMessage(f"Error: there is no tool named {call['name']}.", tool_call_id=call["id"], name=call["name"])

    replies = await run_tool_calls(calls, run_one)
    sources = merge_found(founds.get(call["id"]) for call in calls)
    if sources:
        get_stream_writer()({"event": "sources_found", "ids": list(sources)})
    total = done_calls + len(calls)
    goto = "compress_research" if total >= ctx.settings.max_react_tool_calls else "researcher"
    return Command(goto=goto, update={"researcher_messages": replies, "sources": sources,
                                      "tool_call_iterations": total})


async def compress_research(state: ResearcherState, runtime: Runtime[RunContext]) -> dict:
    """Compress the pages found into cited notes; only ids this researcher saw survive.

    The compressor reads each page found once, whole (:func:`results_for_compression`), not the
    researcher's tool messages (which show only the start of each page, maybe more than once).
    """
    ctx = runtime.context
    known = state.get("sources", {})
    if not known:
        results = "\n".join(m.text for m in state.get("researcher_messages", [])
                            if isinstance(m, ToolMessage) and m.name in SEARCH_TOOLS)
        return {"compressed_research": results.strip() or "No documents were found on this topic.", "sources": {}}
    results = await results_for_compression(ctx, known)

    def build(limit: int) -> list:
        return [HumanMessage(prompts.COMPRESS.format(
            date=ctx.today, topic=state["topic"], brief=state.get("brief") or state["topic"], results=results[:limit],
            language=language_name(state.get("language", "en")),
        ))]

    try:
        response: AIMessage = await invoke_with_context_retry(ctx.model("compression"), build, len(results))
        text = response.text
    except ReportIncomplete as err:  # the search results themselves, cut, rather than nothing
        log.warning("event=compress_failed topic=%s error=%s", quoted(state["topic"], 80), quoted(err))
        text = results[:8000]
    notes = keep_known_ids(text, known)
    cited = {sid: known[sid] for sid in cited_ids(notes, known) if sid in known}
    return {"compressed_research": notes.strip(), "sources": cited or known}


def build_researcher_graph():
    """The compiled researcher subgraph (input: topic, language, first message; output: notes, sources)."""
    g = StateGraph(ResearcherState, context_schema=RunContext, output_schema=ResearcherOutput)
    g.add_node("researcher", researcher)
    g.add_node("researcher_tools", researcher_tools)
    g.add_node("compress_research", compress_research)
    g.add_edge(START, "researcher")
    g.add_edge("researcher", "researcher_tools")
    g.add_edge("compress_research", END)
    return g.compile()
