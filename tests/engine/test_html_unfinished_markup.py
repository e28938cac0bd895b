"""Markup a page never finishes (a start tag, a comment, a ``<!`` or ``<?``) read as the HTML
standard's tokenizer reads it: in one pass, and with the text a browser shows, no more, no less."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.engine.html_pages import read_page
from tests.waiting import scale


def _text(tmp_path: Path, html: str) -> str:
    return read_page(tmp_path, html)[1]


@pytest.mark.parametrize("piece", ['<a b="', "<a b='", "<a", "<!--", "<p>text</p><!--", "<?", "<!x", "<![CDATA[",
                                   "</", "</ ", "</3", "<a b='x>"])
def test_many_unfinished_constructs_are_read_in_linear_time(tmp_path, piece):
    """Each unfinished start tag, comment or declaration looked for its end to the end of the markup
    again (the standard library's fallback at the end of the input: quadratic, 195 s of CPU for
    30,000 ``<a b="``); now the first one that never ends takes the rest, as the standard reads an
    end of file inside it."""
    start = time.perf_counter()
    text = _text(tmp_path, "<html><body><p>Start.</p>" + piece * 60_000)
    assert time.perf_counter() - start < 5 * scale(), piece
    assert text.startswith("Start."), text[:80]


@pytest.mark.parametrize(("html", "shown", "hidden"), [
    ("<p>Kept.</p><!--><p>After an empty comment.</p>", "After an empty comment.", "<!--"),
    ("<p>Kept.</p><!---><p>After an empty comment.</p>", "After an empty comment.", "<!--"),
    ("<p>Kept.</p><!-- note --!><p>After.</p>", "After.", "note"),
    ("<p>Kept.</p><!-- never closed <p>Inside.</p>", "Kept.", "Inside"),
    ('<p>Kept.</p><a href="never closed>Inside</a>', "Kept.", "Inside"),
    ("<p>Kept.</p><a href='x>Inside</a> don't <b>Shown.</b>", "Shown.", "Inside"),
    ("<p>Kept.</p><![CDATA[x]]><p>After.</p>", "After.", "CDATA"),
    ("<p>Kept.</p><?php echo 1 ?><p>After.</p>", "After.", "php"),
    ("<p>Kept.</p><?xml Inside <p>Shown.</p>", "Shown.", "Inside"),  # (to the first '>')
])
def test_unfinished_or_odd_markup_shows_what_a_browser_shows(tmp_path, html, shown, hidden):
    text = _text(tmp_path, f"<html><body>{html}</body></html>")
    assert shown in text and "Kept." in text, text
    assert hidden not in text, text
