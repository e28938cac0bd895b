"""Drive the main graph for one turn on the checkpointer: start, resume, stream progress, cancel."""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from langchain_core.messages import HumanMessage, RemoveMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.types import Command

from engine.artifact_store import artifact_store
from engine.artifacts import run_dir
from engine.checkpoints import open_checkpointer, open_store, read_checkpointer
from engine.files import files_prompt, thread_search
from engine.graph.budget import TokenCounter
from engine.graph.build import graph_builder
from engine.graph.context import RunContext
from engine.graph.sources import namespace as source_namespace
from engine.graph.standing import restore_progress
from engine.graph.state import override
from engine.language import detect_language
from engine.models import UsageRecorder, summarize_usage
from engine.offline_phrases import phrase
from engine.outage_log import outage, recovery
from engine.progress import Progress
from engine.redact import quoted
from engine.runner import (
    MAX_QUESTION_CHARS,
    Artifacts,
    ProgressCallback,
    ReportCallback,
    RunCancelled,
    TurnOutcome,
    TurnRejected,
    validate_question,
)
from engine.search import get_search_backend
from engine.settings import Settings
from engine.source_links import web_link
from engine.text import markdown_literal

log = logging.getLogger(__name__)
__all__ = ["open_checkpointer", "run_graph_turn", "graph_thread_status", "graph_thread_states", "new_run_id",
           "summary_markdown"]


def new_run_id() -> str:
    """``YYYYmmddTHHMMSS-xxxx``: sortable, unique enough per thread."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + secrets.token_hex(2)


def _fresh_input(question: str, context: str | None, run_id: str, discussion: str | None = None,
                 *, new_thread: bool = False) -> dict:
    """The input that starts a new research in a thread, resetting what an earlier one left.

    In a thread with no state yet (``new_thread``) the resets to empty values are left out: each
    would be one more pending write in the checkpoints, and there is nothing to reset.
    """
    values = {
        "messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), HumanMessage(question)],
        "run_id": run_id, "question": question, "language": detect_language(question),
        "context": context or "", "discussion": discussion or "", "clarification_rounds": 0, "pending_question": "",
        "research_brief": "", "supervisor_messages": override([]), "research_iterations": 0,
        "notes": override([]), "sources": override({}), "research_errors": override([]),
        "report_notes": override([]), "units_done": override([]), "numbering": {}, "report": "",
        "review_messages": override([]),
        "review_phase": "", "review_iteration": 0, "solutions": override([]), "critiques": override([]),
        "perspectives": override([]), "visited": override([]), "review_stamps": override([]),
        "final_report": "", "cited": [], "title": "", "executive_summary": "", "follow_ups": [], "artifacts": {},
    }
    if not new_thread:
        return values
    empty = (override([]), override({}))
    return {key: value for key, value in values.items()
            if key in ("messages", "run_id", "question", "language") or (value and value not in empty)}


def _status_of(snapshot) -> str:
    """``done`` only once the files are written; anything else that ran is resumable.

    ``none`` also for a thread whose state has no ``run_id``, which every start's input sets: its
    first checkpoint was saved but not the input (the disk filled between the two writes), so
    nothing of a research is there to continue; its question is to be sent again.
    """
    if not snapshot or not snapshot.values or not snapshot.values.get("run_id"):
        return "none"
    if any(t.interrupts for t in snapshot.tasks):
        return "paused"
    if snapshot.next or snapshot.tasks or not snapshot.values.get("artifacts"):
        return "interrupted"
    return "done"


def _pending_question(snapshot) -> str | None:
    for task in snapshot.tasks:
        for intr in task.interrupts:
            value = intr.value
            return value.get("question") if isinstance(value, dict) else str(value)
    return None


async def graph_thread_status(thread_id: str, *, settings: Settings) -> str:
    """``none`` | ``paused`` | ``interrupted`` | ``done`` for the thread's graph (creates no file)."""
    if settings.database_url is None and not settings.checkpoint_path.exists():
        return "none"
    async with open_checkpointer(settings) as saver:
        graph = graph_builder().compile(checkpointer=saver)
        return _status_of(await graph.aget_state({"configurable": {"thread_id": thread_id}}))


