"""The Markdown cleanup read at the pandoc AST it hands the writers: escaped brackets, citation links,
code attributes and quotes nested deeper than LaTeX allows (no LaTeX or PDF is built)."""

from __future__ import annotations

import pytest

from engine.render import SourceEntry
from engine.render.latex import render_latex
from engine.render.markdown import MAX_NESTING, Sanitizer, _walk_nodes, parse_markdown, stringify
from tests.engine.render.test_latex import body_of, make_doc


def _clean(markdown: str, citations: set[int] | None = None) -> list[dict]:
    return Sanitizer(min_level=1, keep_ids=False, citations=citations or set()).blocks(parse_markdown(markdown))


def test_escaped_brackets_come_back_as_brackets_whether_one_or_both_are_in_a_word():
    doc = make_doc(body=r"Interval \[0, 1\], \[1\], \[sic and so\] [1].", sources=[SourceEntry(1, "One", "https://a.example")])
    (line,) = [ln for ln in body_of(render_latex(doc)).splitlines() if ln.startswith("Interval")]
    assert line == r"Interval {[}0, 1{]}, {[}1{]}, {[}sic and so{]} {[}\drbcite{1}{]}."
    (para,) = _clean(r"\[0, 1\] and \[x\]")
    assert stringify(para["c"]) == "[0, 1] and [x]"
    assert not [n for n in _walk_nodes(para) if n["t"] == "Str" and ("\ufdd0" in n["c"] or "\ufdd1" in n["c"])]


def test_each_cited_number_is_the_text_of_its_link():
    (para,) = _clean("See [2, 1] and [3].", citations={1, 2, 3})
    links = [n for n in para["c"] if n["t"] == "Link"]
    assert [(stringify(link["c"][1]), link["c"][2][0], link["c"][0][1]) for link in links] == [
        ("2", "#src-2", ["drb-cite"]), ("1", "#src-1", ["drb-cite"]), ("3", "#src-3", ["drb-cite"])]
    assert stringify(para["c"]) == "See [2, 1] and [3]."


def test_code_keeps_its_attributes_and_escaped_brackets():
    block, para = _clean("```python\nx = a\\[1\\]\n```\n\nInline `b\\[2\\]`{.sh}.")
    assert block == {"t": "CodeBlock", "c": [["", ["python"], []], "x = a\\[1\\]"]}
    code = next(n for n in para["c"] if n["t"] == "Code")
    assert code["c"][1] == "b\\[2\\]" and code["c"][0][0] == ""


def test_quotes_deeper_than_latex_allows_keep_their_text_inside_the_deepest_allowed():
    depth = MAX_NESTING + 3
    blocks = _clean(">" * depth + " deep words\n\nAfter.")
    node, seen = blocks[0], 0
    while node["t"] == "BlockQuote":
        seen += 1
        assert len(node["c"]) == 1
        node = node["c"][0]
    assert seen == MAX_NESTING and node["t"] == "Para" and stringify(node["c"]) == "deep words"
    assert blocks[1]["t"] == "Para" and stringify(blocks[1]["c"]) == "After."


@pytest.mark.parametrize(("markdown", "shown"), [
    ("[x](http://[a)", r"x (http://{[}a)"), ("<http://x]y[z>", "http://x{]}y{[}z"), ("![chart](https://[::1)", "chart"),
    ("see http://[oops and https://x]y[z too", "http://{[}oops"),
])
def test_a_link_whose_address_cannot_be_parsed_is_shown_as_text_not_an_error(markdown, shown, tmp_path):
    """A web address with stray brackets (urllib raises ``ValueError: Invalid IPv6 URL``) comes from a
    page or a model as often as any other: the report keeps its text, no build fails on it."""
    from engine.render.docx import render_docx

    doc = make_doc(executive_summary=markdown, body=f"Body {markdown} [1].")
    assert shown in body_of(render_latex(doc))
    assert render_docx(doc, tmp_path / "report.docx").stat().st_size > 0


