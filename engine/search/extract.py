"""Text extraction for the corpus: the title and plain text of a Markdown, text, RST, HTML or PDF file."""

from __future__ import annotations

import functools
import html
import logging
import re
from html.parser import HTMLParser
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
_SPACES = re.compile(r"\s+")
#: How a line that is a sentence, not a heading, ends (Latin and CJK full stops, question and exclamation marks).
_SENTENCE_ENDS = (".", "!", "?", "。", "！", "？")
#: How far into a Markdown file its title heading is looked for, in characters: a level-1 heading
#: further in is a part's, and a big file is not parsed whole for its title.
TITLE_SEARCH_CHARS = 256 * 1024
#: The start of the end tag of an element whose content is read as text (``<title>``,
#: ``<script>``, ``<style>``), followed by attributes or a slash.
_RAW_TEXT_END_OPEN = re.compile(r"</(title|script|style)(?=[\t\n\f\r /])", re.IGNORECASE)
#: The start of any end tag the HTML standard reads as one: ``</``, then a name that starts with an
#: ASCII letter and runs to whitespace, ``/`` or ``>``
#: (https://html.spec.whatwg.org/multipage/parsing.html#end-tag-open-state and #tag-name-state).
_END_TAG_OPEN = re.compile(r"</([a-zA-Z][^\t\n\f\r />]*+)")
#: The start of a start tag: ``<`` and its name, which starts with an ASCII letter.
_TAG_OPEN = re.compile(r"<[a-zA-Z][^\t\n\f\r />]*+")
#: The end of a comment: ``-->``, or ``--!>`` (https://html.spec.whatwg.org/multipage/parsing.html#comment-end-bang-state).
_COMMENT_END = re.compile(r"--!?>")
#: The rest of such an end tag, up to the ``>`` that ends it, as the HTML standard's tokenizer reads
#: it: spaces and slashes, and attributes, each a name (after a space, a slash or a quoted value; an
#: ``=`` may start it; a quote in it is a character of the name), then maybe ``=`` and a value,
#: double-quoted, single-quoted (either may hold ``>``; one never closed runs to the end of the
#: markup) or unquoted (ended by whitespace or ``>``)
#: (https://html.spec.whatwg.org/multipage/parsing.html#before-attribute-name-state and the states
#: after it). Possessive, so a ``>`` inside a quoted value is never taken for the tag's end.
_END_TAG_REST = re.compile(
    r"""(?:[\t\n\f\r /]|(?<=[\t\n\f\r /"'])[^\t\n\f\r />][^\t\n\f\r />=]*+"""
    r"""(?:[\t\n\f\r ]*+=[\t\n\f\r ]*+(?:"[^"]*+"|'[^']*+'|(?!["'])[^\t\n\f\r >]*+))?+)*+>"""
)


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
                title, text = _html(data)
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


def _pdf(path: Path) -> tuple[str | None, str]:
    from pypdf import PdfReader

    # pypdf logs each oddity of a malformed file as a warning; the indexer reports the skip itself
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(path)
        if reader.is_encrypted and not reader.decrypt(""):
            raise Unreadable("encrypted PDF")
        text = "\n\n".join((page.extract_text() or "").strip() for page in reader.pages)
        title = reader.metadata.title if reader.metadata else None
    except (Unreadable, OSError):
        raise
    except Exception as err:  # pypdf raises many exception types on malformed files
        raise Unreadable(f"unreadable PDF ({type(err).__name__})") from err
    return (str(title).strip() if title else None), text


def _html(data: bytes) -> tuple[str | None, str]:
    # Beautiful Soup loads lxml and soupsieve: imported here, not before a run's first model call
    from bs4.dammit import UnicodeDammit

    markup = UnicodeDammit(data, is_html=True).unicode_markup
    if markup is None:
        raise Unreadable("unknown text encoding")
    markup = _plain_raw_text_ends(markup)
    parser = _HTMLText()
    try:
        parser.feed(markup)
        parser.close()
        if parser.in_title:  # <title> never closed: read the page again with its title as markup
            parser = _HTMLText()
            parser.titled = True
            parser.feed(markup)
            parser.close()
    except Exception as err:  # the tokenizer may raise several types on hostile markup
        raise Unreadable(f"unreadable HTML ({type(err).__name__})") from err
    return parser.result()