async def graph_thread_states(thread_ids: list[str], *, settings: Settings) -> dict[str, tuple[str, str | None]]:
    """``{thread: (status, clarifying question)}`` for each of ``thread_ids``: the status as
    :func:`graph_thread_status` says it, and the question a ``paused`` thread waits on (else None).

    Reads through :func:`engine.checkpoints.read_checkpointer`: one connection for all, nothing
    written; every thread is ``none`` when there is no checkpoint file yet.

    Raises:
        sqlite3.Error, OSError, engine.database.DatabaseError: the checkpoints cannot be read.
    """
    states: dict[str, tuple[str, str | None]] = {t: ("none", None) for t in thread_ids}
    if not thread_ids:
        return states
    async with read_checkpointer(settings) as saver:
        if saver is None:
            return states
        graph = graph_builder().compile(checkpointer=saver)
        for thread_id in thread_ids:
            snapshot = await graph.aget_state({"configurable": {"thread_id": thread_id}})
            status = _status_of(snapshot)
            states[thread_id] = (status, _pending_question(snapshot) if status == "paused" else None)
    return states


def summary_markdown(values: dict, offline: bool = False) -> str:
    """The chat summary: title, executive summary with ``[n]`` linked to its source when it has a
    web address (:func:`engine.source_links.web_link`), the report's
    notes (``report_notes``, each once) and a closing line of counts in the question's language
    (``language``; :func:`engine.offline_phrases.phrase`: "_2 Quellen zitiert · …_")."""
    cited = {c["number"]: c for c in values.get("cited", [])}

    def link(m: re.Match) -> str:
        c = cited.get(int(m.group(1)))
        link = web_link(c["url"]) if c else None  # a corpus document or a shared file: no link
        return f"[[{m.group(1)}]]({link})" if link else m.group(0)

    summary = re.sub(r"\[(\d+)\](?!\()", link, values.get("executive_summary", ""))
    lines = [f"**{markdown_literal(values.get('title') or 'Research report')}**", "", summary]
    errors = values.get("research_errors", [])
    for note in dict.fromkeys(values.get("report_notes") or []):  # e.g. cut at the model's output limit
        lines += ["", note]
    language = values.get("language") or "en"
    counts = [phrase("chat_cited", language, len(cited), n=str(len(cited)))]
    if errors:
        counts.append(phrase("chat_failed", language, len(errors), n=str(len(errors))))
    if offline:
        counts.append(phrase("chat_offline", language))
    lines += ["", f"_{' · '.join(counts)}_"]
    return "\n".join(lines).strip()


def _artifacts(paths: dict, settings: Settings) -> Artifacts:
    """The run's files as paths on this host: a run rendered on another host (its paths in the
    checkpoint name that host's data dir) is read through the artifact store into this one's."""
    store = artifact_store(settings)

    def here(key: str) -> Path | None:
        if not paths.get(key):
            return None
        return store.local(paths[key]) or Path(paths[key])

    report_md = store.local(paths["report_md"]) or Path(paths["report_md"])
    return Artifacts(
        directory=report_md.parent, report_md=report_md,
        sources_json=here("sources_json") or report_md.parent / "sources.json",
        usage_json=here("usage_json") or report_md.parent / "usage.json",
        review_md=here("review_md"), report_tex=here("report_tex"), pdf=here("pdf"),
        pdf_error=paths.get("pdf_error"), pdf_log_tail=paths.get("pdf_log_tail"),
        docx=here("docx"), docx_error=paths.get("docx_error"),
        pdf_warnings=list(paths.get("pdf_warnings") or []),
    )


