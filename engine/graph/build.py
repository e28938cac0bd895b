"""The main research graph, assembled: clarify → brief → supervisor → report → review → finalize → render."""

from __future__ import annotations

from functools import lru_cache

from langgraph.graph import END, START, StateGraph

from engine.graph.context import RunContext
from engine.graph.finish import finalize, render_artifacts
from engine.graph.research import (
    after_report,
    clarify_with_user,
    final_report_generation,
    write_research_brief,
)
from engine.graph.review import critique, perspective, review_tools, solution
from engine.graph.state import AgentState
from engine.graph.supervisor import build_supervisor_graph


@lru_cache(maxsize=1)
def graph_builder() -> StateGraph:
    """The uncompiled main graph (compile it with a checkpointer)."""
    g = StateGraph(AgentState, context_schema=RunContext)
    g.add_node("clarify_with_user", clarify_with_user, destinations=("clarify_with_user", "write_research_brief"))
    g.add_node("write_research_brief", write_research_brief)
    g.add_node("research_supervisor", build_supervisor_graph())
    g.add_node("final_report_generation", final_report_generation)
    g.add_node("solution", solution, destinations=("critique", "review_tools"))
    g.add_node("critique", critique, destinations=("perspective", "review_tools"))
    g.add_node("perspective", perspective, destinations=("solution", "finalize", "review_tools"))
    g.add_node("review_tools", review_tools, destinations=("solution", "critique", "perspective"))
    g.add_node("finalize", finalize)
    g.add_node("render_artifacts", render_artifacts)
    g.add_edge(START, "clarify_with_user")
    g.add_edge("write_research_brief", "research_supervisor")
    g.add_edge("research_supervisor", "final_report_generation")
    g.add_conditional_edges("final_report_generation", after_report, ["solution", "finalize"])
    g.add_edge("finalize", "render_artifacts")
    g.add_edge("render_artifacts", END)
    return g
