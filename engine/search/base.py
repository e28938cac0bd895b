"""The search back-end interface shared by Tavily, the local corpus and `none`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from engine.bounds import ServiceTimeout
from engine.text import one_line

#: The longest title a source keeps, in characters: a page's <title> can be a whole article (a
#: broken CMS), and a title goes into report.md, sources.json, the PDF and the Word document.
TITLE_CHARS = 300


class SearchError(Exception):
    """A search back-end could not answer (unreachable, missing index, bad credentials).

    The message is safe to show a user: it never contains a secret.
    """


class SearchTimeout(ServiceTimeout, SearchError):
    """The search service did not answer within ``DEEPRESEARCH_NODE_TIMEOUT``, retries included."""


@dataclass
class SearchResult:
    """One document a search returned.

    Attributes:
        url: the citation key: a web URL, a corpus document's path relative to its folder
            (percent-encoded: :func:`engine.source_links.document_url`), or a shared file's link.
        title: a human title, on one line of at most :data:`TITLE_CHARS` characters (cut with "…").
        content: the back-end's snippet (a few hundred characters).
        raw_content: the full text when the back-end has it, else None.
        score: the back-end's relevance score (higher is better), 0 when unknown.
    """

    url: str
    title: str
    content: str
    raw_content: str | None = None
    score: float = 0.0
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.title = one_line(self.title, TITLE_CHARS)


class SearchBackend(Protocol):
    """A search back-end; one instance (and one HTTP client) per process."""

    name: str

    async def search(self, query: str, max_results: int = 5) -> list[SearchResult]:
        """Return up to ``max_results`` documents for ``query``.

        Raises:
            SearchError: the back-end cannot answer.
        """
        ...

    async def aclose(self) -> None:
        """Release the back-end's connections."""
        ...


class Unreadable(Exception):
    """A file that cannot be indexed; the message is the reason (one short line)."""