async def run_graph_turn(
    thread_id: str, *, question: str | None, answer: str | None, settings: Settings,
    on_progress: ProgressCallback | None, cancel: asyncio.Event | None, context: str | None,
    resume_only: bool, discussion: str | None = None, on_report: ReportCallback | None = None,
) -> TurnOutcome:
    """Implementation of :func:`engine.runner.run_turn` (see there for the contract).

    Raises:
        engine.database.DatabaseUnavailable: PostgreSQL could not be reached (its errors, a pool
            timeout included, are raised as this one line naming ``DATABASE_URL``; the run is
            resumable from its last checkpoint).
    """
    try:
        return await _graph_turn(thread_id, question=question, answer=answer, settings=settings,
                                 on_progress=on_progress, cancel=cancel, context=context, resume_only=resume_only,
                                 discussion=discussion, on_report=on_report)
    except Exception as err:
        from engine.database import DatabaseError, database_url, explain, is_unavailable

        if settings.database_url is None or isinstance(err, DatabaseError) or not is_unavailable(err):
            raise
        raise explain(err, database_url(settings)) from err


async def _run_context(settings: Settings, search, store, directory: Path, thread_id: str,
                       run_id: str) -> tuple[RunContext, list]:
    """The context of run ``run_id`` of ``thread_id`` in its folder ``directory`` (made here): the thread's
    shared files (also returned, as :func:`engine.files.thread_search` lists them), the graph's ``store``
    and, under ``DEEPRESEARCH_MAX_RUN_TOKENS``, the tokens its earlier turns spent."""
    ctx = RunContext.create(settings, search, directory)
    ctx.thread_files, shared = await asyncio.to_thread(thread_search, settings, thread_id)
    ctx.files_prompt = files_prompt(shared)
    ctx.store, ctx.store_namespace = store, source_namespace(thread_id, run_id)
    if settings.max_run_tokens is not None:  # the budget counts the earlier turns of the run too
        total = summarize_usage(directory / "usage.jsonl")["total"]
        ctx.tokens_used = total["input_tokens"] + total["output_tokens"]
    return ctx, shared


async def _graph_turn(
    thread_id: str, *, question: str | None, answer: str | None, settings: Settings,
    on_progress: ProgressCallback | None, cancel: asyncio.Event | None, context: str | None,
    resume_only: bool, discussion: str | None, on_report: ReportCallback | None,
) -> TurnOutcome:
    """:func:`run_graph_turn` without its one-line database errors."""
    settings.require_model()
    search = get_search_backend(settings)
    config: dict = {"configurable": {"thread_id": thread_id}, "recursion_limit": 250,
                    "max_concurrency": settings.max_concurrent_research_units}
    async with open_checkpointer(settings) as saver, open_store(settings) as store:
        graph = graph_builder().compile(checkpointer=saver, store=store)
        snapshot = await graph.aget_state(config)
        if resume_only and question is None and answer is None and _status_of(snapshot) in ("done", "paused"):
            return await _settled(snapshot, thread_id, snapshot.values["run_id"], settings)
        graph_input, run_id, turn = _turn_input(snapshot, thread_id, question=question, answer=answer,
                                                context=context, resume_only=resume_only,
                                                discussion=discussion)

        if cancel is not None and cancel.is_set():  # cancelled while the graph was opened: no run folder made
            raise RunCancelled("the research was cancelled before it started")
        directory = run_dir(settings, thread_id, run_id)
        ctx, shared = await _run_context(settings, search, store, directory, thread_id, run_id)
        config["callbacks"] = [TokenCounter(ctx), UsageRecorder(directory / "usage.jsonl", turn=f"{turn}:{datetime.now(UTC).isoformat(timespec='seconds')}",
                                             sink=functools.partial(artifact_store(settings).add_usage, directory))]
        progress = Progress(files=shared)
        log.info("event=turn_start thread=%s run=%s turn=%s", thread_id, run_id, turn)

        async def consume(graph_input) -> None:
            # a run continued from its checkpoint counts what the research did before, in any process
            continued = graph_input is None or turn != "start"
            restore_progress(progress, await graph.aget_state(config, subgraphs=True) if continued else None)
            progress.waiting = ""  # the checkpoint was read: a wait for the database is over
            if continued and on_progress:
                on_progress(progress)
            async for _ns, mode, chunk in graph.astream(
                graph_input, config, stream_mode=["custom"], subgraphs=True, context=ctx,
                durability="sync",  # each step's checkpoint is on disk before the next step starts
            ):
                if mode == "custom" and isinstance(chunk, dict):
                    _streamed(chunk, progress, on_progress, on_report)

        def waiting(text: str) -> None:
            progress.waiting = text
            if on_progress:
                on_progress(progress)

        await _run_cancellable(_through_database_outages(consume, graph_input, graph, config, snapshot, settings,
                                                         waiting), cancel, ctx.cancelled)
        snapshot = await graph.aget_state(config)
        if _status_of(snapshot) not in ("done", "paused"):
            raise RuntimeError(f"the research in {thread_id} stopped before its report was written")
        return await _settled(snapshot, thread_id, run_id, settings)


