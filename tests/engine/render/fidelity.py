"""Words of a report body as a reader should see them, and of each rendered output, for the fidelity check.

:func:`body_words` is the reference: it reads the body with pandoc and returns every visible word
(text, code, link text, footnotes, table cells, raw HTML and math shown literally). Each output's
reader (:func:`pdf_words`, :func:`docx_words`, or a chat rendering's text) is compared to it with
:func:`compare`, as multisets, so that tables and footnotes may move text around.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import unicodedata
from collections import Counter
from pathlib import Path

import panflute as pf
from docx.oxml import parse_xml
from docx.oxml.ns import qn
from pypdf import PdfReader

from engine.render.fonts import placeholder
from engine.render.markdown import pandoc_api_version, parse_markdown, strip_html
from engine.render.rawhtml import hide_elements

# A citation group as the report writes it: unescaped, digits only, outside code.
CITATION = re.compile(r"(?<!\\)\[(\d+(?:\s*,\s*\d+)*)\]")
_EMOJI = re.compile("[\U0001F1E6-\U0001F1FF]{2}|[\u2600-\u27bf\U0001F000-\U0001FAFF][\ufe0f\U0001F3FB-\U0001F3FF]?")
_AS_WRITTEN = {0xFDD0: "\\[", 0xFDD1: "\\]"}  # escaped brackets as parsed: code shows the backslash
_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)
# List bullets and numbers an output draws itself.
LIST_MARKER = re.compile(r"•|–|\*|·|◦|\d{1,3}\.|\(?[a-z]{1,4}[.)]|[A-Z]\.")
_DASHES = str.maketrans({"\u00ad": None, "\u200b": None, "\u2011": "-"})


def body_words(markdown: str) -> list[str]:
    """The words a reader should see of a Markdown body, in reading order (footnotes in place,
    a note referenced twice once: pandoc copies it into each reference).

    The rules every output follows: code, math and raw text other than HTML markup are shown as
    written (backslash-escapes resolved); HTML comments and ordinary HTML tags are hidden
    (``<br>`` ends a line), an element whose content a browser does not show is ``[script]``
    (:mod:`engine.render.rawhtml`); an image is ``[image: alt]``; a link is its text; a task list's box
    is a word (☐ or ☒); an emoji counts as the placeholder of an output without an emoji font.
    This is the hook for every rendering's check (PDF, Word, chat text).
    """
    document = pf.load(io.StringIO(json.dumps({"pandoc-api-version": pandoc_api_version(), "meta": {},
                                               "blocks": _hidden(parse_markdown(markdown))})))
    pieces: list[str] = []
    notes: set[str] = set()

    def visit(elem: pf.Element) -> None:
        if isinstance(elem, pf.Note):
            key = json.dumps(elem.to_json())
            if key in notes:  # its number only, apart from the word before it
                pieces.append(" ")
                return
            notes.add(key)
        if isinstance(elem, pf.Str):
            pieces.append(elem.text)
        elif isinstance(elem, pf.Code | pf.Math):
            pieces.append(elem.text.translate(_AS_WRITTEN))
        elif isinstance(elem, pf.RawInline | pf.RawBlock):
            text = (strip_html(elem.text) if elem.format == "html" else elem.text).translate(_AS_WRITTEN)
            pieces.append(" " + text + " " if isinstance(elem, pf.RawBlock) or _BR.fullmatch(text.strip()) else text)
        elif isinstance(elem, pf.CodeBlock):
            pieces.append("\n" + elem.text.translate(_AS_WRITTEN) + "\n")
        elif isinstance(elem, pf.Space | pf.SoftBreak | pf.LineBreak | pf.Block):
            pieces.append(" ")
        if isinstance(elem, pf.Image):
            alt = pf.stringify(elem)
            pieces.append(f"[image: {alt}]" if alt.strip() else "[image]")
            return
        for child in _children(elem):
            visit(child)
        if isinstance(elem, pf.Block):
            pieces.append(" ")

    for block in document.content:
        visit(block)
    return words("".join(pieces).translate({0xFDD0: "[", 0xFDD1: "]"}))


def _hidden(value: object) -> object:
    """Pandoc JSON with each hidden element written inline (``<script>…</script>``) as its stand-in."""
    if isinstance(value, list):
        return [_hidden(item) for item in hide_elements(value)]
    if isinstance(value, dict):
        return {key: _hidden(item) for key, item in value.items()}
    return value


def _children(elem: pf.Element) -> list[pf.Element]:
    if isinstance(elem, pf.Table):
        return [elem.head, *elem.content, elem.foot]
    if isinstance(elem, pf.Code | pf.CodeBlock | pf.RawInline | pf.RawBlock | pf.Math):
        return []
    content = getattr(elem, "content", None)
    if isinstance(elem, pf.DefinitionItem):
        return [*elem.term, *elem.definitions]
    return list(content) if content is not None else []


_BIDI_MARKS = dict.fromkeys([0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)])
_RTL = "\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff"


def words(text: str) -> list[str]:
    """Words for comparison: whitespace-separated after normalising what outputs may vary in.

    ``words`` of a chat rendering's text, compared with :func:`compare` to :func:`body_words`,
    is the same check for Slack and Teams.

    NFKC (Arabic presentation forms back to letters), bidi controls and soft hyphens dropped,
    combining marks dropped (PDF text extraction reorders Indic vowel signs), punctuation next
    to right-to-left letters split off (its visual side varies), task boxes in one form, emoji
    as the placeholder an output without an emoji font shows.
    """
    text = unicodedata.normalize("NFC", text).translate({0x2610: "□", 0x2612: "⊠"})
    text = _EMOJI.sub(lambda m: " " + placeholder(m.group()) + " ", text)
    text = unicodedata.normalize("NFKC", text).translate(_DASHES).translate(_BIDI_MARKS)
    text = "".join(c for c in text if not unicodedata.category(c).startswith("M"))
    text = re.sub(rf"(?<=[{_RTL}])([^\w\s])|([^\w\s])(?=[{_RTL}])", r" \1\2 ", text)
    text = re.sub(rf"(?<=[{_RTL}])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?=[{_RTL}])", " ", text)
    return [w for w in text.split() if w not in ("□", "⊠")]  # task boxes: list markers, drawn per output


def pdf_text(path: Path) -> str:
    """The PDF's text by ``pdftotext`` (reading order, UTF-8), without each page's date and number."""
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], capture_output=True, text=True,
                         check=True).stdout
    pages = []
    for page in out.split("\f"):
        lines = [ln for ln in page.strip("\n").split("\n") if not re.fullmatch(r"\d{4}-\d\d-\d\d", ln.strip())]
        number = str(len(pages) + 1)  # the footer: not always last (pdftotext orders blocks itself)
        last = max((k for k, ln in enumerate(lines) if ln.strip() == number), default=None)
        if last is not None:
            del lines[last]
        pages.append("\n".join(lines))
    return "\n".join(pages)


def docx_text(path: Path, notes: bool = True) -> str:
    """The text of a .docx by python-docx: body paragraphs (tables included), then the footnotes."""
    from docx import Document

    document = Document(str(path))
    lines = [_paragraph_text(p) for p in document.element.body.iter(qn("w:p"))]
    if notes:
        lines.append(docx_notes(path))
    return "\n".join(lines)


def docx_notes(path: Path) -> str:
    """The text of a .docx's footnotes."""
    from docx import Document

    lines = []
    for rel in Document(str(path)).part.rels.values():
        if rel.reltype.endswith("/footnotes"):
            root = parse_xml(rel.target_part.blob)
            for note in root.iter(qn("w:footnote")):
                if note.get(qn("w:type")) in (None, "normal"):
                    lines += [_paragraph_text(p) for p in note.iter(qn("w:p"))]
    return "\n".join(lines)


