"""Graph states: the main thread state, the supervisor's and the researcher's (with their own outputs)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AnyMessage
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


class AgentState(TypedDict, total=False):
    """The thread's state, checkpointed after every node.

    ``messages`` is the conversation with the user (question, clarifying question, answer);
    ``sources`` the registry ``{id: {"id","url","title","topic"}}`` (each page's summary and
    excerpts are in the run's store, :mod:`engine.graph.sources`);
    ``notes`` one compressed Markdown block per research unit (``### topic`` + notes citing
    ``[Sxxxxxx]``); ``report``, the review's entries and the synthesis cite by those ids too;
    ``discussion`` the chat thread's earlier messages (``Name: text`` lines, "" when none);
    ``numbering`` is the delivered report's ``{id: n}`` (set by finalize), ``removed_markers``
    the bracketed ids it dropped because no source has them; ``follow_ups`` the follow-up
    questions the summary suggests (at most three, from the review's open objections);
    ``report_notes`` lines the report and the chat summary carry about how it was written (an
    answer the model stopped at its output limit, :mod:`engine.graph.output_limit`).
    """

    messages: Annotated[list[AnyMessage], override_messages]
    run_id: str
    question: str
    language: str
    context: str
    discussion: str
    clarification_rounds: int
    pending_question: str
    research_brief: str
    supervisor_messages: Annotated[list[AnyMessage], override_messages]
    research_iterations: int
    notes: Annotated[list[str], override_reducer]
    sources: Annotated[dict, merge_sources]
    research_errors: Annotated[list[str], override_reducer]
    report_notes: Annotated[list[str], override_reducer]
    units_done: Annotated[list[str], override_reducer]
    numbering: dict
    report: str
    review_messages: Annotated[list[AnyMessage], override_messages]
    review_phase: str
    review_iteration: int
    solutions: Annotated[list[str], override_reducer]
    critiques: Annotated[list[str], override_reducer]
    perspectives: Annotated[list[str], override_reducer]
    visited: Annotated[list[str], override_reducer]
    review_stamps: Annotated[list[str], override_reducer]
    removed_markers: list[str]
    final_report: str
    cited: list[dict]
    title: str
    executive_summary: str
    follow_ups: list[str]
    artifacts: dict


class SupervisorState(TypedDict, total=False):
    """The supervisor subgraph's state: only the brief and the compressed results, never raw pages."""

    supervisor_messages: Annotated[list[AnyMessage], override_messages]
    research_brief: str
    language: str
    research_iterations: int
    notes: Annotated[list[str], override_reducer]
    sources: Annotated[dict, merge_sources]
    research_errors: Annotated[list[str], override_reducer]
    units_done: Annotated[list[str], override_reducer]


class ResearchUnit(TypedDict):
    """What one ``Send`` to ``research_unit`` carries."""

    topic: str
    tool_call_id: str
    language: str


class ResearcherState(TypedDict, total=False):
    """A researcher's own state; its messages (with raw search output) stay inside the subgraph."""

    researcher_messages: Annotated[list[AnyMessage], operator.add]
    topic: str
    language: str
    tool_call_iterations: int
    sources: Annotated[dict, merge_sources]
    compressed_research: str
    research_errors: Annotated[list[str], operator.add]


class ResearcherOutput(TypedDict, total=False):
    """What a researcher hands back: compressed notes, the sources they cite, what it could not do."""

    compressed_research: str
    sources: dict
    research_errors: list[str]
