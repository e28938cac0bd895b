"""A page's text as the HTML standard reads the markup: ``</`` followed by a space is no end tag,
``</script`` inside an attribute value or a comment is part of that value or comment, text after
``</html>`` is the body's, elements nest as deep as the page has them; and :func:`html_text`, the
reader of a page's bytes."""

from __future__ import annotations

import re

import pytest

from engine.search.extract import html_text
from tests.engine.html_pages import read_page


@pytest.mark.parametrize(("markup", "expected"), [
    ("<p>a</ p>b</p>", "ab"),
    ("<div>a</ div>b</div>", "ab"),
    ("<p>a</\tp>b</p>", "ab"),
    ("<p>a</ p class='x'>b</p>", "ab"),
    ("<p>a</ p title='>'>b</p>", "a'>b"),  # the bogus comment ends at the first ">", quoted or not
])
def test_a_space_after_the_slash_makes_a_bogus_comment_not_an_end_tag(tmp_path, markup, expected):
    """``</`` followed by a character that cannot start a tag name is a bogus comment up to the next
    ``>``: the element stays open (https://html.spec.whatwg.org/multipage/parsing.html#end-tag-open-state,
    invalid-first-character-of-tag-name)."""
    _, text = read_page(tmp_path, f"<html><body>{markup}</body></html>")
    assert text == expected


def test_a_title_end_tag_with_a_space_after_the_slash_is_title_text(tmp_path):
    """In RCDATA only ``</title`` followed by whitespace, ``/`` or ``>`` ends the title
    (https://html.spec.whatwg.org/multipage/parsing.html#rcdata-end-tag-open-state)."""
    title, text = read_page(tmp_path, "<html><head><title>Tides</ title>and moon</title></head>"
                                  "<body><p>Body text.</p></body></html>")
    assert (title, text) == ("Tides</ title>and moon", "Body text.")


@pytest.mark.parametrize("tag", ["script", "style"])
def test_a_script_or_style_end_tag_with_a_space_after_the_slash_does_not_end_it(tmp_path, tag):
    """https://html.spec.whatwg.org/multipage/parsing.html#script-data-end-tag-open-state (and
    #rawtext-end-tag-open-state): ``</ script>`` is script text."""
    _, text = read_page(tmp_path, f"<html><body><{tag}>x</ {tag}><p>Hidden.</p></{tag}><p>Shown.</p></body></html>")
    assert text == "Shown."


@pytest.mark.parametrize(("quote", "tag"), [
    ('"', "script"), ('"', "style"), ('"', "title"), ("'", "script"), ('"', "TITLE"), ('"', "Script"),
])
def test_a_raw_text_end_tag_inside_an_attribute_value_is_part_of_the_value(tmp_path, quote, tag):
    """An attribute value is read to its closing quote, whatever it holds
    (https://html.spec.whatwg.org/multipage/parsing.html#attribute-value-(double-quoted)-state):
    ``</script a=">`` there is no end tag, and the text after the tag is the page's."""
    q = quote
    _, text = read_page(tmp_path, f"<html><body><p title={q}</{tag} a={q}>Kept.</p>"
                              f"<p class={q}x{q}>Also kept.</p></body></html>")
    assert text == "Kept.\n\nAlso kept."


@pytest.mark.parametrize("tag", ["script", "style", "title"])
def test_a_raw_text_end_tag_in_a_links_attribute_keeps_the_link_text(tmp_path, tag):
    _, text = read_page(tmp_path, f'<html><body><p>One <a href="/t" data-x="</{tag} x=">link</a> kept.</p>'
                              '<p class="x">Also kept.</p></body></html>')
    assert text == "One link kept.\n\nAlso kept."


def test_the_example_of_an_attribute_value_holding_a_script_end_tag(tmp_path):
    _, text = read_page(tmp_path, '<html><body><p title="</script a=">kept</p><p>also kept</p></body></html>')
    assert text == "kept\n\nalso kept"


@pytest.mark.parametrize("tag", ["script", "style"])
def test_a_raw_text_end_tag_inside_a_comment_is_part_of_the_comment(tmp_path, tag):
    """A comment runs to ``-->`` (https://html.spec.whatwg.org/multipage/parsing.html#comment-state)."""
    _, text = read_page(tmp_path, f'<html><body><p>One.</p><!-- </{tag} a=" --><p>Kept.</p>'
                              '<p class="x">Also kept.</p></body></html>')
    assert text == "One.\n\nKept.\n\nAlso kept."


def test_html_text_gives_the_title_and_the_text_of_a_pages_bytes():
    """Blocks are parted by blank lines, maybe more than one in a row (extract_document collapses them)."""
    title, text = html_text(b"<html><head><title>Tides</title></head><body><p>High</p><p>Low</p></body></html>")
    assert (title, re.sub(r"\n{3,}", "\n\n", text).strip()) == ("Tides", "High\n\nLow")


def test_a_page_declaring_its_encoding_in_an_xml_declaration_is_read_in_it():
    data = '<?xml version="1.0" encoding="iso-8859-1"?><html><body><p>Café</p></body></html>'.encode("latin-1")
    assert html_text(data)[1].strip() == "Café"


def test_text_after_the_html_end_tag_is_the_bodys(tmp_path):
    """After ``</html>`` a character or a start tag is read into the body
    (https://html.spec.whatwg.org/multipage/parsing.html#the-after-after-body-insertion-mode); libxml2's
    tree leaves it out."""
    _, text = read_page(tmp_path, "<html><body><p>One.</p></body></html><p>Two.</p>Three.")
    assert text == "One.\n\nTwo.\n\nThree."


def test_elements_nested_deeper_than_libxml2s_tree_allows_keep_their_text(tmp_path):
    """libxml2's tree stops at 2048 levels, dropping the rest of the page; a browser shows it."""
    _, text = read_page(tmp_path, "<html><body><p>Before.</p>" + "<div>" * 5000 + "Deep.<p>After.</p></body></html>")
    assert text == "Before.\n\nDeep.\n\nAfter."


def test_a_text_of_more_than_ten_megabytes_is_kept_whole(tmp_path):
    """libxml2 cuts a text node at 10 MB unless asked for huge trees; files of up to 64 MiB are read."""
    _, text = read_page(tmp_path, "<html><body><pre>" + "tide " * 2_400_000 + "end</pre></body></html>")
    assert len(text) == 12_000_003 and text.endswith("tide end")


def test_a_later_title_element_is_not_shown(tmp_path):
    """Every ``<title>`` is hidden (https://html.spec.whatwg.org/multipage/rendering.html#hidden-elements):
    the first is the page's title, a later one is in neither."""
    title, text = read_page(tmp_path, "<html><head><title>Tides</title></head><body><p>One.</p>"
                                  "<title>Stray</title><p>Two.</p></body></html>")
    assert (title, text) == ("Tides", "One.\n\nTwo.")


def test_the_first_heading_with_text_is_the_title_when_there_is_no_title_element(tmp_path):
    title, _ = read_page(tmp_path, "<html><body><h1> </h1><h1>Tide tables</h1><p>Body.</p></body></html>")
    assert title == "Tide tables"