def _paragraph_text(paragraph) -> str:
    """A paragraph's text; a note's number shown by a NOTEREF field is set apart, as pdftotext reads a footnote mark."""
    out = []
    noteref = False
    for node in paragraph.iter(qn("w:t"), qn("w:br"), qn("w:cr"), qn("w:tab"), qn("w:instrText"), qn("w:fldChar")):
        if node.tag == qn("w:instrText"):
            noteref = "NOTEREF" in (node.text or "")
        elif node.tag == qn("w:fldChar"):
            out.append(" " if noteref and node.get(qn("w:fldCharType")) == "end" else "")
        else:
            out.append(node.text or "" if node.tag == qn("w:t") else "\n" if node.tag != qn("w:tab") else "\t")
    return "".join(out)


def docx_links(path: Path) -> tuple[list[tuple[str, str]], set[str], set[str]]:
    """``([(shown text, bookmark)] of internal links, bookmark names, external link targets)``.

    Internal links are those of the body, then those of the footnotes.
    """
    from docx import Document

    document = Document(str(path))
    roots = [document.element.body] + [parse_xml(r.target_part.blob) for r in document.part.rels.values()
                                        if r.reltype.endswith("/footnotes")]
    internal = [("".join(t.text or "" for t in h.iter(qn("w:t"))), h.get(qn("w:anchor")))
                for root in roots for h in root.iter(qn("w:hyperlink")) if h.get(qn("w:anchor"))]
    bookmarks = {b.get(qn("w:name")) for b in document.element.body.iter(qn("w:bookmarkStart"))}
    external = {r.target_ref for r in document.part.rels.values() if r.is_external}
    return internal, bookmarks, external


