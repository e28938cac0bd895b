"""An HTML page's link captions (a table of contents, a "See also" list, a navigation bar, an index) are
searched but never read as what the page says: the offline model quotes the page that explains."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from engine.search.corpus import CorpusSearch
from engine.search.corpus_index import index_directory
from engine.search.corpus_layout import SCHEMA_VERSION, index_root
from engine.search.extract import LINK_MARK, html_text, without_captions
from engine.search.passages import split_passages

TOC = """<html><head><title>asyncio</title></head><body><div role="main"><h1>asyncio</h1>
<p>asyncio is a library to write concurrent code using the async/await syntax.</p>
<p>asyncio is used as a foundation for multiple Python asynchronous frameworks that provide
high-performance network and web-servers, database connection libraries, distributed task queues, etc.</p>
<p>asyncio is often a perfect fit for IO-bound and high-level structured network code.</p>
<div class="toctree-wrapper"><ul>
<li class="toctree-l1"><a href="runner.html">Runners</a></li>
<li class="toctree-l1"><a href="task.html">Coroutines and Tasks</a>
<ul><li><a href="task.html#cancel">Cancelling tasks safely with timeouts.</a></li></ul></li>
</ul></div>
<ul class="simple">
<li><p><a href="queue.html#dist">Using asyncio.Queue to distribute workload between several Tasks</a>.</p></li>
<li><p>See also the <a href="queue.html">Queues documentation page</a>.</p></li>
</ul>
<div class="related"><a href="/">Home</a> | <a href="/about">About</a> | <a href="/help">Help</a></div>
</div></body></html>"""

REAL = """<html><head><title>Coroutines and Tasks</title></head><body><main><h1>Coroutines and Tasks</h1>
<p>When a task is cancelled, <a href="exceptions.html#e"><code>asyncio.CancelledError</code></a> is raised in
the task at the next opportunity, as <a href="#cancel">described below</a>.</p>
<p>The <a href="#timeout"><code>asyncio.timeout()</code></a> context manager cancels the current task when its
deadline expires.</p>
<table><tr><th>Feature</th><th>Deprecated in</th><th>PEP</th></tr>
<tr><td><p>The typing versions of the standard collections</p></td><td><p>3.9</p></td>
<td><p><a href="https://peps.python.org/pep-0585/">PEP 585</a></p></td></tr>
<tr><td><p><a href="task.html#wait_for"><code>wait_for()</code></a></p></td>
<td><p>Run an awaitable with a timeout and cancel it when the timeout expires.</p></td></tr></table>
<dl><dt><a href="functions.html#float">float</a> | <a href="constants.html#None">None</a></dt>
<dd>The deadline of the timeout, in seconds.</dd></dl>
</main></body></html>"""

# an API index: its rows name another page's things in their first cell, its lists link to examples
INDEX = """<html><head><title>High-level API Index</title></head><body><main><h1>High-level API Index</h1>
<p>Utilities to run asyncio programs, create Tasks, and await on multiple things with timeouts.</p>
<table>
<tr><td><p><a href="task.html#run"><code>run()</code></a></p></td><td><p>Create event loop, run a coroutine.</p></td></tr>
<tr><td><p><a href="task.html#create_task"><code>create_task()</code></a></p></td><td><p>Start an asyncio Task.</p></td></tr>
<tr><td><p><a href="task.html#wait_for"><code>wait_for()</code></a></p></td><td><p>Run with a timeout.</p></td></tr>
<tr><td><p><a href="task.html#shield"><code>shield()</code></a></p></td><td><p>Shield from cancellation.</p></td></tr>
</table>
<ul><li><p><a href="task.html#ex">Using asyncio.wait_for() to enforce a timeout</a>.</p></li></ul>
</main></body></html>"""


def _marked(html: str) -> list[str]:
    return [line[1:] for line in html_text(html.encode(), links=True)[1].split("\n") if line.startswith(LINK_MARK)]


def test_a_table_of_contents_see_also_list_and_navigation_bar_are_captions():
    captions = _marked(TOC)
    assert captions == ["Runners", "Coroutines and Tasks", "Cancelling tasks safely with timeouts.",
                        "Using asyncio.Queue to distribute workload between several Tasks.",
                        "See also the Queues documentation page.", "Home | About | Help"]
    _, text = html_text(TOC.encode())  # what the page says: the captions left out
    assert "asyncio is a library to write concurrent code" in text
    assert not any(caption in text for caption in captions), text
    assert LINK_MARK not in text


def test_prose_with_cross_references_and_a_reference_table_with_links_are_no_captions():
    """Links on code name what the text says; a table row with a link in a cell, and a term
    (a signature with linked types), stay text."""
    assert _marked(REAL) == []
    _, text = html_text(REAL.encode())
    for said in ("When a task is cancelled, asyncio.CancelledError is raised", "PEP 585", "float | None",
                 "Run an awaitable with a timeout and cancel it when the timeout expires."):
        assert said in text, text


def test_an_index_page_is_all_captions_its_introduction_too():
    _, text = html_text(INDEX.encode())
    assert "Utilities to run asyncio programs" not in text and "enforce a timeout" not in text, text
    _, marked = html_text(INDEX.encode(), links=True)
    assert "Utilities to run asyncio programs" in marked  # still there to be searched
    # a page with a table of links among more prose is no index
    _, text = html_text(INDEX.replace("<table>", "<p>" + "Tasks are cancelled at their next await. " * 12
                                      + "</p><table>").encode())
    assert "Utilities to run asyncio programs" in text and "Run with a timeout." in text


def test_captions_are_searched_but_never_read(tmp_path: Path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, page in (("index.html", TOC), ("task.html", REAL), ("api.html", INDEX)):
        (docs / name).write_text(page)
    index = tmp_path / "corpus.sqlite"
    index_directory(docs, index)

    async def found(query: str) -> dict:
        return {r.url: r for r in await CorpusSearch(index).search(query)}

    import asyncio

    # found by a caption's word ("Runners"), the page gives its prose only
    results = asyncio.run(found("asyncio Runners"))
    assert "asyncio is a library" in results["index.html"].raw_content
    assert "Runners" not in results["index.html"].raw_content
    assert LINK_MARK not in results["index.html"].content + results["index.html"].raw_content
    # the captions' words are searched ("workload" is in a caption only), read nowhere
    for result in asyncio.run(found("distribute workload between several Tasks")).values():
        assert "workload" not in result.raw_content + result.content, result
    # an index page has nothing to read: the page that explains is found
    results = asyncio.run(found("await on multiple things with timeouts"))
    assert "api.html" not in results and "task.html" in results, results


def test_a_long_caption_line_cut_in_pieces_keeps_its_mark():
    line = LINK_MARK + "Using asyncio to cancel a task with a timeout. " * 80
    pieces = split_passages(f"Some prose first.\n\n{line}")
    assert len(pieces) > 1
    assert all(p.startswith(LINK_MARK) for part in pieces for p in part.split("\n\n") if "Using" in p), pieces
    assert without_captions("\n\n".join(pieces)) == "Some prose first."


def test_an_index_of_the_older_layout_is_built_again(tmp_path: Path):
    """An index written before captions were marked holds them as text: it is no index of this
    version (index_root), and indexing the folder rebuilds it, captions marked."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.html").write_text(TOC)
    index = tmp_path / "corpus.sqlite"
    index_directory(docs, index)
    with sqlite3.connect(index) as conn:
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
        conn.execute("UPDATE passages SET body = replace(body, ?, '')", (LINK_MARK,))
    assert index_root(index) is None
    stats = index_directory(docs, index)
    assert stats.added == 1 and stats.unchanged == 0
    assert index_root(index) == str(docs)
    with sqlite3.connect(index) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == (SCHEMA_VERSION,)
        assert LINK_MARK + "Runners" in conn.execute("SELECT group_concat(body) FROM passages").fetchone()[0]