def _streamed(chunk: dict, progress: Progress, on_progress: ProgressCallback | None,
              on_report: ReportCallback | None) -> None:
    """One custom event the graph streamed: ``report_ready`` (the report's summary and paths, before the
    files are typeset) goes to ``on_report``; any other is a progress event applied to ``progress``,
    which goes to ``on_progress``."""
    if chunk.get("event") == "report_ready":
        if on_report:
            on_report({k: v for k, v in chunk.items() if k != "event"})
        return
    progress.apply(chunk)
    if on_progress:
        on_progress(progress)


async def _through_database_outages(consume, graph_input, graph, config: dict, before, settings: Settings,
                                    on_wait: Callable[[str], None]) -> None:
    """Await ``consume(graph_input)``; when PostgreSQL cannot be reached in the middle of it
    (:func:`engine.database.is_unavailable`: a restart or failover closing a query's session, which
    the pool's check of idle connections cannot catch), wait and run the graph again from its last
    checkpoint, up to :data:`engine.database.DATABASE_TRIES` tries in all (:func:`engine.database.outage_retries`;
    a try meeting a server still down also waits for the pool's 30 s timeout, so a turn gives up after
    about two minutes and raises, for the queue's own retry), telling ``on_wait`` what it waits for
    (the progress line shows it). Steps that had finished are not run again;
    the input is sent again only when no checkpoint was written after ``before`` (the snapshot the
    turn started from).

    Raises:
        What ``consume`` raises: at once for any other error, or the last database error.
    """
    if settings.database_url is None:
        await consume(graph_input)
        return
    from tenacity import AsyncRetrying

    from engine import database

    def resuming(state) -> None:  # the progress line shows the wait (on_wait)
        log.warning("event=run_resumed_after_database_outage try=%d error=%s", state.attempt_number + 1,
                    type(state.outcome.exception()).__name__, extra=outage("PostgreSQL", shown=True))
        on_wait(f"the database did not answer; trying again ({state.attempt_number + 1} of {database.DATABASE_TRIES})")

    async for attempt in AsyncRetrying(**database.outage_retries(before_sleep=resuming)):
        with attempt:
            if attempt.retry_state.attempt_number > 1 and _checkpoint_id(await graph.aget_state(config)) != _checkpoint_id(before):
                graph_input = None  # the turn's input is in the checkpoints: continue from the last one
            await consume(graph_input)
    if attempt.retry_state.attempt_number > 1:
        log.warning("event=run_recovered_after_database_outage tries=%d", attempt.retry_state.attempt_number,
                    extra=recovery("PostgreSQL"))


def _checkpoint_id(snapshot) -> str | None:
    """The id of the checkpoint a state snapshot was read from (None for a thread without one)."""
    return ((snapshot.config or {}).get("configurable") or {}).get("checkpoint_id")


