"""The run's token budget (``DEEPRESEARCH_MAX_RUN_TOKENS``): research stops at a topic boundary."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult

from engine.graph.context import RunContext

#: Share of ``max_run_tokens`` after which no new research topic starts; the rest is kept for the
#: report, the review and the summary (on the bench's standard run they take about a quarter).
RESEARCH_SHARE = 0.7


class TokenCounter(BaseCallbackHandler):
    """Adds each model call's tokens (``usage_metadata``: input and output) to ``ctx.tokens_used``."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx

    def on_llm_end(self, response: LLMResult, **kw: Any) -> None:
        """Count the call's tokens; a response without usage counts nothing."""
        try:
            usage = response.generations[0][0].message.usage_metadata or {}  # type: ignore[attr-defined]
        except (IndexError, AttributeError):
            return
        self.ctx.tokens_used += int(usage.get("input_tokens", 0)) + int(usage.get("output_tokens", 0))


def research_over_budget(ctx: RunContext) -> bool:
    """True once the run has used :data:`RESEARCH_SHARE` of ``max_run_tokens`` (never when unlimited)."""
    limit = ctx.settings.max_run_tokens
    return limit is not None and ctx.tokens_used >= RESEARCH_SHARE * limit


def not_covered(topics: list[str], ctx: RunContext) -> list[str]:
    """The ``research_errors`` entries naming ``topics`` as not researched for the token budget."""
    return [f"{topic[:120]}: not researched: the run's token budget (DEEPRESEARCH_MAX_RUN_TOKENS="
            f"{ctx.settings.max_run_tokens}) was nearly used up ({ctx.tokens_used} tokens)." for topic in topics]
