"""Structured outputs and tool schemas the models answer with (open_deep_research's names)."""

from __future__ import annotations

from langchain_core.tools import tool
from pydantic import BaseModel, Field


class ClarifyWithUser(BaseModel):
    """Whether to ask the user one clarifying question before researching."""

    need_clarification: bool = Field(description="True to ask a question first.")
    question: str = Field(default="", description="The clarifying question, empty if none.")
    verification: str = Field(default="", description="Acknowledgement that research starts.")


class ResearchQuestion(BaseModel):
    """The research brief that guides the supervisor."""

    research_brief: str = Field(description="The brief, in the first person, in the user's language.")


class ConductResearch(BaseModel):
    """Delegate one self-contained research topic to a researcher."""

    research_topic: str = Field(description="The topic, described in a full paragraph.")


class ResearchComplete(BaseModel):
    """Signal that the research is complete."""


class Summary(BaseModel):
    """A document summarized for a researcher."""

    summary: str = Field(description="The summary.")
    key_excerpts: list[str] = Field(default_factory=list, description="Up to five verbatim quotes.")


class ExecutiveSummary(BaseModel):
    """The report's title, executive summary and suggested follow-up questions."""

    title: str = Field(description="At most 12 words, without citations.")
    executive_summary: str = Field(description="At most 150 words of Markdown.")
    follow_up_questions: list[str] = Field(
        default_factory=list,
        description="Up to three follow-up research questions from the review's open objections; "
                    "one sentence each, no citations.")


@tool(description="Record a reflection on the research so far: what was found, what is missing, what next.")
def think_tool(reflection: str) -> str:
    """Return the reflection as recorded (the value is in the model writing it down)."""
    return f"Reflection recorded: {reflection}"
