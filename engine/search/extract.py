"""Text extraction for the corpus: the title and plain text of a Markdown, text, RST, HTML or PDF file."""

from __future__ import annotations

import functools
import logging
import math
import re
import unicodedata
from collections import Counter
from pathlib import Path

from engine.search.base import TITLE_CHARS
from engine.text import has_words, one_line

SUPPORTED_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".rst", ".html", ".htm", ".pdf"})
MAX_FILE_BYTES = 64 * 1024 * 1024
_DROP_TAGS = frozenset({"script", "style", "noscript", "template", "nav", "svg", "iframe", "object"})
_DROP_ROLES = frozenset({"navigation", "search"})
_BLOCK_TAGS = frozenset(
    "address article aside blockquote caption dd details div dl dt figcaption figure footer h1 h2 h3 h4 "
    "h5 h6 header hr li main ol p pre section summary table tbody thead tfoot tr ul".split()
)
_PERMALINKS = frozenset({"¶", "#", "§", "🔗"})
#: The blocks whose text is one item of a list or table: a list item, a table row, a term or its
#: description. A block inside one (a ``<p>`` in an ``<li>``, the cells of a row) is part of it.
_ITEM_TAGS = frozenset({"li", "tr", "dt", "dd"})
#: Blocks never read as link captions: a heading that is a link still heads what follows, code is code.
_NEVER_LINKS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6", "pre", "dt"})
#: Inline code: a link on code is a cross-reference to what the text names ("calls
#: <a><code>asyncio.run()</code></a>"), part of what it says, not a caption.
_CODE_TAGS = frozenset({"code", "kbd", "samp", "tt", "var"})
#: Share of a block's words inside links (``<a>``) from which the block is link captions: a table of
#: contents' entry, a "See also" list's item, a navigation bar (:func:`html_text`).
LINK_SHARE = 0.5
#: Share of a page's words in list items and table rows that are link captions or index entries (an
#: item opening with a link to another page, a row with one in its first cell) from which the page is
#: an index or a table of contents, all of it captions: what it says of the pages it links to is said
#: there. In Python 3.11's library documentation, tables of contents and API indexes hold 58-98% of
#: their words so, an overview with a table of contents (email) 39%, the asyncio overview 22%, other
#: pages at most 13%.
INDEX_SHARE = 0.5
#: Opens each line of link captions in the text :func:`html_text` gives with ``links=True``: a
#: noncharacter (U+FDD1, never a page's text: it is dropped from pages), which SQLite FTS5's
#: ``unicode61`` tokenizer reads as a space between words, so the captions are still searched.
LINK_MARK = "\ufdd1"
_WORD = re.compile(r"\w+")
_SPACES = re.compile(r"\s+")
#: How a line that is a sentence, not a heading, ends (Latin and CJK full stops, question and exclamation marks).
_SENTENCE_ENDS = (".", "!", "?", "。", "！", "？")
#: How far into a Markdown file its title heading is looked for, in characters: a level-1 heading
#: further in is a part's, and a big file is not parsed whole for its title.
TITLE_SEARCH_CHARS = 256 * 1024
#: The Latin ligatures of Unicode's Alphabetic Presentation Forms (U+FB00-U+FB06: ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ), which a
#: PDF's ToUnicode map gives for a font's ligature glyphs (xelatex's "eﬀiciency"), as the letters they
#: join (their Unicode compatibility decompositions); no other character is mapped ("m²" stays).
_LIGATURES = {code: unicodedata.normalize("NFKC", chr(code)) for code in range(0xFB00, 0xFB07)}
#: How much larger than a page's body text a line's type is for the line to be a heading.
_HEADING_SCALE = 1.1


class Unreadable(Exception):
    """A file that cannot be indexed; the message is the reason (one short line)."""


