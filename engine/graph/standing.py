"""Where a research stands in its checkpoint: the progress a resumed or continued run starts from.

A run stopped in the middle (a worker handed its turn back, a process was killed, the queue lost its
job, the database went away) is resumed from its last checkpoint by another attempt, often in another
process. That attempt sees only the events of the steps it runs itself, so its progress line starts
from what the checkpoint holds, not from zero. While the research runs, the topics and sources exist
only in the supervisor subgraph's state (the main graph gets them when the subgraph ends), and a
topic finished in the step that was cut short only as that step's pending write; both are read here.
"""

from __future__ import annotations

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.types import StateSnapshot

from engine.graph.supervisor import FAILED_UNIT
from engine.progress import Progress

#: The main graph's node that runs the supervisor subgraph, and the subgraph's node of one topic
#: (:mod:`engine.graph.build`, :mod:`engine.graph.supervisor`).
SUPERVISOR_NODE = "research_supervisor"
UNIT_NODE = "research_unit"


def restore_progress(progress: Progress, snapshot: StateSnapshot | None) -> None:
    """Set ``progress`` to where the research in ``snapshot`` stands.

    ``snapshot``: the main graph's current state read with ``subgraphs=True`` (so a running
    supervisor's own state is in its task's ``state``), or None for a research not begun. Counted:
    the topics finished (failed ones too) and those asked for and not finished (being researched or
    waiting for a slot; :meth:`engine.progress.Progress.restore` does not count them again when they
    start), the sources in the run's registry and those the topics being researched found (each
    counted once, as the ``sources_found`` events count them), the failed topics' errors, and the
    stage (with the review's round).
    """
    if snapshot is None or not snapshot.values:
        progress.restore()
        return
    values = snapshot.values
    supervisor = _substate(snapshot, SUPERVISOR_NODE)
    levels = [values] if supervisor is None else [values, supervisor.values]
    # the subgraph starts from the main graph's lists and adds to them: the longest is the whole
    done = max((list(level.get("units_done") or []) for level in levels), key=len)
    messages = max((list(level.get("supervisor_messages") or []) for level in levels), key=len)
    pending = _pending_topics(messages, supervisor.next.count(UNIT_NODE)) if supervisor is not None else []
    # a topic being researched has its pages in its researcher's state: they were counted as found
    researchers = [
        task.state.values
        for task in (supervisor.tasks if supervisor is not None else ())
        if task.name == UNIT_NODE and isinstance(task.state, StateSnapshot)
    ]
    sources = {sid for level in [*levels, *researchers] for sid in level.get("sources") or {}}
    phase = _stage(values)
    progress.restore(
        phase=phase,
        done=done,
        pending=pending,
        source_ids=sources,
        errors=_failed_units(messages),
        review_round=int(values.get("review_iteration") or 0) + 1 if phase == "review" else 0,
    )


def _stage(values: dict) -> str:
    """The key of :data:`engine.progress.PHASES` the research in ``values`` (the main graph's) is in."""
    if values.get("final_report"):
        return "finalize"
    if values.get("report"):
        return "review"
    return "research" if values.get("research_brief") else "clarify"


def _substate(snapshot: StateSnapshot, node: str) -> StateSnapshot | None:
    """The own state of the subgraph that ``node``, a task of ``snapshot``, is running (None when it is not)."""
    return next(
        (
            task.state
            for task in snapshot.tasks
            if task.name == node and isinstance(task.state, StateSnapshot)
        ),
        None,
    )


def _pending_topics(messages: list, waiting: int) -> list[str]:
    """The topics of the supervisor's last ``ConductResearch`` calls without a result yet (at most
    ``waiting``, the topic tasks its subgraph has still to run)."""
    last = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    topics = [
        str(call["args"].get("research_topic", "")).strip()
        for call in getattr(last, "tool_calls", None) or []
        if call["name"] == "ConductResearch" and call["id"] not in answered
    ]
    return [topic for topic in topics if topic][:waiting]


def _failed_units(messages: list) -> list[str]:
    """The error of each failed topic, as its ``topic_finished`` event gave it."""
    return [
        m.text[len(FAILED_UNIT) :]
        for m in messages
        if isinstance(m, ToolMessage) and m.name == "ConductResearch" and m.text.startswith(FAILED_UNIT)
    ]
