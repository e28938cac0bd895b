"""The `tavily` search back-end: Tavily's Search API through one shared `AsyncTavilyClient`."""

from __future__ import annotations

import asyncio
import json
import logging
import re

import httpx
from tavily import AsyncTavilyClient
from tavily.errors import (
    BadRequestError,
    ForbiddenError,
    InvalidAPIKeyError,
    UsageLimitExceededError,
)
from tavily.errors import TimeoutError as TavilyTimeoutError
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential, wait_random

from engine.bounds import ServiceTimeout, within
from engine.redact import redact, redact_error, remember_secret
from engine.search.base import SearchError, SearchResult, SearchTimeout

log = logging.getLogger(__name__)

# Tavily answers longer queries with HTTP 400 "Query is too long. Max query length is 400
# characters." (the API's own error); docs.tavily.com, Search best practices: "Keep your query
# under 400 characters".
MAX_QUERY_CHARS = 400
# docs.tavily.com API reference, POST /search: `max_results` is an integer from 0 to 20.
MAX_RESULTS = 20


def cut_query(query: str, limit: int = MAX_QUERY_CHARS) -> str:
    """Collapse whitespace and cut ``query`` to at most ``limit`` characters at a word boundary.

    A single word longer than the whole limit (or a cut that would lose more than half of it)
    is cut mid-word instead.
    """
    text = " ".join(query.split())
    if len(text) <= limit:
        return text
    space = text.rfind(" ", 0, limit + 1)
    return text[:space].rstrip() if space > limit // 2 else text[:limit]


def _is_transient(exc: BaseException) -> bool:
    """Worth retrying: timeouts, transport failures, 429 and 5xx."""
    if isinstance(exc, httpx.HTTPStatusError):
        return exc.response.status_code >= 500
    if isinstance(exc, httpx.UnsupportedProtocol):  # a malformed base URL will not heal
        return False
    # UsageLimitExceededError is tavily-python's 429 (rate limit); 432/433 (plan limits) are
    # ForbiddenError and are not retried.
    return isinstance(exc, TavilyTimeoutError | httpx.TransportError | UsageLimitExceededError)


