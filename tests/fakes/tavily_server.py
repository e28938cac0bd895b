"""A fake Tavily Search API server on 127.0.0.1 speaking what tavily-python's clients send."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.fakes.loopback import CallRecord, HTTPAnswer, LoopbackServer

# Tavily answers a query over 400 characters with this 400 (observed API behaviour, reported in
# e.g. assafelovic/gpt-researcher#1263; docs.tavily.com best practices: "keep your query under
# 400 characters").
MAX_QUERY_CHARS = 400


@dataclass(frozen=True)
class TavilyError:
    """An error answer: HTTP ``status`` with Tavily's body ``{"detail": {"error": message}}``."""

    status: int
    message: str

    @classmethod
    def unauthorized(cls) -> TavilyError:
        """401: missing or wrong API key."""
        return cls(401, "Unauthorized: missing or invalid API key.")

    @classmethod
    def rate_limited(cls) -> TavilyError:
        """429: too many requests (transient)."""
        return cls(429, "Your request has been blocked due to excessive requests. Please reduce rate of requests.")

    @classmethod
    def plan_limit(cls) -> TavilyError:
        """432: the plan's credit limit is used up (not transient)."""
        return cls(432, "This request exceeds your plan's set usage limit. Please upgrade your plan or "
                        "contact support@tavily.com")

    @classmethod
    def server_error(cls, status: int = 500) -> TavilyError:
        """5xx: a server-side failure (transient)."""
        return cls(status, "Internal Server Error")

    @classmethod
    def query_too_long(cls) -> TavilyError:
        """400: the query is longer than 400 characters."""
        return cls(400, f"Query is too long. Max query length is {MAX_QUERY_CHARS} characters.")


SearchHandler = Callable[[str, dict], "list[dict] | TavilyError"]

_WORD = re.compile(r"[A-Za-z0-9]+")


def slug(query: str, words: int = 6) -> str:
    """A URL slug from the first ``words`` alphanumeric words of ``query`` (``"query"`` if none)."""
    return "-".join(w.lower() for w in _WORD.findall(query)[:words]) or "query"


def made_up_pages(query: str, count: int) -> list[dict]:
    """``count`` deterministic pages about ``query``: ``https://example.org/<slug>-<n>``, n from 1."""
    topic = " ".join(_WORD.findall(query)[:8]) or "the topic"
    pages = []
    for n in range(1, count + 1):
        paragraphs = [
            f"# {topic.title()}: part {n}",
            f"This page discusses {topic}. It is source number {n} for the query and gives background, "
            f"definitions and the main open questions about {topic}.",
            f"Fact {n}.1: studies of {topic} report a measurable effect in {2000 + n} and again in {2010 + n}. "
            f"Fact {n}.2: experts disagree on how {topic} should be measured.",
            f"In summary, {topic} matters for practitioners; source {n} recommends further reading.",
        ]
        pages.append({
            "url": f"https://example.org/{slug(query)}-{n}",
            "title": f"{topic.title()}: part {n}",
            "content": f"{paragraphs[1]} {paragraphs[2]}",
            "score": round(max(0.05, 0.95 - 0.07 * (n - 1)), 4),
            "raw_content": "\n\n".join(paragraphs),
            "favicon": None,
        })
    return pages


def default_search_handler(query: str, body: dict) -> list[dict]:
    """Made-up pages for ``query``; as many as the request's ``max_results`` (Tavily's default 5)."""
    return made_up_pages(query, int(body.get("max_results") or 5))


class FakeTavily(LoopbackServer):
    """A fake Tavily API: ``POST /search`` (auth ``Authorization: Bearer <key>``).

    ``handler(query, body) -> list[dict] | TavilyError`` scripts results; missing result fields
    are filled in. ``results_per_query`` caps how many results are returned (besides the
    request's ``max_results``). ``fail_next(error, times)`` makes the next calls fail first.
    ``base_url`` (``http://127.0.0.1:PORT``) is what ``AsyncTavilyClient(api_base_url=...)`` takes.
    """

    def __init__(self, handler: SearchHandler | None = None, *, latency: float = 0.0, api_key: str | None = None,
                 results_per_query: int | None = None) -> None:
        """See the class docstring."""
        super().__init__(latency=latency, api_key=api_key)
        self.handler: SearchHandler = handler or default_search_handler
        self.results_per_query = results_per_query
        self._failures: list[TavilyError] = []
        self._fail_lock = threading.Lock()

    def fail_next(self, error: TavilyError, times: int = 1) -> None:
        """Answer the next ``times`` searches with ``error`` before the handler runs again."""
        with self._fail_lock:
            self._failures.extend([error] * times)

    @property
    def queries(self) -> list[str]:
        """The ``query`` of every recorded search, in arrival order."""
        return [c.body.get("query", "") for c in self.calls if isinstance(c.body, dict)]

    def unauthorized(self) -> HTTPAnswer:
        """Tavily's 401 body."""
        err = TavilyError.unauthorized()
        return HTTPAnswer(err.status, {"detail": {"error": err.message}})

    def route(self, method: str, path: str, body: Any, record: CallRecord) -> HTTPAnswer:
        """Answer ``POST /search``; anything else is a 404."""
        started = time.monotonic()
        if method != "POST" or path != "/search" or not isinstance(body, dict):
            return HTTPAnswer(404, {"detail": "Not Found"})
        query = str(body.get("query") or "")
        with self._fail_lock:
            outcome: list[dict] | TavilyError | None = self._failures.pop(0) if self._failures else None
        if outcome is None and len(query) > MAX_QUERY_CHARS:
            outcome = TavilyError.query_too_long()
        if outcome is None:
            outcome = self.handler(query, body)
        record.reply = outcome
        if isinstance(outcome, TavilyError):
            return HTTPAnswer(outcome.status, {"detail": {"error": outcome.message}})
        limit = int(body.get("max_results") or 5)
        if self.results_per_query is not None:
            limit = min(limit, self.results_per_query)
        raw = bool(body.get("include_raw_content"))
        results = [{
            "url": r["url"], "title": r.get("title", ""), "content": r.get("content", ""),
            "score": r.get("score", 0.5), "raw_content": r.get("raw_content") if raw else None,
            **({"favicon": r.get("favicon")} if body.get("include_favicon") else {}),
        } for r in outcome[:limit]]
        answer = {"query": query, "follow_up_questions": None, "answer": None, "images": [], "results": results,
                  "response_time": round(time.monotonic() - started + self.latency, 2),
                  "request_id": f"fake-{len(self.calls):06d}"}
        if body.get("include_usage"):
            answer["usage"] = {"credits": 2 if body.get("search_depth") == "advanced" else 1}
        return HTTPAnswer(200, answer)