def extract_document(path: Path, size: int) -> tuple[str, str]:
    """Return ``(title, text)`` of the file at ``path`` (``size`` bytes), passages split by blank lines.

    The title comes from HTML ``<title>`` (else the first ``<h1>``), Markdown front matter or the
    first level-1 heading outside code (:func:`_markdown`), the first reStructuredText section title
    (:func:`_rst_title`; never its first line otherwise, which may be ``.. _label:``), PDF
    metadata, else the first short line unless it ends as a sentence does (it is then text, not a
    heading); in Markdown the first line of the first block, and only when that block is a heading
    or a paragraph (a code fence or a list item is no title); else the file name. A title without a
    letter or digit gives way to the file name. It is one line of at most :data:`TITLE_CHARS`
    characters (:func:`engine.text.one_line`). The title taken from a first line stays in ``text``.
    An HTML page's link captions are in ``text``, each line opening with :data:`LINK_MARK`
    (:func:`html_text`): searched, not read (:func:`without_captions`).

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
    if not title:
        if first is None:
            first = next((line for line in text.splitlines() if line.strip()), "")
        first = first.strip()
        title = first if len(first) <= 120 and not first.endswith(_SENTENCE_ENDS) else None
    if not has_words(title or ""):  # spaces, a zero-width space, "#", "---": nothing to read
        title = None
    return one_line(title or path.name, TITLE_CHARS), text


def without_captions(text: str) -> str:
    """``text`` without its lines of link captions (those opening with :data:`LINK_MARK`), and the
    blank lines around them collapsed: what a page says, to be read and quoted."""
    if LINK_MARK not in text:
        return text
    kept = "\n".join(line for line in text.split("\n") if not line.startswith(LINK_MARK))
    return re.sub(r"\n\s*\n(?:\s*\n)+", "\n\n", kept).strip()


def decode_text(data: bytes) -> str:
    """Text of a file's bytes: UTF-16 by its byte-order mark, else UTF-8 (BOM dropped), else
    Windows-1252; line ends made ``\n``.

    Raises:
        Unreadable: a NUL byte in the first 8 KiB (binary content).
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    if b"\x00" in data[:8192]:
        raise Unreadable("binary file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("cp1252", errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n")


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
    a table row or an HTML line is no title). The text is the file's without its front matter."""
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
    heading = next((tokens[n + 1].content for n, token in enumerate(tokens)
                    if token.type == "heading_open" and token.tag == "h1" and token.level == 0), None)
    opens = tokens and tokens[0].type in ("heading_open", "paragraph_open")
    first = tokens[1].content.partition("\n")[0] if opens else ""
    return title or heading, first, text


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


def pdf_page_text(page) -> str:
    """The text of a pypdf page (``page.extract_text()``, lines as the page sets them), its ligature
    characters as their letters (:data:`_LIGATURES`) and its headings apart: a line set wholly in
    type larger than the page's body text (the size most of its characters have, by
    :data:`_HEADING_SCALE`), as a section heading is ("1 Maintenance"), gets a blank line between
    it and the text under or above it, so that it is read as a paragraph of its own, not glued to
    the next sentence. The type size is the font size scaled by the text and transformation
    matrices (PDF 32000-1:2008, 9.4.4). No word is changed; when the text pypdf hands its visitor
    is not the page's text, the lines are left as they are.

    Raises what ``page.extract_text`` raises on a malformed page.
    """
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


def _pdf(path: Path) -> tuple[str | None, str]:
    from pypdf import PdfReader

    # pypdf logs each oddity of a malformed file as a warning; the indexer reports the skip itself
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(path)
        if reader.is_encrypted and not reader.decrypt(""):
            raise Unreadable("encrypted PDF")
        text = "\n\n".join(pdf_page_text(page).strip() for page in reader.pages)
        title = reader.metadata.title if reader.metadata else None
    except (Unreadable, OSError):
        raise
    except Exception as err:  # pypdf raises many exception types on malformed files
        raise Unreadable(f"unreadable PDF ({type(err).__name__})") from err
    return (str(title).strip() if title else None), text


