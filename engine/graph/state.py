"""Graph states: the main thread state, the supervisor's and the researcher's (with their own outputs)."""

from __future__ import annotations

import functools
import operator
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.channels import DeltaChannel
from langgraph.graph.message import add_messages

from engine.citations import merge_sources


def override_reducer(current: list | None, new: Any) -> list:
    """Append, unless ``new`` is ``{"type": "override", "value": [...]}`` (then replace).

    open_deep_research's override reducer: it lets a new research in a thread reset lists.
    """
    if isinstance(new, dict) and new.get("type") == "override":
        return list(new.get("value") or [])
    return list(current or []) + list(new or [])


def override_messages(current: list | None, new: Any) -> list:
    """``add_messages``, with the same override form to reset the list."""
    if isinstance(new, dict) and new.get("type") == "override":
        return add_messages([], list(new.get("value") or []))
    return add_messages(current or [], new)


def override(value: Any) -> dict:
    """The update that replaces a reducer-managed field instead of appending to it."""
    return {"type": "override", "value": value}


def append_batch(current: list | None, writes: list) -> list:
    """:func:`override_reducer` over a batch of writes, oldest first (a ``DeltaChannel`` reducer)."""
    return functools.reduce(override_reducer, writes, list(current or []))


def messages_batch(current: list | None, writes: list) -> list:
    """:func:`override_messages` over a batch of writes, oldest first (a ``DeltaChannel`` reducer)."""
    return functools.reduce(override_messages, writes, list(current or []))


def sources_batch(current: dict | None, writes: list) -> dict:
    """:func:`engine.citations.merge_sources` over a batch of writes (a ``DeltaChannel`` reducer)."""
    return functools.reduce(merge_sources, writes, dict(current or {}))


def concat_batch(current: list | None, writes: list) -> list:
    """Lists concatenated, oldest first (``operator.add`` as a ``DeltaChannel`` reducer)."""
    return functools.reduce(operator.add, (list(w or []) for w in writes), list(current or []))


# The large channels that only grow within a run (the messages, notes and sources) are LangGraph
# ``DeltaChannel``s: a checkpoint does not copy their whole value again, LangGraph rebuilds it from
# the writes it already keeps (the nodes' updates), folded with the same reducer. Each reducer is
# a fold of the pairwise one, so replaying writes in larger batches gives the same value. Small
# lists stay ordinary reducer channels: each delta channel adds a counter to every checkpoint's
# metadata, which costs more than a short list.
Log = Annotated[list[str], override_reducer]
Notes = Annotated[list[str], DeltaChannel(append_batch)]
Messages = Annotated[list[AnyMessage], DeltaChannel(messages_batch)]
Sources = Annotated[dict, DeltaChannel(sources_batch)]


class AgentState(TypedDict, total=False):
    """The thread's state, checkpointed after every node.

    ``messages`` is the conversation with the user (question, clarifying question, answer);
    ``sources`` the registry ``{id: {"id","url","title","topic","text_key"}}`` (each page's summary
    and excerpts are in the run's store under ``text_key``, :mod:`engine.graph.sources`);
    ``notes`` one compressed Markdown block per research unit (``### topic`` + notes citing
    ``[Sxxxxxx]``); ``report``, the review's entries and the synthesis cite by those ids too;
    ``discussion`` the chat thread's earlier messages (``Name: text`` lines, "" when none);
    ``numbering`` is the delivered report's ``{id: n}`` (set by finalize), ``removed_markers``
    the bracketed ids it dropped because no source has them; ``follow_ups`` the follow-up
    questions the summary suggests (at most three, from the review's open objections);
    ``report_notes`` lines the report and the chat summary carry about how it was written (an
    answer the model stopped at its output limit, :mod:`engine.graph.output_limit`).
    """

    messages: Messages
    run_id: str
    question: str
    language: str
    context: str
    discussion: str
    clarification_rounds: int
    pending_question: str
    research_brief: str
    supervisor_messages: Messages
    research_iterations: int
    notes: Notes
    sources: Sources
    research_errors: Log
    report_notes: Log
    units_done: Log
    numbering: dict
    report: str
    review_messages: Messages
    review_phase: str
    review_iteration: int
    solutions: Log
    critiques: Log
    perspectives: Log
    visited: Log
    review_stamps: Log
    removed_markers: list[str]
    final_report: str
    cited: list[dict]
    title: str
    executive_summary: str
    follow_ups: list[str]
    artifacts: dict


class SupervisorState(TypedDict, total=False):
    """The supervisor subgraph's state: only the brief and the compressed results, never raw pages."""

    supervisor_messages: Messages
    research_brief: str
    language: str
    research_iterations: int
    notes: Notes
    sources: Sources
    research_errors: Log
    units_done: Log


class ResearchUnit(TypedDict, total=False):
    """What one ``Send`` to ``research_unit`` carries: the topic, the call it answers, the language,
    and the run's research brief (what every page found is summarised for,
    :func:`engine.graph.researcher.run_search`; absent in units sent before it was carried)."""

    topic: str
    tool_call_id: str
    language: str
    brief: str


class ResearcherState(TypedDict, total=False):
    """A researcher's own state; its messages (with raw search output) stay inside the subgraph."""

    researcher_messages: Annotated[list[AnyMessage], DeltaChannel(concat_batch)]
    topic: str
    brief: str
    language: str
    tool_call_iterations: int
    sources: Sources
    compressed_research: str
    research_errors: Annotated[list[str], operator.add]


class ResearcherOutput(TypedDict, total=False):
    """What a researcher hands back: compressed notes, the sources they cite, what it could not do."""

    compressed_research: str
    sources: dict
    research_errors: list[str]
