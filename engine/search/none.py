"""The `none` search back-end: searches nothing, so research runs on the model's own knowledge."""

from __future__ import annotations

from engine.search.base import SearchResult


class NoSearch:
    """A back-end that never finds anything.

    Every search returns [], so no source enters the registry and the report says that no
    sources were found.
    """

    name = "none"

    async def search(self, query: str, max_results: int = 5) -> list[SearchResult]:
        """Return [] for any ``query``; never raises."""
        return []

    async def aclose(self) -> None:
        """Nothing to release."""
