"""An HTML document's title as a browser shows it: the first ``<title>``, read as text (the HTML
standard parses its content as RCDATA: "<b>" inside it is text, character references are read)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engine.html_pages import read_page


def _title(tmp_path: Path, html: str) -> tuple[str, str]:
    return read_page(tmp_path, html)


@pytest.mark.parametrize(("head", "title"), [
    ("<title>Generics: List<String> & Map<K, V></title>", "Generics: List<String> & Map<K, V>"),
    ("<title>Heat <b>pumps</b> in winter</title>", "Heat <b>pumps</b> in winter"),
    ("<title>Caf&eacute; &amp; Bar &#8212; menu</title>", "Café & Bar — menu"),
    ("<title>\n  Tides\n  and   moon\n</title>", "Tides and moon"),
    ("<TITLE>Upper case</TITLE>", "Upper case"),
])
def test_the_title_is_its_text_as_written(tmp_path, head, title):
    found, text = _title(tmp_path, f"<html><head>{head}</head><body><p>Body text.</p></body></html>")
    assert found == title and text == "Body text."


def test_only_the_documents_title_counts_not_an_svg_title_or_a_second_one(tmp_path):
    html = ("<html><head><title>Solar power</title></head><body><svg><title>icon</title></svg>"
            "<p>Panels.</p><title>Stray</title></body></html>")
    found, text = _title(tmp_path, html)
    assert found == "Solar power" and "icon" not in text and "Stray" not in found


def test_without_a_title_the_first_heading_is_the_title(tmp_path):
    found, _ = _title(tmp_path, "<html><body><h1>Wind <em>farms</em></h1><p>Turbines.</p></body></html>")
    assert found == "Wind farms"


def test_a_title_never_closed_does_not_swallow_the_page(tmp_path):
    found, text = _title(tmp_path, "<html><head><title>Broken page</head><body><h1>Real heading</h1>"
                                   "<p>The body text.</p></body></html>")
    assert "The body text." in text and "<p>" not in found and len(found) < 60


@pytest.mark.parametrize("end", ['</title foo="bar">', "</title >", "</title/>", "</TITLE\n class=x>"])
def test_an_end_tag_with_attributes_or_a_slash_still_ends_the_title(tmp_path, end):
    """The HTML standard reads an end tag's attributes and slash as a parse error and ignores them:
    the tag still ends the element (https://html.spec.whatwg.org/multipage/parsing.html#end-tag-open-state)."""
    found, text = _title(tmp_path, f"<html><head><title>Tide tables{end}</head><body><h1>Heading</h1>"
                                   "<p>Body text.</p></body></html>")
    assert (found, text) == ("Tide tables", "Heading\n\nBody text.")


@pytest.mark.parametrize("tag", ["script", "style"])
def test_a_script_or_style_end_tag_with_attributes_ends_it_and_the_page_after_it_is_read(tmp_path, tag):
    found, text = _title(tmp_path, f"<html><head><title>Tides</title><{tag}>var a = 1;</{tag} data-x=\"1\">"
                                   "</head><body><p>Body text.</p></body></html>")
    assert (found, text) == ("Tides", "Body text.")


@pytest.mark.parametrize("end", [
    '</title a=">">', "</title a='>'>", '</title a = ">" b=\'>\'>', '</title a=">"/>', '</title a="x"b=">">',
    "</title a= '>' >", '</title/a=">">', "</title a=b\">", '</title a=">\n>">',
])
def test_a_quoted_attribute_value_of_the_end_tag_may_hold_a_greater_than_sign(tmp_path, end):
    """The HTML standard's tokenizer reads an end tag's attributes as a start tag's (then drops them):
    a ``>`` inside a single- or double-quoted value does not end the tag, one after an unquoted value
    does (https://html.spec.whatwg.org/multipage/parsing.html#before-attribute-value-state). The
    title ended at the first ``>`` and the rest of the tag was read as the page's text."""
    found, text = _title(tmp_path, f"<html><head><title>Tide tables{end}</head><body><h1>Heading</h1>"
                                   "<p>Body text.</p></body></html>")
    assert (found, text) == ("Tide tables", "Heading\n\nBody text.")


@pytest.mark.parametrize("end", ['</title x">', "</title =\"'>", '</title a"b=c>'])
def test_a_quote_opens_a_value_only_after_an_equals_sign_of_an_attribute(tmp_path, end):
    """A quote in an attribute's name (or an ``=`` that starts a name) is a character of the name:
    the first ``>`` after it ends the tag, as in a browser."""
    found, text = _title(tmp_path, f"<html><head><title>Tide tables{end}</head><body><p>Body text.</p></body></html>")
    assert (found, text) == ("Tide tables", "Body text.")


@pytest.mark.parametrize("tag", ["script", "style"])
@pytest.mark.parametrize("attrs", ['data-x=">"', "data-x='>'", 'a="1" data-x = "x>y"'])
def test_a_script_or_style_end_tag_with_a_quoted_greater_than_sign_ends_it(tmp_path, tag, attrs):
    found, text = _title(tmp_path, f"<html><head><title>Tides</title><{tag}>var a = 1;</{tag} {attrs}>"
                                   "</head><body><p>Body text.</p></body></html>")
    assert (found, text) == ("Tides", "Body text.")
