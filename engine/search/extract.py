"""Text extraction for the corpus: the title and plain text of a Markdown, text, RST, HTML, PDF, CSV or
DOCX file (the last two read as a file shared with a question is, :func:`engine.files.read.read_file`)."""

from __future__ import annotations

import functools
import logging
import math
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from engine.search.base import TITLE_CHARS, Unreadable
from engine.search.html_text import LINK_MARK, html_text, without_captions
from engine.search.markdown_text import inline_text, markdown_text
from engine.search.pdf_layout import prose_lines, without_furniture
from engine.search.text_encoding import bom_encoding, decode, undeclared_encoding
from engine.text import has_words, one_line

if TYPE_CHECKING:
    from pypdf import PdfReader

__all__ = ["LINK_MARK", "SUPPORTED_SUFFIXES", "Unreadable", "decode_text", "extract_document", "html_text",
           "opening_heading", "pdf_page_text", "pdf_pages_text", "pdf_reading", "without_captions"]

#: The file name endings the corpus reads: every one a shared file (``ask --file``) is read by
#: (:data:`engine.files.read.KINDS`), and reStructuredText.
SUPPORTED_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".text", ".log", ".rst", ".html", ".htm", ".pdf",
                                ".csv", ".docx"})
#: The endings read by the shared files' reader (:func:`engine.files.read.read_file`) alone.
_READ_AS_SHARED = frozenset({".csv", ".docx"})
MAX_FILE_BYTES = 64 * 1024 * 1024
#: How a line that is a sentence, not a heading, ends (Latin and CJK full stops, question and exclamation marks).
_SENTENCE_ENDS = (".", "!", "?", "。", "！", "？")
#: A section number on a line of its own ("1.2", "3.", "4)"): a heading's number, never a title.
_SECTION_NUMBER = re.compile(r"\d+(?:\.\d+)*[.)]?")
#: How far into a Markdown file its title heading is looked for, in characters: a level-1 heading
#: further in is a part's, and a big file is not parsed whole for its title.
TITLE_SEARCH_CHARS = 256 * 1024
#: The Latin ligatures of Unicode's Alphabetic Presentation Forms (U+FB00-U+FB06: ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ), which a
#: PDF's ToUnicode map gives for a font's ligature glyphs (xelatex's "eﬀiciency"), as the letters they
#: join (their Unicode compatibility decompositions); no other character is mapped ("m²" stays).
_LIGATURES = {code: unicodedata.normalize("NFKC", chr(code)) for code in range(0xFB00, 0xFB07)}
#: How much larger than a page's body text a line's type is for the line to be a heading.
_HEADING_SCALE = 1.1


