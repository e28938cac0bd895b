"""A Markdown file's text as a reader of it sees it, for the corpus index and the quotes taken from it."""

from __future__ import annotations

import functools

from engine.render.rawhtml import hide_elements, strip_html


@functools.cache
def _parser():
    from markdown_it import MarkdownIt

    # CommonMark (raw HTML read as HTML) with GFM tables and strikethrough, as report.md is read
    return MarkdownIt("commonmark").enable(["table", "strikethrough"])


def markdown_text(markdown: str) -> str:
    """The text a reader of ``markdown`` sees (markdown-it-py's tokens, CommonMark with GFM tables):
    emphasis and strikethrough as their words, a link as its text, an image as its alt text, code
    spans and code blocks as written (their ``*`` and ``<b>`` kept), backslash escapes and character
    references read, raw HTML as :func:`engine.render.rawhtml.strip_html` shows it (``<script>`` as
    ``[script]``), a quote as its text. Blocks are apart by a blank line; the items of a tight list
    and the rows of a table are a line each (a row's cells apart by a tab). A heading keeps its ATX
    marks (``## Costs``), so that it stays known as one (:func:`engine.search.extract.opening_heading`).
    """
    tokens = _parser().parse(markdown)
    out: list[str] = []
    row: list[str] | None = None
    line = False  # the last block was a line of a list or a table: the next such line follows it
    for n, token in enumerate(tokens):
        if token.type == "tr_open":
            row = []
        elif token.type == "tr_close" and row is not None:
            out += ["\n" if line else "\n\n", "\t".join(row)]
            row, line = None, True
        elif token.type == "inline" and row is not None:
            row.append(" ".join(_inline(token.children or []).split()))
        elif token.type == "inline":
            text = _inline(token.children or [])
            if tokens[n - 1].type == "heading_open":
                text = "#" * int(tokens[n - 1].tag[1]) + " " + " ".join(text.split())
            out += ["\n" if line and tokens[n - 1].hidden else "\n\n", text]
            line = tokens[n - 1].hidden
        elif token.type in ("fence", "code_block", "html_block"):
            text = token.content if token.type != "html_block" else strip_html(token.content)
            out += ["\n\n", text.strip("\n")]
            line = False
        elif token.type.endswith(("list_open", "list_close", "table_open", "table_close")):
            line = False  # a list or a table starts or ends: its first line after a blank one
    return "".join(out).strip()


def inline_text(markdown: str) -> str:
    """The text a reader sees of one block's inline Markdown (a heading's or a paragraph's text)."""
    tokens = _parser().parseInline(markdown)
    return _inline(tokens[0].children or []) if tokens else ""


def _inline(children: list) -> str:
    """The text of an inline token's children."""
    nodes = [{"t": "RawInline", "c": ["html", c.content]} if c.type == "html_inline" else c for c in children]
    out: list[str] = []
    for child in hide_elements(nodes):
        if isinstance(child, dict):  # raw HTML: a tag, or a hidden element's stand-in
            out.append(child["c"] if child["t"] == "Str" else strip_html(child["c"][1]))
        elif child.type in ("text", "code_inline"):
            out.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            out.append("\n")
        elif child.type == "image":
            out.append(_inline(child.children or []))
    return "".join(out)
