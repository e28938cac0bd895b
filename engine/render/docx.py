"""Render a ReportDocument to report.docx: the same parts as the PDF, through pandoc and a reference document."""

from __future__ import annotations

import io
import itertools
import json
import re
import threading
import unicodedata
import zipfile
from datetime import UTC, datetime
from datetime import date as Date
from pathlib import Path

import panflute as pf
from lxml import etree

from engine.chinese import TRADITIONAL
from engine.render import ReportDocument
from engine.render.latex import REVIEW_FIELDS, document_labels, field_label
from engine.render.markdown import (
    Node,
    Sanitizer,
    clean_text,
    field_inlines,
    pandoc_api_version,
    parse_markdown,
    plain_inlines,
    url_inlines,
)
from engine.render.notes import docx_note_refs, note_keys, share_notes
from engine.render.outputs import write_atomic
from engine.render.pandoc import run_pandoc
from engine.source_links import source_text, web_link

REFERENCE = Path(__file__).with_name("templates") / "reference.docx"  # styles: title, headings, bordered tables
#: The package part with the document's core properties, and the Dublin Core terms it dates the
#: document by (ECMA-376 Part 2, 11: Core Properties; W3CDTF dates).
CORE_PROPERTIES = "docProps/core.xml"
_DATED = ("{http://purl.org/dc/terms/}created", "{http://purl.org/dc/terms/}modified")


def _elements(blocks: list[Node]) -> list[pf.Element]:
    """Pandoc JSON blocks as panflute elements."""
    data = {"pandoc-api-version": pandoc_api_version(), "meta": {}, "blocks": blocks}
    return list(pf.load(io.StringIO(json.dumps(data))).content)


def _inlines(inlines: list[Node]) -> list[pf.Element]:
    return list(_elements([{"t": "Plain", "c": inlines}])[0].content) if inlines else []


def _strikeout(elem: pf.Element, _doc: pf.Doc) -> pf.Element | None:
    """The Sanitizer's word-by-word strike-out span is Word's strike-through again."""
    if isinstance(elem, pf.Span) and "drb-strike" in elem.classes:
        return pf.Strikeout(*elem.content)
    return None


def _direction(text: str) -> str:
    """``rtl`` when the first strong letter of ``text`` is right-to-left (Arabic, Hebrew), else ``ltr``."""
    for ch in text:
        kind = unicodedata.bidirectional(ch)
        if kind in ("R", "AL"):
            return "rtl"
        if kind == "L":
            return "ltr"
    return "ltr"


def _bidi(elem: pf.Element, _doc: pf.Doc) -> pf.Element | None:
    """Right-to-left words become ``dir=rtl`` spans (Word's ``w:rtl`` runs) and paragraphs that
    start right to left ``dir=rtl`` divs (``w:bidi``), so Word orders them right to left."""
    if isinstance(elem, pf.Str) and _direction(elem.text) == "rtl" and not (
            isinstance(elem.parent, pf.Span) and elem.parent.attributes.get("dir") == "rtl"):
        return pf.Span(pf.Str(elem.text), attributes={"dir": "rtl"})
    if isinstance(elem, (pf.Para, pf.Plain, pf.Header)) and isinstance(elem.parent, (pf.Doc, pf.BlockQuote, pf.Div,
                                                                                     pf.ListItem)):
        if _direction(pf.stringify(elem)) == "rtl" and not (
                isinstance(elem.parent, pf.Div) and elem.parent.attributes.get("dir") == "rtl"):
            return pf.Div(elem, attributes={"dir": "rtl"})
    return None


def docx_document(doc: ReportDocument, cancel: threading.Event | None = None) -> pf.Doc:
    """The report as a pandoc document for the docx writer.

    Title (Word's Title style), notice, date and question, the executive summary (when the report has one), the body
    (its headings from Heading 1), the Sources list (when the report has one; each entry a bookmark ``src-n`` that the
    body's ``[n]`` link to, and a hyperlink to the source) and the review appendix. Markdown is
    parsed by pandoc, stopped as soon as ``cancel`` is set (raises :class:`engine.render.pandoc.PandocCancelled`).
    """
    labels = document_labels(doc)
    cited = {s.number for s in doc.sources}
    fields = itertools.count()

    def markdown(text: str, level: int, keep_ids: bool = False) -> list[pf.Element]:
        blocks = parse_markdown(text, cancel)
        if keep_ids and blocks and blocks[0]["t"] == "Header" and blocks[0]["c"][0] == 1 and (
                pf.stringify(_elements(blocks[:1])[0]).split() == doc.title.split()):
            blocks = blocks[1:]  # the report's own title, already on top
        return _elements(share_notes(Sanitizer(level, keep_ids, cited).blocks(blocks), f"drbnote{next(fields)}",
                                           note_keys(clean_text(text))))

    def plain(text: str) -> list[pf.Element]:
        return _inlines(plain_inlines(text))

    def empty(label: str) -> list[pf.Element]:
        return [pf.Para(pf.Emph(*plain(labels[label])))]

    def front(key: str) -> list[pf.Element]:
        """The title or a line under it: its Markdown as report.md writes it, else its plain text."""
        written = doc.front_markdown.get(key)
        return _inlines(field_inlines(written, cancel)) if written else plain(getattr(doc, key))

    # the title property Word shows is its plain words: pandoc writes a title's inlines there as text
    title = front("title") or plain(doc.question.split("\n")[0][:120]) or plain("Report")

    blocks = _front(doc, labels, plain, front)
    if summary := markdown(doc.executive_summary, 2):  # a report without a summary shows no such section
        blocks += [pf.Header(*plain(labels["summary"]), level=1), *summary]
    blocks += markdown(doc.body, 1, keep_ids=True)
    if doc.sources_section:  # a report.md without one shows none
        blocks += _sources(doc, labels, plain)
        if not doc.sources:
            blocks += empty("nosources")
    blocks.append(pf.Header(*plain(labels["review"]), level=1))
    for r in doc.review:
        blocks.append(pf.Header(*plain(labels["iteration"].format(n=r.iteration)), level=2))
        for field, key in REVIEW_FIELDS.items():
            blocks.append(pf.Header(*plain(labels[key]), level=3))
            blocks += markdown(getattr(r, field), 4) or [pf.Para(*plain(labels["none"]))]
    if not doc.review:
        blocks += empty("noreview")
    if _direction(pf.stringify(pf.Para(*title))) == "rtl":
        title = [pf.Span(*title, attributes={"dir": "rtl"})]
    meta = {"title": pf.MetaInlines(*title)}  # the date is a line of its own, labelled
    if doc.language:  # Word names Traditional Chinese by a region (its proofing languages: zh-TW, zh-HK)
        meta["lang"] = pf.MetaString("zh-TW" if doc.language == TRADITIONAL else doc.language)
    document = pf.Doc(*blocks, metadata=meta, api_version=tuple(pandoc_api_version()))
    return docx_note_refs(document.walk(_strikeout).walk(_bidi))