def extract_document(path: Path, size: int) -> tuple[str, str]:
    """Return ``(title, text)`` of the file at ``path`` (``size`` bytes), passages split by blank lines.

    The title comes from HTML ``<title>`` (else the first ``<h1>``), Markdown front matter or the
    first level-1 heading outside code (:func:`_markdown`), the first reStructuredText section title
    (:func:`_rst_title`; never its first line otherwise, which may be ``.. _label:``), PDF
    metadata, a DOCX file's opening heading (a CSV file has none: its first line is its column
    names), else the first short line unless it ends as a sentence does (it is then text, not a
    heading); in Markdown the first line of the first block, and only when that block is a heading
    or a paragraph (a code fence or a list item is no title); else the file name. A title is never
    just a section number (:data:`_SECTION_NUMBER`, "1.2", "3."): a first line that is one gives way
    to the line after it (a PDF's "1.2" above "Heat pumps" is titled "Heat pumps"; "1.2 Heat pumps"
    on one line stays whole), under the same rule. A title without a
    letter or digit gives way to the file name. It is one line of at most :data:`TITLE_CHARS`
    characters (:func:`engine.text.one_line`). The title taken from a first line stays in ``text``.
    An HTML page's link captions are in ``text``, each line opening with :data:`LINK_MARK`
    (:func:`html_text`): searched, not read (:func:`without_captions`). A CSV or DOCX file's text is
    what ``ask --file`` reads of it (:func:`_shared_file_text`), its sections apart by blank lines.

    Raises:
        Unreadable: the file is too big, binary, malformed or not readable.
    """
    if size > MAX_FILE_BYTES:
        raise Unreadable(f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
    name = path.name.lower()
    suffix = path.suffix.lower()
    first = None  # the line a title may be taken from when none is marked; None: the text's first line
    try:
        if suffix == ".pdf":
            title, text = _pdf(path)
        elif suffix in _READ_AS_SHARED:
            title, text = _shared_file_text(path)
            first = ""  # a CSV file's column names, a DOCX file's first paragraph: no title
        else:
            data = path.read_bytes()
            if suffix in (".html", ".htm"):
                title, text = html_text(data, links=True)
            else:
                text = decode_text(data)
                if suffix == ".rst" or name.endswith(".rst.txt"):
                    # reStructuredText marks its title: a first line that is not one (a ".. _label:"
                    # link target, a directive, a comment, a paragraph) is never taken instead
                    title, first = _rst_title(text), ""
                elif suffix in (".md", ".markdown"):
                    title, first, text = _markdown(text)
                else:
                    title = None
    except OSError as err:
        raise Unreadable(err.strerror or type(err).__name__) from err
    text = re.sub(r"\n{3,}", "\n\n", text.replace("\x00", "")).strip()
    if title and _SECTION_NUMBER.fullmatch(title.strip()):
        title = None
    if not title:
        lines = [line.strip() for line in without_captions(text).splitlines() if line.strip()]
        if first is None:  # never a line of link captions (a navigation bar's)
            first = lines[0] if lines else ""
        first = first.strip()
        if _SECTION_NUMBER.fullmatch(first):  # "1.2" above its heading's text: the text is the title
            at = lines.index(first) + 1 if first in lines else len(lines)
            first = lines[at] if at < len(lines) else ""
        title = first if len(first) <= 120 and not first.endswith(_SENTENCE_ENDS) else None
    if not has_words(title or ""):  # spaces, a zero-width space, "#", "---": nothing to read
        title = None
    return one_line(title or path.name, TITLE_CHARS), text


def _shared_file_text(path: Path) -> tuple[str | None, str]:
    """``(title, text)`` of a CSV or DOCX file as a file shared with a question is read
    (:func:`engine.files.read.read_file`, no page or character cap): its sections (a CSV file's
    blocks of rows, each with the column names; a DOCX file's parts under its headings, then its
    tables) apart by blank lines. The title is the heading a DOCX file opens with, else None.

    Raises:
        Unreadable: the shared files' reader's reason (``corrupt CSV (…)``, ``not a DOCX (not a zip
            file)``, ``no text``).
    """
    from engine.files import read

    try:
        shared = read.read_file(path, path.name, 0, sys.maxsize)
    except read.Unreadable as err:
        raise Unreadable(str(err)) from err
    opening = shared.sections[0][0] if shared.sections else ""
    title = opening.removeprefix("section: ") if shared.kind == "docx" and opening.startswith("section: ") else None
    return title, "\n\n".join(text for _, text in shared.sections)


def decode_text(data: bytes) -> str:
    """Text of a file's bytes, in the encoding its byte-order mark names, else UTF-8 when they are
    UTF-8, else windows-1252 unless the text is plainly Russian, Japanese or Chinese in a legacy
    encoding (:func:`engine.search.text_encoding.undeclared_encoding`); line ends made ``\n``.

    Raises:
        Unreadable: a NUL byte in the first 8 KiB of a file without a UTF-16 byte-order mark (binary content).
    """
    codec = bom_encoding(data)
    if not (codec or "").startswith("utf_16") and b"\x00" in data[:8192]:
        raise Unreadable("binary file")
    codec = codec or undeclared_encoding(data)
    return decode(data, codec).replace("\r\n", "\n").replace("\r", "\n")


def opening_heading(text: str) -> tuple[str, str] | None:
    """The heading that opens Markdown ``text``, as CommonMark reads it (markdown-it-py,
    https://spec.commonmark.org/0.31.2/#atx-headings and #setext-headings): an ATX ``## Title``
    line of any level or a setext ``Title`` underlined with ``=`` or ``-``.

    Returns ``(heading, rest)``: the heading's text as written without its marks, and the text after
    it (stripped); None when ``text`` opens with anything else: a paragraph (a plain first line, even
    a short one), a list, code, a quote, a table or HTML.
    """
    text = text.strip()
    first_block = text.partition("\n\n")[0]  # a heading ends before the first blank line
    tokens = _markdown_blocks(first_block)
    if not tokens or tokens[0].type != "heading_open" or tokens[0].map is None:
        return None
    return tokens[1].content, "\n".join(text.split("\n")[tokens[0].map[1]:]).strip()


@functools.cache
def _markdown_parser():
    from markdown_it import MarkdownIt

    # the block structure only: a heading's or a paragraph's text stays as written (its inline token's content)
    return MarkdownIt("commonmark").enable("table").disable("inline")


def _markdown_blocks(text: str) -> list:
    """markdown-it-py's block tokens of ``text`` (CommonMark and GFM tables)."""
    return _markdown_parser().parse(text)


def _markdown(text: str) -> tuple[str | None, str, str]:
    """``(title, first line, text)`` of a Markdown file. The title is the front matter's ``title:``,
    else the first level-1 heading (ATX or setext) in the first :data:`TITLE_SEARCH_CHARS` characters,
    found in markdown-it-py's tokens (a ``# comment`` in code, HTML or a quote is none). The first line
    is that of the first block when it is a heading or a paragraph, else "" (a code fence, a list item,
    a table row or an HTML line is no title). Title, first line and text are as a reader sees them
    (:mod:`engine.search.markdown_text`: ``*really*`` is "really", a link its text), the text without
    the file's front matter."""
    title = None
    front = re.match(r"---\n(.*?)\n(?:---|\.\.\.)\n", text, re.S)
    if front:
        text = text[front.end():]
        found = re.search(r"^title:\s*(.+?)\s*$", front.group(1), re.M)
        title = found.group(1).strip("\"'") if found else None
    head = text
    if len(head) > TITLE_SEARCH_CHARS:  # cut between blocks: a block cut in two could read as a heading
        head = head[:TITLE_SEARCH_CHARS].rpartition("\n\n")[0] or head[:TITLE_SEARCH_CHARS]
    tokens = _markdown_blocks(head)
    heading = next((inline_text(tokens[n + 1].content) for n, token in enumerate(tokens)
                    if token.type == "heading_open" and token.tag == "h1" and token.level == 0), None)
    opens = tokens and tokens[0].type in ("heading_open", "paragraph_open")
    first = inline_text(tokens[1].content).partition("\n")[0] if opens else ""
    return title or heading, first, markdown_text(text)


#: An reStructuredText section adornment: one printable ASCII character that is not a letter or a
#: digit, repeated (three times or more here).
_RST_ADORNMENT = re.compile(r"([!-/:-@\[-`{-~])\1{2,}\s*$")
#: The start of an reStructuredText explicit markup block: two full stops, then whitespace or the
#: line's end (https://docutils.sourceforge.io/docs/ref/rst/restructuredtext.html#explicit-markup-blocks):
#: a link target (``.. _label:``), a directive (``.. note::``), a substitution, a footnote or a comment.
_RST_EXPLICIT = re.compile(r"\.\.(?:\s|$)")


def _rst_title(text: str) -> str | None:
    """The first section title of reStructuredText ``text``: a line underlined (and maybe overlined)
    with one punctuation character at least as long as it, starting at the line's start (an
    overlined title may be inset), its roles (``:ref:`x```) and inline literals unmarked; None when
    there is none. A line of explicit markup (``.. _label:``, ``.. note::``, ``..``) is never a
    title, nor an indented line (a directive's or a comment's body, a literal block)
    (https://docutils.sourceforge.io/docs/ref/rst/restructuredtext.html#sections)."""
    lines = text.splitlines()
    for n, (line, under) in enumerate(zip(lines, lines[1:], strict=False)):
        if not line.strip() or _RST_ADORNMENT.match(line) or not _RST_ADORNMENT.match(under) \
                or len(under.rstrip()) < len(line.rstrip()) or _RST_EXPLICIT.match(line.lstrip()):
            continue
        over = lines[n - 1].rstrip() if n else ""
        if line[0] in " \t" and over != under.rstrip():  # inset: only under an overline like its underline
            continue
        return re.sub(r":[\w:+-]+:`([^`]*)`", r"\1", line.strip()).replace("``", "")
    return None


def pdf_pages_text(pages: list) -> list[str]:
    """The texts of ``pages`` (pypdf pages of one file, in order from its first page), each as
    :func:`pdf_page_text` reads it, without the page numbers and the running heads and feet that the
    pages show together (:func:`engine.search.pdf_layout.without_furniture`), before the layout is undone.

    Raises what ``page.extract_text`` raises on a malformed page.
    """
    return [prose_lines(text) for text in without_furniture([_page_lines(page) for page in pages])]


def pdf_page_text(page) -> str:
    """The text of a pypdf page (``page.extract_text()``, lines as the page sets them), its ligature
    characters as their letters (:data:`_LIGATURES`) and its headings apart: a line set wholly in
    type larger than the page's body text (the size most of its characters have, by
    :data:`_HEADING_SCALE`), as a section heading is ("1 Maintenance"), gets a blank line between
    it and the text under or above it, so that it is read as a paragraph of its own, not glued to
    the next sentence. The type size is the font size scaled by the text and transformation
    matrices (PDF 32000-1:2008, 9.4.4); when the text pypdf hands its visitor is not the page's text,
    the lines are left as they are. Then the layout is undone (:func:`engine.search.pdf_layout.prose_lines`):
    a word or a dotted name broken at a line's end is whole again, list bullets and the citation marks
    after a sentence are left out; no other character is changed. The thread's shared files
    (:mod:`engine.files.read`) and the corpus (:func:`extract_document`) read a PDF's pages through
    :func:`pdf_pages_text`, which leaves out the page numbers and running heads, too. On its own, a
    page shows no running head; its number goes only when it is its position in the file.

    Raises what ``page.extract_text`` raises on a malformed page.
    """
    number = getattr(page, "page_number", None)  # its index in its file, None when it is in none
    first = number + 1 if isinstance(number, int) and number >= 0 else 1
    return prose_lines(without_furniture([_page_lines(page)], first)[0])


def _page_lines(page) -> str:
    """The text of a pypdf page, lines as the page sets them, its ligatures as letters and its headings
    apart (:func:`pdf_page_text`)."""
    pieces: list[tuple[str, float]] = []

    def visit(text: str, cm: list[float], tm: list[float], font: object, size: float) -> None:
        scale = math.sqrt(abs((tm[0] * tm[3] - tm[1] * tm[2]) * (cm[0] * cm[3] - cm[1] * cm[2])))
        pieces.append((text, (size or 0) * scale))

    text = page.extract_text(visitor_text=visit) or ""
    if "".join(piece for piece, _ in pieces) == text:
        text = _headings_apart(pieces)
    return text.translate(_LIGATURES)


def _headings_apart(pieces: list[tuple[str, float]]) -> str:
    """The text of ``pieces`` (``(text, type size)`` in page order) with a blank line where a line
    in heading type (:func:`pdf_page_text`) meets a line of body text."""
    lines: list[list[tuple[str, float]]] = [[]]
    for piece, size in pieces:
        for n, part in enumerate(piece.split("\n")):
            if n:
                lines.append([])
            if part:
                lines[-1].append((part, round(size, 1)))
    sizes: Counter[float] = Counter()
    for line in lines:
        for part, size in line:
            sizes[size] += len(part.strip())
    body = sizes.most_common(1)[0][0] if sizes else 0.0
    kinds = [None if not any(part.strip() for part, _ in line)
             else all(size > body * _HEADING_SCALE for part, size in line if part.strip()) for line in lines]
    out: list[str] = []
    for n, line in enumerate(lines):
        if n and kinds[n] is not None and kinds[n - 1] is not None and kinds[n] != kinds[n - 1]:
            out.append("")
        out.append("".join(part for part, _ in line))
    return "\n".join(out)


@contextmanager
def pdf_reading(path: Path) -> Iterator[PdfReader]:
    """A pypdf ``PdfReader`` of the PDF at ``path``, opened (an empty password tried on an encrypted
    one), for the block to read; the one place that says why a PDF cannot be read, for the corpus
    index (:func:`extract_document`) and the files shared with a question or in a chat
    (:func:`engine.files.read.read_file`), so both give the same reason for the same file.

    The reasons are the ``skip_*`` entries of :data:`engine.phrases.WORDS` in English
    (:func:`engine.file_summary.skip_reason`), which a thread's file list keeps and the chats show
    translated: ``not a PDF (no %PDF header)`` (no ``%PDF-`` in the first 1024 bytes, leading white
    space aside), ``encrypted PDF (password protected)`` and ``corrupt PDF (PdfStreamError)`` (any error
    pypdf raises, on opening or in the block, named by its type).

    Raises:
        Unreadable: the file is not a PDF, is encrypted or is corrupt (the reason above).
        OSError: the file cannot be read (gone, no permission).
    """
    from pypdf import PdfReader

    from engine.file_summary import skip_reason

    # pypdf logs each oddity of a malformed file as a warning; the callers report the skip themselves
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    with path.open("rb") as fh:
        if not fh.read(1024).lstrip().startswith(b"%PDF-"):
            raise Unreadable(skip_reason("skip_not_pdf"))
    try:
        reader = PdfReader(path)
        if reader.is_encrypted:
            try:
                opened = reader.decrypt("")
            except Exception as err:  # an unsupported cipher is as closed as a password
                raise Unreadable(skip_reason("skip_encrypted_pdf")) from err
            if not opened:
                raise Unreadable(skip_reason("skip_encrypted_pdf"))
        yield reader
    except (Unreadable, OSError):
        raise
    except Exception as err:  # pypdf raises many exception types on malformed files
        raise Unreadable(skip_reason("skip_corrupt_pdf", error=type(err).__name__)) from err


def _pdf(path: Path) -> tuple[str | None, str]:
    with pdf_reading(path) as reader:
        text = "\n\n".join(page.strip() for page in pdf_pages_text(reader.pages))
        title = reader.metadata.title if reader.metadata else None
    return (str(title).strip() if title else None), text