def html_text(data: bytes, links: bool = False) -> tuple[str | None, str]:
    """``(title, text)`` of an HTML page's bytes: the text a browser shows, as libxml2's HTML parser
    (lxml) reads the markup; its tokenizer follows the HTML standard
    (https://html.spec.whatwg.org/multipage/parsing.html#tokenization): ``</ p>`` is a bogus comment,
    ``</script>`` inside an attribute value is part of the value, an end tag's attributes are read
    and dropped, markup never finished (an open quote, comment or tag) takes the rest of the page.

    ``text`` is the page's blocks (:data:`_BLOCK_TAGS`) separated by blank lines (it may start or end
    with some, and hold more than one in a row: callers collapse them), whitespace collapsed except
    in ``<pre>`` and ``<textarea>``, a line break for ``<br>``, a space before each table cell. Left
    out: the elements of :data:`_DROP_TAGS` (scripts, styles, navigation...) and those whose
    ``role`` is in :data:`_DROP_ROLES`, links whose whole text is a permalink mark
    (:data:`_PERMALINKS`), comments, and ``<title>`` elements. When the page has a ``<main>`` element
    (or one with ``role="main"``) with text, only the first such element's text.

    ``title`` is the first ``<title>``'s text, whitespace collapsed (RCDATA: a ``<b>`` in it is text,
    character references are read; https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inhead),
    else the first ``<h1>``'s text without a trailing permalink mark; None when neither has text. A
    ``<title>`` never closed, into which the standard reads the rest of the page, is read as markup
    instead, so the page's text is not lost in it (its character references are read first).

    The bytes are decoded as Beautiful Soup's ``UnicodeDammit`` finds their encoding (a byte-order
    mark, a ``<meta charset>`` or XML declaration, else a guess).

    Raises:
        Unreadable: the text encoding cannot be told, or the parser fails.
    """
    # Beautiful Soup and lxml: imported here, not before a run's first model call
    from bs4.dammit import UnicodeDammit
    from lxml import etree

    markup = UnicodeDammit(data, is_html=True).unicode_markup
    if markup is None:
        raise Unreadable("unknown text encoding")
    # UTF-8 bytes, not the string: lxml refuses a string that declares its encoding (<?xml encoding=...?>)
    utf8 = (markup + _END_MARK).encode("utf-8", errors="replace")
    del markup
    page = _PageText()
    try:
        page.read(utf8)
    except etree.LxmlError as err:
        raise Unreadable(f"unreadable HTML ({type(err).__name__})") from err
    return page.result(links)


#: Put after a page's markup to learn which text runs to its end: a ``<title>`` never closed then
#: ends with it. U+FDD0 is a noncharacter, never a page's text: it is dropped wherever it lands.
_END_MARK = "\ufdd0"