def test_a_source_whose_address_cannot_be_parsed_is_named_by_its_address_for_the_researcher():
    from engine.graph.researcher import result_view

    view = result_view("a1", {"url": "http://[oops/page", "title": "Odd", "summary": "Heat pumps pay off."})
    assert view.startswith("--- SOURCE [a1]: Odd (http://[oops/page)") and "Heat pumps pay off." in view



@pytest.mark.parametrize(("markdown", "shown", "hidden"), [
    ("[2] Plain file:///home/bob/secret/plan.md", "Plain plan.md", "/home/bob"),  # a bare file: URI in text
    ("[3] <file:///home/carol/x.md>", "x.md", "/home/carol"),  # an autolink
    ("[5] [Local](/home/dave/private/report.md)", "Local (report.md)", "/home/dave"),  # an absolute path
    ("[6] [Local](file:///home/erin/notes/a%20b.md)", "Local (a b.md)", "/home/erin"),
])
def test_a_links_host_path_is_shown_by_its_file_name_only(markdown, shown, hidden):
    text = stringify(Sanitizer(1, False).blocks(parse_markdown(markdown))[0]["c"])
    assert shown in text and hidden not in text, text


def test_the_pdfs_and_word_documents_body_never_shows_a_host_path():
    from engine.render.docx import docx_document

    body = ("Plain file:///home/bob/secret/plan.md and <file:///home/carol/x.md> and "
            "[Local](/home/dave/private/report.md) [1].")
    doc = make_doc(body=body)
    tex = body_of(render_latex(doc))
    word = stringify(docx_document(doc).to_json()["blocks"])
    for text in (tex, word):
        assert "/home/" not in text and "plan.md" in text and "x.md" in text and "report.md" in text, text


@pytest.mark.parametrize(("markdown", "shown"), [
    ("a <script>x()</script> b <style>p{}</style> c", "a [script] b [style] c"),
    ("a <SCRIPT>if (x < y) {}</SCRIPT> b", "a [script] b"),
    ("a <noscript>one <noscript>two</noscript> still</noscript> b", "a [noscript] b"),
    ("a <iframe src='https://example.com/'>*fallback*</iframe> b", "a [iframe] b"),
    ("a <template>never **shown**", "a [template]"),  # left open: the rest of its inlines
    ("a <meta charset=utf-8> b </script> c", "a [meta] b c"),
    ("x <img src='https://example.com/c.png' alt='A chart'> y <!-- note --> z", "x [image: A chart] y z"),
    ("`<script>x()</script>` and `<!-- c -->`", "<script>x()</script> and <!-- c -->"),
    ("List<String> and <u8> stay", "List<String> and <u8> stay"),
])
def test_raw_html_inline_is_shown_as_a_reader_sees_it(markdown, shown):
    (para,) = _clean(markdown)
    assert _shown(para["c"]) == shown


def _shown(inlines: list) -> str:
    """The words of pandoc inlines, code as its text, each space or break as one space."""
    return " ".join("".join(n["c"] if n["t"] == "Str" else n["c"][1] if n["t"] == "Code" else " "
                            for n in _walk_nodes(inlines)
                            if n["t"] in ("Str", "Code", "Space", "SoftBreak", "LineBreak")).split())


@pytest.mark.parametrize(("markdown", "shown"), [
    ("<script>\nalert('<b>x</b>');\n</script>", ["[script]"]),
    ("<div>\nOne<br>two <span>three</span>\n<!-- hidden\n", ["One two three"]),
    ("<p>A <img alt='chart' src='c.png'> &amp; <object data='x.swf'>fallback</object></p>", ["A [image: chart] & [object]"]),
    ("<!--\nunclosed comment hides the block", []),
])
def test_raw_html_blocks_are_shown_as_a_reader_sees_them(markdown, shown):
    assert [_shown(b["c"]) for b in _clean(markdown)] == shown
