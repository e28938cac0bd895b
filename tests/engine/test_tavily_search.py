"""The `tavily` search back-end against the fake Tavily server."""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import pytest
from tavily import AsyncTavilyClient
from tavily.errors import BadRequestError

from engine.search.base import TITLE_CHARS, SearchError
from engine.search.tavily import MAX_QUERY_CHARS, TavilySearch, cut_query
from tests.fakes.tavily_server import FakeTavily, TavilyError, default_search_handler
from tests.waiting import LONG, scaled

KEY = "tvly-test-secret-key"


def backend(srv: FakeTavily, **kw) -> TavilySearch:
    kw.setdefault("backoff", 0.01)
    return TavilySearch(KEY, base_url=srv.base_url, timeout=30.0, **kw)


async def test_results_are_mapped_with_raw_content():
    with FakeTavily(api_key=KEY) as srv:
        search = backend(srv)
        results = await search.search("solar panel efficiency", max_results=3)
        await search.aclose()
    assert [r.url for r in results] == [f"https://example.org/solar-panel-efficiency-{n}" for n in (1, 2, 3)]
    first = results[0]
    assert "solar panel efficiency" in first.content.lower() and first.title
    assert first.raw_content and first.raw_content.count("\n\n") >= 2
    assert first.score > results[1].score > 0
    assert first.extra["query"] == "solar panel efficiency"
    (call,) = srv.calls
    assert call.path == "/search" and call.authorization == f"Bearer {KEY}"
    assert call.body["include_raw_content"] is True and call.body["max_results"] == 3


async def test_results_per_query_and_custom_handler():
    pages = [{"url": f"https://a.test/{i}", "title": f"t{i}", "content": "c", "raw_content": "r"} for i in range(9)]
    with FakeTavily(lambda q, body: pages, results_per_query=2) as srv:
        results = await backend(srv).search("anything", max_results=50)
    assert [r.url for r in results] == ["https://a.test/0", "https://a.test/1"]
    assert srv.calls[0].body["max_results"] == 20  # clamped to Tavily's documented maximum


async def test_a_page_title_of_any_length_is_one_line_of_at_most_300_characters():
    """A page's <title> can be a whole article (a broken CMS); it goes into report.md, sources.json,
    the PDF and the Word document, so it is cut to TITLE_CHARS, at a space when there is one."""
    long_en = "Heat pumps\n in cold climates " * 5000
    long_ja = "寒冷地のヒートポンプ" * 12000
    pages = [{"url": f"https://a.test/{i}", "title": t, "content": "c", "raw_content": "r"}
             for i, t in enumerate((long_en, long_ja, "Short  title\n"))]
    with FakeTavily(lambda q, body: pages) as srv:
        results = await backend(srv).search("heat pumps", max_results=3)
    en, ja, short = (r.title for r in results)
    assert len(en) <= TITLE_CHARS and en.endswith("…") and en[-2] != " ", en[-40:]
    assert " ".join(long_en.split()).startswith(en[:-1] + " ")  # after a whole word; the line break folded
    assert len(ja) == TITLE_CHARS and ja.endswith("…") and long_ja.startswith(ja[:-1])
    assert short == "Short title"


def test_cut_query():
    assert cut_query("  short   query ") == "short query"
    words = " ".join(f"word{i}" for i in range(200))
    cut = cut_query(words)
    assert len(cut) <= MAX_QUERY_CHARS and words.startswith(cut) and words[len(cut)] == " "
    assert cut_query("x" * 1000) == "x" * MAX_QUERY_CHARS


async def test_fake_rejects_long_queries_like_tavily():
    with FakeTavily() as srv:
        client = AsyncTavilyClient(api_key=KEY, api_base_url=srv.base_url)
        with pytest.raises(BadRequestError, match="Max query length is 400"):
            await client.search("y" * 401)
        await client.close()


async def test_long_query_is_cut_and_succeeds():
    query = " ".join(["renewable energy storage policy"] * 40)[:1000]
    assert len(query) == 1000
    with FakeTavily() as srv:
        results = await backend(srv).search(query)
    assert results
    sent = srv.queries[0]
    assert len(sent) <= MAX_QUERY_CHARS and query.startswith(sent) and query[len(sent)] == " "