async def _settled(snapshot, thread_id: str, run_id: str, settings: Settings) -> TurnOutcome:
    """The outcome of a graph that is paused on its question (``clarify``) or done (the files)."""
    if _status_of(snapshot) == "paused":
        return TurnOutcome(status="clarify", thread_id=thread_id, run_id=run_id,
                           question=_pending_question(snapshot), offline=settings.llm_backend == "offline")
    return await asyncio.to_thread(_outcome, snapshot.values, thread_id, run_id, settings)


def _turn_input(snapshot, thread_id: str, *, question: str | None, answer: str | None, context: str | None,
                resume_only: bool, discussion: str | None = None) -> tuple[object, str, str]:
    """``(graph input, run id, turn kind)`` for a new question (``discussion``: the chat thread's
    earlier messages, as context), an answer or a continuation.

    Raises:
        TurnRejected: nothing paused to answer, an empty or overlong answer, an unknown thread.
    """
    status = _status_of(snapshot)
    if question is not None:
        run_id = new_run_id()
        return (_fresh_input(validate_question(question), context, run_id, discussion, new_thread=status == "none"),
                run_id, "start")
    if answer is not None:
        if status != "paused":
            raise TurnRejected("rejected_no_question")
        reply = (answer or "").strip()
        if not reply:
            raise TurnRejected("rejected_answer_empty")
        if len(reply) > MAX_QUESTION_CHARS:
            raise TurnRejected("rejected_answer_too_long", limit=MAX_QUESTION_CHARS)
        return Command(resume=reply), snapshot.values["run_id"], "resume"
    if resume_only:
        if status == "none":
            raise TurnRejected("rejected_unknown_thread", thread_id=thread_id)
        return None, snapshot.values["run_id"], "continue"
    raise TurnRejected("rejected_nothing_to_do")


async def _run_cancellable(coro, cancel: asyncio.Event | None, stop_threads=None) -> None:
    """Await ``coro``; if ``cancel`` is set first, cancel it and raise :class:`RunCancelled`.

    ``stop_threads`` (a ``threading.Event``) is set too, so work in threads (the PDF build)
    stops at once instead of finishing first.
    """
    task = asyncio.ensure_future(coro)
    if cancel is None:
        await task
        return
    waiter = asyncio.ensure_future(cancel.wait())
    try:
        done, _ = await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:  # this task cancelled (Ctrl-C, a stopping worker): the run stops with it,
        # before the caller closes the checkpointer under it (else its writes fail, unseen, later)
        await _cancel_and_wait(task)
        raise
    finally:
        waiter.cancel()
    if task in done:
        task.result()
        return
    if stop_threads is not None:
        stop_threads.set()
    await _cancel_and_wait(task)
    raise RunCancelled("the research was cancelled")


async def _cancel_and_wait(task: asyncio.Future) -> None:
    """Cancel ``task`` and wait until it has stopped (shielded, so a second cancel of the caller
    cannot leave it running); what it raises on the way out is logged, not raised."""
    task.cancel()
    try:
        await asyncio.shield(asyncio.wait({task}))
    except asyncio.CancelledError:
        await asyncio.wait({task})
    if not task.cancelled() and task.exception() is not None:
        log.warning("event=cancelled_run_failed error=%s", quoted(task.exception(), 300))


def _outcome(values: dict, thread_id: str, run_id: str, settings: Settings) -> TurnOutcome:
    arts = _artifacts(values["artifacts"], settings) if values.get("artifacts") else None
    return TurnOutcome(
        status="done", thread_id=thread_id, run_id=run_id,
        summary=summary_markdown(values, offline=settings.llm_backend == "offline"),
        title=values.get("title"), artifacts=arts, errors=list(values.get("research_errors", [])),
        notes=list(dict.fromkeys(values.get("report_notes") or [])),
        offline=settings.llm_backend == "offline", follow_ups=list(values.get("follow_ups") or []),
    )