def _front(doc: ReportDocument, labels: dict, plain, front) -> list[pf.Element]:
    """The notice, the date, the question and the clarifying questions asked with their answers
    (one line each), above the summary; ``front(key)`` gives the inlines of the line ``key``."""
    def label(key: str) -> list[pf.Element]:  # bold, its colon in the bold or after it, as report.md writes it
        return _inlines(field_label(doc, labels, key))

    blocks: list[pf.Element] = []
    if doc.notice and doc.notice.strip():
        blocks.append(pf.Para(pf.Emph(*plain(doc.notice))))
    if doc.date.strip():  # none written: no date line
        blocks.append(pf.Para(*label("date"), pf.Space(), *front("date")))
    for key in ("question", "clarification"):
        if inlines := front(key):
            blocks += [pf.Para(*label(key)), pf.BlockQuote(pf.Para(pf.Emph(*inlines)))]
    return blocks


def _sources(doc: ReportDocument, labels: dict, plain) -> list[pf.Element]:
    """The Sources heading and one entry per source (a ``src-n`` bookmark, its title, its link; a
    source without a web address named as text: :func:`engine.source_links.source_text`)."""
    blocks: list[pf.Element] = [pf.Header(*plain(labels["sources"]), level=1, identifier="sources")]
    for s in doc.sources:
        href = web_link(s.url)
        entry = [pf.Span(pf.Str(f"[{s.number}]"), identifier=f"src-{s.number}"), pf.Space(),
                 *plain(s.title if href else source_text(s.title, s.url))]
        link = _inlines(url_inlines(href)) if href else []
        blocks.append(pf.Para(*entry, *([pf.LineBreak(), *link] if link else [])))
    return blocks


def render_docx(doc: ReportDocument, path: Path, *, cancel: threading.Event | None = None) -> Path:
    """Write ``doc`` to ``path`` as a Word document (.docx), atomically (temp file, then rename).

    Images are never fetched (the Sanitizer turned them into links); the styles come from
    ``templates/reference.docx``. pandoc runs in a session of its own (:mod:`engine.render.pandoc`)
    and is stopped as soon as ``cancel`` is set; then nothing is written.

    Raises:
        engine.render.pandoc.PandocCancelled: ``cancel`` was set first; RuntimeError: pandoc failed;
        OSError: ``path`` cannot be written.
    """
    buffer = io.StringIO()
    pf.dump(docx_document(doc, cancel), buffer)
    data = run_pandoc(["--from=json", "--to=docx", "--sandbox", f"--reference-doc={REFERENCE}", "--output=-"],
                      buffer.getvalue(), cancel=cancel)
    return write_atomic(Path(path), _dated(data, _day(doc.date)))


def _day(written: str) -> str:
    """The ISO day a report's date (as report.md writes it) names for the document's properties: the
    ISO date it starts with (``2020-01-01 (revised)``), else today's (``1 March 2021``: the text
    shows it as written)."""
    found = re.match(r"\s*(\d{4}-\d\d-\d\d)(?!\d)", written)
    try:
        return Date.fromisoformat(found.group(1)).isoformat() if found else datetime.now(UTC).date().isoformat()
    except ValueError:  # 2020-13-45
        return datetime.now(UTC).date().isoformat()


def _dated(data: bytes, day: str) -> bytes:
    """The .docx ``data`` with its core properties' created and modified dates set to ``day`` (ISO
    ``YYYY-MM-DD``, the report's date; midnight UTC): pandoc's sandbox has no clock and dates
    every document 1970-01-01. Every other part, and each part's order, compression and zip
    date, stays as pandoc wrote it, so the same report gives the same file. ``data`` unchanged
    when ``day`` is no ISO date or the package has no core properties part.

    Raises:
        zipfile.BadZipFile, lxml.etree.XMLSyntaxError: ``data`` is no .docx package.
    """
    try:
        stamp = Date.fromisoformat(day).isoformat() + "T00:00:00Z"
    except ValueError:
        return data
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as package, zipfile.ZipFile(out, "w") as copy:
        if CORE_PROPERTIES not in package.namelist():
            return data
        for info in package.infolist():
            part = package.read(info)
            if info.filename == CORE_PROPERTIES:
                core = etree.fromstring(part)
                for name in _DATED:
                    for element in core.iter(name):
                        element.text = stamp
                part = etree.tostring(core, xml_declaration=True, encoding="UTF-8")
            copy.writestr(info, part)
    return out.getvalue()