class _PageText:
    """Gathers a page's text and title from libxml2's parse events, in document order: an lxml
    parser target (https://lxml.de/parsing.html#the-target-parser-interface). No tree is built: the
    events come with every element closed, however deep elements nest and whatever follows
    ``</html>`` (text there is the body's, as the HTML standard reads it; libxml2's tree leaves it out)."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pending: list[str] = []  # text since the last tag (the parser gives it in pieces)
        self.depth = 0  # elements open, outside left-out ones
        self.dropped = 0  # inside a left-out element: how many elements are open in it
        self.title: str | None = None  # the first <title>'s text, once read ("" when read as markup)
        self.title_text: list[str] | None = None  # that title's text while it is read
        self.h1: str | None = None  # the first <h1>'s text
        self.h1_open: tuple[int, int] | None = None  # the <h1> being read: its depth, its text's start
        self.pre = 0  # inside <pre> or <textarea>: whitespace kept
        self.code = 0  # inside code (:data:`_CODE_TAGS`): a link's words are a name the text says
        self.main_depth = 0  # the first <main> or role="main" element while open, and its text's span
        self.main_span: list[int] = []
        self.anchors: list[int] = []  # where each open <a>'s text starts in parts
        # the blocks whose share of link words is measured (units: :data:`_ITEM_TAGS`, else the
        # outermost block), each [its tag, words in links, words, cells opened, an index entry]
        self.units: list[list] = [["", 0, 0, 0, False]]  # 0: the text outside every block
        self.owner: list[int] = []  # the unit each of parts belongs to
        self.open_units: list[tuple[int, int, bool]] = []  # (depth, unit, an item) of the open units
        self.reread = True  # a <title> never closed may still be read as markup (once)

    def read(self, markup: bytes) -> None:
        """Take in the elements and text of ``markup`` (UTF-8) as libxml2's HTML parser reads them
        (``huge_tree``: a text of more than 10 MB comes whole, not cut)."""
        from lxml import etree

        parser = etree.HTMLParser(target=self, encoding="utf-8", huge_tree=True, no_network=True)
        etree.fromstring(markup, parser)

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        self._flush()
        if self.dropped:
            self.dropped += 1
            return
        role = attrib.get("role")
        if tag == "title" or tag in _DROP_TAGS or role in _DROP_ROLES:
            self.dropped = 1
            if tag == "title" and self.title is None:  # a later one is not shown (nor in a browser)
                self.title_text = []
            return
        self.depth += 1
        if not self.main_span and (tag == "main" or role == "main"):
            self.main_depth, self.main_span = self.depth, [len(self.parts)]
        if tag in _BLOCK_TAGS and (tag in _ITEM_TAGS or not any(item for _, _, item in self.open_units)):
            self.units.append([tag, 0, 0, 0, False])
            self.open_units.append((self.depth, len(self.units) - 1, tag in _ITEM_TAGS))
        unit = self.units[self.open_units[-1][1] if self.open_units else 0]
        if tag == "br":
            self._add("\n")
        elif tag in ("td", "th"):
            self._add(" ")
            unit[3] += 1
        elif tag == "a":
            self.anchors.append(len(self.parts))
            href = (attrib.get("href") or "").strip()
            # an index entry: a list item that opens with a link to another page, or a table row
            # with one in its first cell ("asyncio.run() | Run a coroutine")
            if href and not href.startswith("#") and (
                    unit[0] == "li" and not unit[2] or unit[0] == "tr" and unit[3] == 1):
                unit[4] = True
        elif tag == "h1" and self.h1 is None and self.h1_open is None:
            self.h1_open = (self.depth, len(self.parts))
        if tag in ("pre", "textarea"):
            self.pre += 1
        elif tag in _CODE_TAGS:
            self.code += 1
        if tag in _BLOCK_TAGS:
            self._add("\n\n")

    def end(self, tag: str) -> None:
        self._flush()
        if self.dropped:
            self.dropped -= 1
            if not self.dropped and self.title_text is not None:
                self._title("".join(self.title_text))
            return
        if tag == "a" and self.anchors:
            at = self.anchors.pop()
            # a permalink is a mark and maybe spaces: a link with more pieces than that is none
            # (and a link around a whole page is not joined once per link inside it)
            if len(self.parts) - at <= 8 and "".join(self.parts[at:]).strip() in _PERMALINKS:
                del self.parts[at:], self.owner[at:]
        elif tag in ("pre", "textarea"):
            self.pre = max(0, self.pre - 1)
        elif tag in _CODE_TAGS:
            self.code = max(0, self.code - 1)
        elif self.h1_open and self.h1_open[0] == self.depth:
            self.h1 = " ".join("".join(self.parts[self.h1_open[1]:]).split()).rstrip("¶#§🔗 ") or None
            self.h1_open = None
        if tag in _BLOCK_TAGS:
            self._add("\n\n")
        if self.open_units and self.open_units[-1][0] == self.depth:
            self.open_units.pop()
        if self.main_depth == self.depth and len(self.main_span) == 1:
            self.main_span.append(len(self.parts))
        self.depth -= 1

    def data(self, text: str) -> None:
        self.pending.append(text)

    def close(self) -> None:
        self._flush()

    def _flush(self) -> None:
        """Take in the text since the last tag."""
        if not self.pending:
            return
        text = "".join(self.pending)
        self.pending.clear()
        if self.title_text is not None:
            self.title_text.append(text)
        elif not self.dropped:
            text = text.replace(_END_MARK, "").replace(LINK_MARK, "")
            self._add(text if self.pre else _SPACES.sub(" ", text), words=True)

    def _add(self, text: str, words: bool = False) -> None:
        """Put ``text`` in the page's text, in the unit open; ``words``: it is the page's own text
        (its words are counted), not a separator."""
        unit = self.open_units[-1][1] if self.open_units else 0
        self.parts.append(text)
        self.owner.append(unit)
        if words:
            count = len(_WORD.findall(text))
            self.units[unit][2] += count
            if self.anchors and not self.code:
                self.units[unit][1] += count

    def _title(self, text: str) -> None:
        self.title_text = None
        if text.endswith(_END_MARK) and self.reread:
            # never closed: the standard reads the rest of the page into the title; read it as markup
            self.title, self.reread = "", False
            self.read(text[:-len(_END_MARK)].encode("utf-8", errors="replace"))
        else:
            self.title = text.replace(_END_MARK, "")

    def result(self, links: bool = False) -> tuple[str | None, str]:
        """``(title, text)``: the ``<title>`` (else the first ``<h1>``) and the visible text, its
        lines of link captions (:meth:`_captions`) left out, or with ``links`` each opening with
        :data:`LINK_MARK`."""
        start, end = 0, len(self.parts)
        if self.main_span:
            start, end = (*self.main_span, len(self.parts))[:2]
            if not "".join(self.parts[start:end]).strip():
                start, end = 0, len(self.parts)
        parts, owner = self.parts[start:end], self.owner[start:end]
        text = "".join(parts)
        # what each character is: 0 a space or separator, 1 a link caption's, 2 other text's
        kinds = bytearray(len(text))
        captions = self._captions(owner)
        at = 0
        for part, unit in zip(parts, owner, strict=True):
            if part.strip():
                kinds[at:at + len(part)] = (b"\1" if unit in captions else b"\2") * len(part)
            at += len(part)
        lines = []
        at = 0
        for line in text.split("\n"):
            caption = 1 in kinds[at:at + len(line)] and 2 not in kinds[at:at + len(line)]
            at += len(line) + 1
            line = line.rstrip()
            line = line[1:] if line.startswith(" ") and not line.startswith("  ") else line
            if caption:
                line = LINK_MARK + line if links else ""
            lines.append(line)
        title = " ".join((self.title or "").split()) or self.h1
        return title or None, "\n".join(lines)

    def _captions(self, owner: list[int]) -> set[int]:
        """The units among ``owner`` that are link captions: the blocks (but headings, terms and
        code: :data:`_NEVER_LINKS`) with at least :data:`LINK_SHARE` of their words inside links
        (outside code: :data:`_CODE_TAGS`); all of them when the page is an index: list items and
        table rows that are captions or index entries hold :data:`INDEX_SHARE` of its words."""
        units = [(n, self.units[n]) for n in set(owner) if self.units[n][2]]
        captions = {n for n, (tag, linked, words, _, _) in units
                    if tag and tag not in _NEVER_LINKS and linked >= LINK_SHARE * words}
        listed = sum(unit[2] for n, unit in units if unit[0] in ("li", "tr") and (n in captions or unit[4]))
        if listed >= INDEX_SHARE * sum(unit[2] for _, unit in units):
            return {n for n, _ in units}
        return captions