async def test_bad_key_is_search_error_without_the_key():
    with FakeTavily(api_key="the-right-key") as srv:
        with pytest.raises(SearchError) as info:
            await backend(srv).search("q")
    assert "401" in str(info.value) and KEY not in str(info.value)
    assert len(srv.calls) == 1  # not retried


async def test_plan_limit_is_not_retried():
    with FakeTavily() as srv:
        srv.fail_next(TavilyError.plan_limit())
        with pytest.raises(SearchError, match="plan"):
            await backend(srv).search("q")
    assert len(srv.calls) == 1


async def test_server_error_then_success_is_retried():
    with FakeTavily() as srv:
        srv.fail_next(TavilyError.server_error(500))
        results = await backend(srv).search("retry me")
    assert results and [c.status for c in srv.calls] == [500, 200]


async def test_rate_limit_is_retried_then_reported():
    with FakeTavily() as srv:
        srv.fail_next(TavilyError.rate_limited(), times=2)
        assert await backend(srv).search("q")
        srv.reset()
        srv.fail_next(TavilyError.server_error(503), times=5)
        with pytest.raises(SearchError, match=r"server error \(503\) after 3 attempts"):
            await backend(srv).search("q")
    assert len(srv.calls) == 3


async def test_unreachable_port_fails_fast_with_default_backoff():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    search = TavilySearch(KEY, base_url=f"http://127.0.0.1:{port}")
    t0 = time.monotonic()
    with pytest.raises(SearchError) as info:
        await search.search("q")
    elapsed = time.monotonic() - t0
    assert f"unreachable at http://127.0.0.1:{port} after 3 attempts" in str(info.value)
    assert KEY not in str(info.value)
    assert elapsed < scaled(15), elapsed  # about 2 s of backoff, not a connect timeout per attempt
    await search.aclose()


async def test_timeout_is_bounded():
    answer_after = 20.0  # far beyond two 0.2 s attempts, even on a busy machine
    with FakeTavily(latency=answer_after) as srv:
        search = TavilySearch(KEY, base_url=srv.base_url, timeout=0.2, attempts=2, backoff=0.01)
        t0 = time.monotonic()
        with pytest.raises(SearchError, match="did not answer within 0.2 s after 2 attempts"):
            await search.search("slow")
        assert time.monotonic() - t0 < answer_after  # gave up; did not wait for the answer
        assert len(srv.calls) == 2


async def test_one_client_serves_concurrent_searches():
    with FakeTavily(latency=0.2) as srv:
        search = backend(srv)
        first = await search.search("warm up")
        client = search._client
        # the fake answers none of the 20 until all 20 are in: a client that serialised them would never finish
        all_in = threading.Barrier(20, timeout=LONG)
        srv.handler = lambda query, body: (all_in.wait(), default_search_handler(query, body))[1]
        batches = await asyncio.gather(*(search.search(f"topic {i}", max_results=2) for i in range(20)))
        assert not all_in.broken
        await asyncio.gather(*(search.search(f"again {i}") for i in range(20)))
        assert search._client is client
        await search.aclose()
        assert search._client is None
        await search.aclose()  # idempotent
    assert first and all(len(b) == 2 for b in batches)
    assert len(srv.calls) == 41
    assert len({c.client_port for c in srv.calls}) <= 20  # pooled connections are reused


async def test_empty_inputs_are_search_errors():
    with pytest.raises(SearchError, match="API key"):
        TavilySearch("")
    with FakeTavily() as srv:
        with pytest.raises(SearchError, match="empty query"):
            await backend(srv).search("   ")
    assert srv.calls == []


def test_each_event_loop_gets_a_working_client():
    with FakeTavily() as srv:
        search = backend(srv)
        assert asyncio.run(search.search("first loop"))
        assert asyncio.run(search.search("second loop"))  # the first loop's pool is closed by now
        asyncio.run(search.aclose())  # a client from another loop is dropped, not awaited
    assert len(srv.calls) == 2
