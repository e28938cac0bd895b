"""A footnote referenced more than once: printed once, every reference showing its number.

Pandoc copies a note's text into every reference to it (``a[^1] b[^1]`` holds two ``Note``
nodes, and no label), so the PDF and the Word document would print it twice. :func:`note_keys`
reads each reference's label from the Markdown source (markdown-it-py's footnote plugin), and
:func:`share_notes` keeps the first note of each label, named, and turns each later one into a
reference to it, which
:func:`latex_note` (``\\label`` and ``\\footref``, LaTeX's kernel since 2021) and
:func:`docx_note_refs` (a bookmark and Word's ``NOTEREF`` field, ECMA-376 Part 1 §17.16.5.41) write.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import panflute as pf
from markdown_it import MarkdownIt
from mdit_py_plugins.footnote import footnote_plugin

Node = dict[str, Any]
FIRST, REPEAT = "drb-note", "drb-noteref"
# NOTEREF with \f (formatted as a footnote reference) and \h (a link to the note); the result
# between "separate" and "end" is the number Word shows until it updates the field itself.
_NOTEREF = ('<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> NOTEREF {name}'
            ' \\f \\h </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:rPr>'
            '<w:rStyle w:val="FootnoteReference"/></w:rPr><w:t>{number}</w:t></w:r>'
            '<w:r><w:fldChar w:fldCharType="end"/></w:r>')


def _notes(value: object) -> Iterator[Node]:
    if isinstance(value, dict):
        if value.get("t") == "Note":
            yield value
        yield from _notes(value.get("c"))
    elif isinstance(value, list):
        for item in value:
            yield from _notes(item)


def note_keys(markdown: str) -> list[int]:
    """The footnote each reference in ``markdown`` points to, in document order (an index per
    definition: ``a[^x] b[^y] c[^x]`` gives ``[0, 1, 0]``), read as CommonMark/GFM footnotes
    (markdown-it-py with mdit_py_plugins' footnote plugin); references inside a note count too."""
    def walk(tokens: list) -> Iterator[int]:
        for token in tokens:
            if token.type == "footnote_ref":
                yield token.meta["id"]
            yield from walk(token.children or [])

    return list(walk(_PARSER.parse(markdown)))


_PARSER = MarkdownIt("gfm-like").use(footnote_plugin)


def share_notes(blocks: list[Node], prefix: str, keys: list[int] | None) -> list[Node]:
    """``blocks`` (pandoc JSON of one Markdown text) with each repeated footnote printed once.

    ``keys`` are the notes' labels in document order (:func:`note_keys` of the same text), one per
    ``Note`` node: the first ``Note`` of a label becomes ``Span (prefix+k, [drb-note], [note=prefix+k])
    [Note]``, each later one an empty ``Span ("", [drb-noteref], [note=prefix+k])``; a note
    referenced once is left as it is. When ``keys`` is None or does not count one per ``Note``,
    ``blocks`` are returned unchanged (each note printed where it is referenced, as pandoc does).
    ``prefix`` (letters and digits) must be unique in the document: it names the LaTeX label and
    the Word bookmark.
    """
    found = sum(1 for _ in _notes(blocks))
    if keys is None or len(keys) != found:
        return blocks
    counts = Counter(keys)
    if all(n < 2 for n in counts.values()):
        return blocks
    order = iter(keys)
    named: dict[int, str] = {}

    def visit(value: Any) -> Any:
        if isinstance(value, list):
            return [visit(v) for v in value]
        if not isinstance(value, dict) or "c" not in value:
            return value
        if value.get("t") != "Note":
            return {**value, "c": visit(value["c"])}
        key = next(order)
        inner = {**value, "c": visit(value["c"])}
        if counts[key] < 2:
            return inner
        if key in named:
            return {"t": "Span", "c": [["", [REPEAT], [["note", named[key]]]], []]}
        named[key] = name = f"{prefix}n{len(named)}"
        return {"t": "Span", "c": [[name, [FIRST], [["note", name]]], [inner]]}

    return visit(blocks)


def latex_note(c: list, typeset: Callable[[list], list]) -> list[Node]:
    """The LaTeX for a :func:`share_notes` span (its ``c``): the note, labelled, with its blocks
    passed through ``typeset``; or ``\\footref`` to it (the note's number, linked)."""
    name = dict(c[0][2])["note"]
    if REPEAT in c[0][1]:
        return [{"t": "RawInline", "c": ["latex", f"\\footref{{{name}}}"]}]
    blocks = typeset(c[1][0]["c"])
    label = {"t": "RawInline", "c": ["latex", f"\\label{{{name}}}"]}
    if blocks and blocks[0]["t"] in ("Para", "Plain"):
        blocks[0] = {"t": blocks[0]["t"], "c": [label, *blocks[0]["c"]]}
    else:
        blocks.insert(0, {"t": "Plain", "c": [label]})
    return [{"t": "Note", "c": blocks}]


def _has_code(value: object) -> bool:
    if isinstance(value, dict):
        return value.get("t") == "CodeBlock" or _has_code(value.get("c"))
    return isinstance(value, list) and any(_has_code(v) for v in value)


def notes_after_table(table: Node, typeset: list[Node]) -> list[Node]:
    """``typeset`` (the LaTeX blocks of ``table``) with its notes set after the table when one of
    them holds a code block: each note becomes ``\\footnotemark`` in its cell and its text a
    ``\\footnotetext`` after the table, numbered in order (``\\addtocounter`` back, then
    ``\\refstepcounter`` per note, so a ``\\label`` in it names its number).

    A note in a longtable cell is held until the table ends (footnotehyper's ``savenotes``), and a
    held note cannot hold verbatim text: its code block fails the build ("Argument of
    \\FV@BeginScanning has an extra }"). Outside the table, fancyvrb's ``\\VerbatimFootnotes``
    lets ``\\footnotetext`` hold it. Tables whose notes hold no code are returned as they are.
    """
    if not any(_has_code(note) for note in _notes(table)):
        return typeset
    moved: list[list[Node]] = []

    def visit(value: Any) -> Any:
        if isinstance(value, list):
            return [visit(v) for v in value]
        if not isinstance(value, dict) or "c" not in value:
            return value
        if value.get("t") == "Note":
            moved.append(value["c"])
            return {"t": "RawInline", "c": ["latex", "\\footnotemark{}"]}
        return {**value, "c": visit(value["c"])}

    out = visit(typeset)
    out.append({"t": "RawBlock", "c": ["latex", f"\\addtocounter{{footnote}}{{-{len(moved)}}}"]})
    for blocks in moved:
        out += [{"t": "RawBlock", "c": ["latex", "\\refstepcounter{footnote}\\footnotetext{%"]}, *blocks,
                {"t": "RawBlock", "c": ["latex", "}"]}]
    return out


def docx_note_refs(doc: pf.Doc) -> pf.Doc:
    """``doc`` with each :func:`share_notes` reference a ``NOTEREF`` field to the bookmark that
    pandoc writes around the first reference, showing the note's number (notes counted in order)."""
    numbers: dict[str, int] = {}
    seen = [0]

    def action(elem: pf.Element, _doc: pf.Doc) -> pf.Element | None:
        if isinstance(elem, pf.Note):
            seen[0] += 1
        elif isinstance(elem, pf.Span) and FIRST in elem.classes:
            numbers[elem.identifier] = seen[0]
        elif isinstance(elem, pf.Span) and REPEAT in elem.classes:
            name = elem.attributes["note"]
            return pf.RawInline(_NOTEREF.format(name=name, number=numbers.get(name, "")), format="openxml")
        return None

    return doc.walk(action)