class TavilySearch:
    """Web search through Tavily (``POST {base_url}/search`` with ``include_raw_content``).

    One ``AsyncTavilyClient`` (one httpx connection pool) serves every search of the process.
    httpx connections cannot cross event loops, so a search from a different event loop than
    the client's (e.g. a second ``asyncio.run``) builds a fresh client.

    Args:
        api_key: the Tavily key (``TAVILY_API_KEY``); sent as a bearer token, never shown.
        base_url: Tavily's API root (``DEEPRESEARCH_TAVILY_URL`` for tests and proxies).
        timeout: seconds per attempt; tavily-python caps it at 120.
        attempts: tries per search for transient errors (timeouts, unreachable, 429, 5xx).
        backoff: first wait between tries in seconds; doubles per try, at most 8 s, plus jitter.
        total: seconds for all tries of one search together, waits included
            (``DEEPRESEARCH_NODE_TIMEOUT``).

    Raises:
        SearchError: ``api_key`` is empty (tavily-python would otherwise go key-less).
    """

    name = "tavily"

    def __init__(self, api_key: str, base_url: str = "https://api.tavily.com", timeout: float = 60.0, *,
                 attempts: int = 3, backoff: float = 0.5, total: float = 300.0) -> None:
        if not api_key:
            raise SearchError("Tavily needs an API key: set TAVILY_API_KEY.")
        remember_secret(api_key)
        self._api_key = api_key
        self._total = total
        self._base_url = base_url.rstrip("/")
        self._timeout = timeout
        self._attempts = max(1, attempts)
        self._backoff = backoff
        self._client: AsyncTavilyClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _get_client(self) -> AsyncTavilyClient:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = AsyncTavilyClient(api_key=self._api_key, api_base_url=self._base_url)
            self._loop = loop
        return self._client

    async def search(self, query: str, max_results: int = 5) -> list[SearchResult]:
        """Return up to ``max_results`` (clamped to 1..20) pages for ``query``, with raw content.

        The query is cut to 400 characters at a word boundary first (see ``cut_query``).

        Raises:
            SearchError: empty query, bad key, plan limit, rejected query, or a transient
                failure that outlasted ``attempts`` tries. The message never holds the key,
                nor does the chained cause (redacted).
            SearchTimeout: no answer within ``total`` seconds, every try included.
        """
        sent = cut_query(query)
        if not sent:
            raise SearchError("Tavily cannot search an empty query.")
        if len(sent) < len(" ".join(query.split())):
            log.info("event=tavily_query_cut chars_in=%d chars_sent=%d", len(query), len(sent))
        count = max(1, min(int(max_results), MAX_RESULTS))
        client = self._get_client()
        tries = [0]
        try:
            async with within(self._total, "Tavily"):
                data = await self._search(client, sent, count, tries)
        except ServiceTimeout as exc:
            self._drop_client(client)
            raise SearchTimeout(exc.service, exc.seconds) from None
        except (InvalidAPIKeyError, ForbiddenError, UsageLimitExceededError, BadRequestError,
                TavilyTimeoutError, httpx.HTTPError, json.JSONDecodeError) as exc:
            raise SearchError(self._describe(exc, tries[0])) from redact_error(exc)
        except asyncio.CancelledError:
            # a request cut off mid-way can leave its pooled connection unusable: the next search
            # (after a cancelled research) gets a fresh client instead of waiting on it
            self._drop_client(client)
            raise
        return self._results(data, sent, count)

    def _drop_client(self, client: AsyncTavilyClient) -> None:
        if self._client is client:
            self._client = None

    async def _search(self, client: AsyncTavilyClient, sent: str, count: int, tries: list[int]) -> object:
        """One search with tenacity's retries of transient errors; ``tries[0]`` counts the tries."""
        async for attempt in AsyncRetrying(
            stop=stop_after_attempt(self._attempts),
            wait=wait_exponential(multiplier=self._backoff, max=8) + wait_random(0, self._backoff / 2),
            retry=retry_if_exception(_is_transient),
            before_sleep=lambda state: log.warning(
                "event=tavily_retry attempt=%d error=%s", state.attempt_number,
                type(state.outcome.exception()).__name__),
            reraise=True,
        ):
            with attempt:
                tries[0] = attempt.retry_state.attempt_number
                return await client.search(sent, max_results=count, include_raw_content=True,
                                           timeout=self._timeout)
        raise AssertionError("unreachable: tenacity re-raises the last error")

    def _results(self, data: object, sent: str, count: int) -> list[SearchResult]:
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise SearchError("Tavily sent a response without a results list.")
        out = []
        for item in data["results"]:
            if not isinstance(item, dict) or not item.get("url"):
                continue
            extra = {"query": sent}
            extra.update({k: item[k] for k in ("published_date", "favicon") if item.get(k)})
            out.append(SearchResult(
                url=str(item["url"]),
                title=str(item.get("title") or item["url"]),
                content=str(item.get("content") or ""),
                raw_content=item.get("raw_content") or None,
                score=float(item.get("score") or 0.0),
                extra=extra,
            ))
        return out[:count]

    def _describe(self, exc: BaseException, tries: int) -> str:
        """A user-safe one-line description of ``exc``: no key, no headers."""
        after = f" after {tries} attempt{'s' if tries != 1 else ''}"
        detail = redact(re.sub(r"\s+", " ", str(exc)).strip().replace(self._api_key, "***"))[:200]
        detail = f": {detail}" if detail else ""
        if isinstance(exc, InvalidAPIKeyError):
            return "Tavily rejected the API key (401)."
        if isinstance(exc, ForbiddenError):
            return f"Tavily refused the search (403/432/433: permission, plan or usage limit){detail}"
        if isinstance(exc, UsageLimitExceededError):
            return f"Tavily rate limit (429){after}{detail}"
        if isinstance(exc, BadRequestError):
            return f"Tavily rejected the query (400){detail}"
        if isinstance(exc, TavilyTimeoutError):
            return f"Tavily did not answer within {self._timeout:g} s{after}."
        if isinstance(exc, httpx.HTTPStatusError):
            status = exc.response.status_code
            if status >= 500:
                return f"Tavily server error ({status}){after}."
            return f"Tavily answered HTTP {status} at {self._shown_url()}/search."
        if isinstance(exc, httpx.HTTPError):
            return f"Tavily unreachable at {self._shown_url()}{after} ({type(exc).__name__})."
        return "Tavily sent a response that is not JSON."

    def _shown_url(self) -> str:
        """The base URL without any user:password part."""
        return str(httpx.URL(self._base_url).copy_with(userinfo=b""))

    async def aclose(self) -> None:
        """Close the client's connection pool, if it belongs to the running event loop."""
        client, loop = self._client, self._loop
        self._client = self._loop = None
        if client is None:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is running:
            await client.close()
