"""End tags in a page's text as the HTML standard's tokenizer reads them: attributes (a ``>`` in a
quoted value too) read and dropped, the tag still ending its element; never left as page text."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.engine.html_pages import read_page


def _text(tmp_path: Path, html: str) -> str:
    return read_page(tmp_path, html)[1]


@pytest.mark.parametrize("tag", ["p", "div", "a", "li", "span", "em", "h2", "td", "section", "custom-el"])
@pytest.mark.parametrize("attrs", [
    'a=">"', "title='x>y'", 'b=">" c=\'>\'', 'a = ">" b', 'a=">"/', '/a=">"', 'a="x"b=">"', "a='>' ",
    'a=">\n>"', 'A=">" / ', "\nclass='a>b'",
])
def test_an_end_tag_with_a_greater_than_sign_in_a_quoted_value_leaves_no_debris(tmp_path, tag, attrs):
    """The standard library's parser ended the tag at its first ``>``: ``">`` (or ``y'>``, ``" c='>'>``)
    was read as the page's text."""
    text = _text(tmp_path, f"<html><body><{tag}>Tides rise</{tag} {attrs}> twice a day.</body></html>")
    assert " ".join(text.split()) == "Tides rise twice a day."


@pytest.mark.parametrize("tag", ["P", "DIV", "Li"])
def test_an_end_tag_in_capitals_with_attributes_still_ends_its_block(tmp_path, tag):
    text = _text(tmp_path, f"<html><body><{tag}>First</{tag} data-x='>'><p>Second</p></body></html>")
    assert text == "First\n\nSecond"


def test_a_permalink_anchor_whose_end_tag_has_attributes_is_still_dropped(tmp_path):
    text = _text(tmp_path, '<html><body><h2>Tides<a href="#t">¶</a x=">"></h2><p>Body.</p></body></html>')
    assert text == "Tides\n\nBody."


def test_a_dropped_elements_end_tag_with_a_quoted_greater_than_sign_ends_the_drop(tmp_path):
    text = _text(tmp_path, '<html><body><nav>Home</nav a=">"><p>Body text.</p></body></html>')
    assert text == "Body text."


@pytest.mark.parametrize(("markup", "expected"), [
    ('<p>x</b =">">y</p>', 'x">y'),  # "=" starts a name, a quote in a name is a character: the first > ends it
    ('<p>x</b a"b=">">y</p>', "xy"),  # a quote inside a name, then "=": the value is quoted
    ("<p>x</b a=b'>y</p>", "xy"),  # an unquoted value ends at the >
])
def test_a_quote_is_a_value_only_after_an_attributes_equals_sign(tmp_path, markup, expected):
    assert _text(tmp_path, f"<html><body>{markup}</body></html>").strip() == expected


def test_an_end_tag_the_page_ends_inside_drops_the_rest_as_a_browser_does(tmp_path):
    text = _text(tmp_path, '<html><body><p>Kept.</p><p>Also kept.</p a="never closed </p> lost')
    assert text == "Kept.\n\nAlso kept."


def test_an_end_tag_inside_an_attribute_value_or_a_comment_is_not_read(tmp_path):
    text = _text(tmp_path, '<html><body><p title="</p a=\'">Kept \'one\'.</p>'
                           '<!-- </div a=">"> --><p>Two.</p></body></html>')
    assert text == "Kept 'one'.\n\nTwo."


@pytest.mark.parametrize("piece", ["</a", '</p a="', "</p a='x", '</p a=">"</p', "x</p a=\"x\"</p", "</b </b"])
def test_many_unfinished_or_quoted_end_tags_are_read_in_linear_time(tmp_path, piece):
    """Each unfinished end tag looked for its end to the end of the markup again (quadratic: 1.4 s
    for 50,000 ``</a``, minutes for more); now one pass."""
    start = time.perf_counter()
    _text(tmp_path, "<html><body><p>Start.</p>" + piece * 100_000)
    assert time.perf_counter() - start < 3
