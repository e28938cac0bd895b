"""Page summaries for one run: each page summarised once, short pages kept as they are.

A page is keyed by its URL and a SHA-256 of its raw text, so the same page found by another
query, researcher or review role reuses the summary (or waits for the one under way) instead of
being summarised again. Pages whose raw text is under ``DEEPRESEARCH_SUMMARY_MIN_TOKENS``
(estimated by :func:`engine.compat.estimate_tokens`) are used as they are: the summary prompt
and its answer (a summary and up to five excerpts) would cost more tokens than the page itself.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

#: ``(summary, key excerpts)`` of one page.
Summary = tuple[str, list[str]]


@dataclass
class SummaryCache:
    """Run-wide cache of page summaries, safe for concurrent callers on one event loop.

    Attributes:
        hits: lookups answered by a summary already made or under way.
        summarised: summaries started (one model call each, retries aside).
        kept_as_is: pages used as they are because their raw text is short.
    """

    hits: int = 0
    summarised: int = 0
    kept_as_is: int = 0
    _tasks: dict[tuple[str, str], asyncio.Future] = field(default_factory=dict)

    @staticmethod
    def key(url: str, raw: str) -> tuple[str, str]:
        """The cache key of a page: its URL and the SHA-256 of its raw text."""
        return url, hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()

    async def get(self, url: str, raw: str, make: Callable[[], Awaitable[Summary]]) -> Summary:
        """The summary of the page ``(url, raw)``: cached, under way, or made now by ``make()``.

        A caller that is cancelled does not cancel the summary others wait for (it is shielded);
        a summary that was itself cancelled is made again on the next lookup.
        """
        key = self.key(url, raw)
        task = self._tasks.get(key)
        if task is None or task.cancelled():
            task = asyncio.ensure_future(make())
            self._tasks[key] = task
            self.summarised += 1
        else:
            self.hits += 1
        return await asyncio.shield(task)

    def counts(self) -> dict[str, int]:
        """``{"hits", "summarised", "kept_as_is"}`` so far."""
        return {"hits": self.hits, "summarised": self.summarised, "kept_as_is": self.kept_as_is}

    def cancel_pending(self) -> None:
        """Cancel summaries still under way (the run is over or cancelled)."""
        for task in self._tasks.values():
            if not task.done():
                task.cancel()