def _plain_raw_text_ends(markup: str) -> str:
    """``markup`` with every ``</title>``, ``</script>`` and ``</style>`` end tag that has attributes or
    a slash written plain: the HTML standard reads an end tag's attributes, then ignores them, and the
    tag still ends the element (https://html.spec.whatwg.org/multipage/parsing.html#end-tag-open-state),
    but the standard library's parser finds only ``</title>`` and ``</title >``, and ends a tag at its
    first ``>`` even inside a quoted value: it would read the rest of the page as the title, or drop
    it as script, or read the rest of the tag as text. One pass: an end tag that runs to the end of
    the markup (the standard drops it and all after it) leaves the rest as it is."""
    parts, at = [], 0
    while found := _RAW_TEXT_END_OPEN.search(markup, at):
        rest = _END_TAG_REST.match(markup, found.end())
        if rest is None:
            break
        parts += [markup[at:found.start()], f"</{found.group(1)}>"]
        at = rest.end()
    return "".join(parts) + markup[at:]


class _HTMLText(HTMLParser):
    """Streams HTML into its visible text: blocks separated by blank lines, whitespace collapsed
    (kept inside ``<pre>``); scripts, styles, navigation and permalink anchors dropped; only the
    ``<main>`` (or ``role="main"``) element's text when the page marks one. The title is the first
    ``<title>`` element's text, read as the HTML standard reads it (RCDATA: a ``<b>`` in it is
    text; https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inhead; a ``<title>`` never
    closed is read as ordinary markup instead, so the page's text is not lost in it)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.closing = False  # close() was called: no more markup comes after what is there
        self.parts: list[str] = []
        self.title: list[str] = []
        self.h1: list[str] = []
        self.in_title = self.in_h1 = False
        self.titled = False  # the document's first <title> is met: a later one (in the body) is ignored
        self.skip_tag: str | None = None  # inside a dropped element: its tag and nesting depth
        self.skip_depth = 0
        self.pre = 0
        self.main_tag: str | None = None
        self.main_depth = 0
        self.main_span: list[int] = []  # [start] while inside the main element, then [start, end]
        self.anchors: list[int] = []

    def close(self) -> None:
        """Read what is left of the markup: no more of it comes."""
        self.closing = True
        super().close()

    def parse_endtag(self, i: int) -> int:
        """Read the end tag at ``i`` of the markup as the HTML standard's tokenizer does, and return
        where it ends (-1: not all there yet). Its attributes are read as a start tag's, then
        dropped, so a ``>`` in a quoted value (``</p a=">">``) does not end it: the standard
        library's parser (CPython 3.11) ended it at its first ``>`` and left the rest (``">``) as
        the page's text. An end tag that the markup ends inside is dropped with all after it, as the
        standard reads an end of file in a tag (https://html.spec.whatwg.org/multipage/parsing.html#attribute-value-(double-quoted)-state),
        and in one step: the library's fallback would look for its end again at each later ``</``.
        Inside a title, script or style (raw text, their end tags made plain by
        :func:`_plain_raw_text_ends`), and for ``</>``, ``</ p>`` or ``</3``, the library's own reading."""
        opened = _END_TAG_OPEN.match(self.rawdata, i)
        if opened is None or self.cdata_elem is not None:
            k = super().parse_endtag(i)  # (</>, </ p>, </3: to the next ">"; the end of the markup when none)
            return len(self.rawdata) if k < 0 and self.closing and self.cdata_elem is None else k
        rest = _END_TAG_REST.match(self.rawdata, opened.end())
        if rest is None:  # the markup ends inside the tag
            return len(self.rawdata) if self.closing else -1
        self.handle_endtag(opened.group(1).lower())
        return rest.end()

    def parse_starttag(self, i: int) -> int:
        """The library's reading of the start tag at ``i``; when it gives up at the end of the input
        (an attribute's quote never closed, ``<a`` with no ``>``), the standard's: the tag runs to
        its ``>`` outside quotes (:data:`_END_TAG_REST`), or to the end of the markup, and is dropped
        with all in it. The library instead read such a tag as text and looked for its end again
        from each later ``<``: quadratic."""
        k = super().parse_starttag(i)
        if k >= 0 or not self.closing:
            return k
        opened = _TAG_OPEN.match(self.rawdata, i)
        rest = _END_TAG_REST.match(self.rawdata, opened.end()) if opened else None
        return rest.end() if rest else len(self.rawdata)

    def parse_comment(self, i: int, report: int = 1) -> int:
        """Where the comment at ``i`` ends, as the standard reads one: at ``-->`` or ``--!>``, or at
        once for ``<!-->`` and ``<!--->``; one never closed hides the rest of the markup
        (https://html.spec.whatwg.org/multipage/parsing.html#comment-start-state and the states
        after it). Its text is not kept."""
        for empty in ("<!-->", "<!--->"):
            if self.rawdata.startswith(empty, i):
                return i + len(empty)
        end = _COMMENT_END.search(self.rawdata, i + 4)
        if end is not None:
            return end.end()
        return len(self.rawdata) if self.closing else -1

    def parse_html_declaration(self, i: int) -> int:
        """``<!DOCTYPE …>``, ``<![CDATA[…`` and other ``<!`` markup (a comment is
        :meth:`parse_comment`'s): outside SVG and MathML the standard reads each as running to the
        next ``>`` (a bogus comment; https://html.spec.whatwg.org/multipage/parsing.html#markup-declaration-open-state),
        and to the end of the markup when there is none. Nothing of it is kept."""
        if self.rawdata.startswith("<!--", i):
            return self.parse_comment(i)
        return self._to_next_gt(i)

    def parse_pi(self, i: int) -> int:
        """``<?…``: the standard reads it as a bogus comment up to the next ``>``
        (https://html.spec.whatwg.org/multipage/parsing.html#tag-open-state); nothing of it is kept."""
        return self._to_next_gt(i)

    def _to_next_gt(self, i: int) -> int:
        end = self.rawdata.find(">", i + 2)
        if end >= 0:
            return end + 1
        return len(self.rawdata) if self.closing else -1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skip_tag:
            self.skip_depth += tag == self.skip_tag
            return
        if tag == "title" and not self.titled:
            # RCDATA in the HTML standard: text up to </title>, character references read in result()
            self.in_title = self.titled = True
            self.set_cdata_mode(tag)
            return
        role = dict(attrs).get("role")
        if tag in _DROP_TAGS or role in _DROP_ROLES:
            self.skip_tag, self.skip_depth = tag, 1
            return
        if self.main_tag == tag and len(self.main_span) == 1:
            self.main_depth += 1
        elif not self.main_span and (tag == "main" or role == "main"):
            self.main_tag, self.main_depth, self.main_span = tag, 1, [len(self.parts)]
        if tag == "br":
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append(" ")
        elif tag == "a":
            self.anchors.append(len(self.parts))
        elif tag == "h1" and not self.h1:
            self.in_h1 = True
        if tag in ("pre", "textarea"):
            self.pre += 1
        if tag in _BLOCK_TAGS:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if self.skip_tag:
            if tag == self.skip_tag:
                self.skip_depth -= 1
                if not self.skip_depth:
                    self.skip_tag = None
            return
        if tag == "title" and self.in_title:
            self.in_title = False
            self.clear_cdata_mode()
            return
        if tag == "title":  # a stray second title: its text was kept as body text
            return
        if tag == "h1":
            self.in_h1 = False
        elif tag == "a" and self.anchors:
            at = self.anchors.pop()
            if "".join(self.parts[at:]).strip() in _PERMALINKS:
                del self.parts[at:]
        elif tag in ("pre", "textarea"):
            self.pre = max(0, self.pre - 1)
        if tag in _BLOCK_TAGS:
            self.parts.append("\n\n")
        if tag == self.main_tag and len(self.main_span) == 1:
            self.main_depth -= 1
            if not self.main_depth:
                self.main_span.append(len(self.parts))

    def handle_data(self, data: str) -> None:
        if self.skip_tag:
            return
        if self.in_title:
            self.title.append(data)
            return
        text = data if self.pre else _SPACES.sub(" ", data)
        self.parts.append(text)
        if self.in_h1:
            self.h1.append(text)

    def result(self) -> tuple[str | None, str]:
        """``(title, text)``: the ``<title>`` (else the first ``<h1>``) and the visible text."""
        parts = self.parts[slice(*self.main_span)] if self.main_span else self.parts
        if not "".join(parts).strip():
            parts = self.parts
        lines = []
        for line in "".join(parts).split("\n"):
            line = line.rstrip()
            lines.append(line[1:] if line.startswith(" ") and not line.startswith("  ") else line)
        title = " ".join(html.unescape("".join(self.title)).split()) or " ".join("".join(self.h1).split()).rstrip("¶#§🔗 ")
        return title or None, "\n".join(lines)