def compare(expected: list[str], got_text: str, allowed_extra: Counter | None = None,
            footnotes: int = 0) -> tuple[Counter, Counter]:
    """``(lost, added)`` words of ``got_text`` against ``expected``, as multisets.

    A word broken across lines (with or without a hyphen) is joined back when the pieces make
    an expected word; where text extraction moves punctuation across a right-to-left run, the
    words differ but their characters do not, and the check is by characters; a trailing footnote number glued to a word (``claim1``) is split off when
    the body has ``footnotes``. ``allowed_extra`` words (bullets, placeholders) are not "added".
    """
    want = Counter(expected)
    tokens = words(got_text)
    added: Counter = Counter()
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if want[tok] > 0:
            want[tok] -= 1
            i += 1
            continue
        joined, matched = tok, 0
        for j in range(i + 1, min(i + 6, len(tokens))):
            # a line broken at a hyphen: the hyphen was the word's own (dist-packages) or added
            heads = [joined, joined[:-1]] if joined.endswith("-") and want[joined] <= 0 else [joined]
            found = next((h + tokens[j] for h in heads if want[h + tokens[j]] > 0 or any(
                w.startswith(h + tokens[j]) for w in want if want[w] > 0)), None)
            if found:
                joined = found
                if want[joined] > 0:
                    matched = j
                    break
            else:
                break
        if matched:
            want[joined] -= 1
            i = matched + 1
            continue
        stripped = tok.rstrip("0123456789") if footnotes else tok
        # pdftotext drops a hyphen that ends a line: dist-packages broken there reads distpackages
        unhyphenated = next((w for w in want if want[w] > 0 and "-" in w and w.replace("-", "") == tok), None)
        if unhyphenated:
            want[unhyphenated] -= 1
        elif stripped != tok and want[stripped] > 0:
            want[stripped] -= 1
        elif footnotes and tok.isdigit() and int(tok) <= footnotes:
            pass
        elif not LIST_MARKER.fullmatch(tok):
            added[tok] += 1
        i += 1
    added -= allowed_extra or Counter()
    lost = +want
    if lost and re.search(f"[{_RTL}]", got_text) and _chars(lost) == _chars(added):
        return Counter(), Counter()  # punctuation moved across a right-to-left run by the text extraction
    return lost, added


def _chars(words: Counter) -> Counter:
    return Counter(c for w, n in words.items() for c in w * n)


def table_headers(markdown: str) -> Counter:
    """Words of the tables' header rows: a table running over pages repeats them on each."""
    document = pf.load(io.StringIO(json.dumps({"pandoc-api-version": pandoc_api_version(), "meta": {},
                                               "blocks": parse_markdown(markdown)})))
    found: Counter = Counter()

    def visit(elem: pf.Element, _doc: pf.Doc) -> None:
        if isinstance(elem, pf.TableHead):
            for cell in (c for row in elem.content for c in row.content):
                found.update(words(pf.stringify(cell)))

    document.walk(visit)
    return found


def expected_citations(markdown: str, sources: set[int]) -> list[int]:
    """The citation numbers of a body, outside code, in order (each number of a group)."""
    text = re.sub(r"```.*?```|`[^`\n]*`", "", markdown, flags=re.S)
    out = []
    for m in CITATION.finditer(text):
        numbers = [int(x) for x in re.split(r"\s*,\s*", m.group(1))]
        if all(n in sources for n in numbers):
            out.extend(numbers)
    return out


def pdf_citation_links(path: Path) -> list[tuple[str, str]]:
    """``(word under the link, destination name)`` of each internal link whose destination is a source.

    The word is the one ``pdftotext -bbox`` places under the link's rectangle (e.g. ``[1,``).
    """
    out = []
    words_by_page = _word_boxes(path)
    for number, page in enumerate(PdfReader(path).pages):
        height = float(page.mediabox.height)
        for annot in page.get("/Annots") or []:
            obj = annot.get_object()
            action = obj.get("/A")
            dest = action.get("/D") if action is not None else obj.get("/Dest")
            if dest is None or not str(dest).startswith("src-"):
                continue
            x0, y0, x1, y1 = (float(v) for v in obj["/Rect"])
            top, bottom = height - y1, height - y0
            under = [w for (wx0, wy0, wx1, wy1, w) in words_by_page[number]
                     if wx0 < x1 and wx1 > x0 and wy0 < bottom and wy1 > top]
            out.append((" ".join(under), str(dest)))
    return out


def _word_boxes(path: Path) -> list[list[tuple[float, float, float, float, str]]]:
    """Per page, ``(xMin, yMin, xMax, yMax, word)`` from ``pdftotext -bbox`` (origin top left)."""
    from html import unescape

    out = subprocess.run(["pdftotext", "-bbox", "-enc", "UTF-8", str(path), "-"], capture_output=True, text=True,
                         check=True).stdout
    pages = []
    for page in out.split("<page ")[1:]:
        pages.append([(float(m[1]), float(m[2]), float(m[3]), float(m[4]), unescape(m[5])) for m in re.finditer(
            r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</word>', page)])
    return pages