def test_a_bot_started_on_an_index_of_the_older_layout_is_told_to_index_again(tmp_path: Path):
    """An operator who upgraded is told the index is from an earlier version, not that the folder
    was never indexed; indexing it again is the way on."""
    from engine.search import check_corpus
    from engine.settings import SettingsError, load_settings

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.html").write_text(TOC)
    settings = load_settings(data_dir=tmp_path / "data", corpus_dir=docs, search="corpus")
    index_directory(docs, settings.corpus_index_path)
    check_corpus(settings)
    with sqlite3.connect(settings.corpus_index_path) as conn:
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
    with pytest.raises(SettingsError) as refused:
        check_corpus(settings)
    assert "earlier version" in str(refused.value) and "not indexed yet" not in str(refused.value)
    assert f"run `deepresearch index {docs}`" in str(refused.value)
    newer = str(int(SCHEMA_VERSION) + 1)
    for schema, said in ((newer, "a newer version"), ("", "an earlier version"), ("x1", "another version")):
        with sqlite3.connect(settings.corpus_index_path) as conn:
            conn.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (schema,))
        with pytest.raises(SettingsError, match=f"was indexed by {said}"):
            check_corpus(settings)


# ---- what a caption is not (found by trying pages built to break the rules) ---------------------------

WIKI = """<html><head><title>Ground-source heat pump</title></head><body><main><h1>Ground-source heat pump</h1>
<p>The <a href="cop.html">coefficient of performance</a> of a <a href="gshp.html">ground-source heat pump</a>
usually <a href="r.html">reaches</a> four in <a href="winter.html">winter</a>.</p>
<table><tr><th>Setting</th><th>Value</th></tr>
<tr><td><a href="defrost.html">Defrost timing</a></td><td>120 metres</td></tr></table>
<p><a href="/">Home</a> · <a href="/blog">Blog</a> · <a href="/about">About us</a></p>
</main></body></html>"""


def test_a_sentence_or_a_table_row_with_many_links_is_what_the_page_says():
    """A paragraph is captions only when next to nothing of it is outside its links (a navigation bar
    set as a paragraph); a sentence whose words are half links says something, and so does a row
    whose first cell is a link and whose other cells are data."""
    text = html_text(WIKI.encode(), links=True)[1]
    assert "usually reaches four in winter." in without_captions(text)
    assert "Defrost timing 120 metres" in without_captions(text)
    assert _marked(WIKI) == ["Home · Blog · About us"]


def test_a_page_without_a_title_is_not_named_by_its_captions(tmp_path: Path):
    """No ``<title>`` nor ``<h1>``: the title is the first line of what the page says, never a
    navigation bar's captions (nor the mark that opens their line)."""
    from engine.search.extract import extract_document

    page = tmp_path / "probes.html"
    page.write_text('<html><body><p><a href="/">Home</a> <a href="/blog">Blog</a></p>'
                    "<p>Geothermal probes are grouted</p><p>Bentonite protects groundwater.</p></body></html>")
    title, text = extract_document(page, page.stat().st_size)
    assert title == "Geothermal probes are grouted" and LINK_MARK not in title


def test_bare_links_in_the_body_are_captions():
    """Links outside every block (no paragraph, no list) are captions like a navigation bar's."""
    page = ('<html><body><a href="a.html">Cascade heat pump</a> <a href="b.html">Brine loop antifreeze</a>'
            "<p>A brine loop carries heat from the ground.</p></body></html>")
    assert without_captions(html_text(page.encode(), links=True)[1]) == "A brine loop carries heat from the ground."
