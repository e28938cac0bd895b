"""An HTML page's title and the text a browser shows (libxml2's parser through lxml), its link
captions (tables of contents, "See also" lists, navigation bars, index pages) marked apart."""

from __future__ import annotations

import re

from engine.search.base import Unreadable
from engine.search.text_encoding import decode, html_encoding

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
#: Blocks never read as link captions on a page that is no index: a heading that is a link still
#: heads what follows, code is code.
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
def without_captions(text: str) -> str:
    """``text`` without its lines of link captions (those opening with :data:`LINK_MARK`), and the
    blank lines around them collapsed: what a page says, to be read and quoted."""
    if LINK_MARK not in text:
        return text
    kept = "\n".join(line for line in text.split("\n") if not line.startswith(LINK_MARK))
    return re.sub(r"\n\s*\n(?:\s*\n)+", "\n\n", kept).strip()


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

    The bytes are read in the encoding the HTML standard's sniffing finds
    (:func:`engine.search.text_encoding.html_encoding`: a byte-order mark, a ``<meta charset>`` or XML
    declaration, else UTF-8 when they are UTF-8, else windows-1252 unless the text is plainly Russian,
    Japanese or Chinese in a legacy encoding). Pages come from files, with no transport's charset.

    Raises:
        Unreadable: the parser fails.
    """
    from lxml import etree  # imported here, not before a run's first model call

    markup = decode(data, html_encoding(data))
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
        """The units among ``owner`` that are link captions (:func:`_caption`; words inside code,
        :data:`_CODE_TAGS`, are not counted as linked); all of them, headings too, when the page is
        an index: list items and table rows that are captions or index entries hold
        :data:`INDEX_SHARE` of its words."""
        units = [(n, self.units[n]) for n in set(owner) if self.units[n][2]]
        captions = {n for n, (tag, linked, words, _, _) in units if _caption(tag, linked, words)}
        listed = sum(unit[2] for n, unit in units if unit[0] in ("li", "tr") and (n in captions or unit[4]))
        if listed >= INDEX_SHARE * sum(unit[2] for _, unit in units):
            return {n for n, _ in units}  # its headings too: they head nothing the page says itself
        return captions


def _caption(tag: str, linked: int, words: int) -> bool:
    """Whether a block (``tag``; "" for the text outside every block) of ``words`` words, ``linked`` of
    them inside links, is link captions: a list item or a description with at least
    :data:`LINK_SHARE` of its words linked; any other block (a paragraph, a table row, the page's
    loose text) only when at most :data:`_UNLINKED_WORDS[tag]` words are outside its links (a
    navigation bar set as a paragraph: "Home · Blog · Next: Setup"), since a sentence whose words
    are half links ("the coefficient of performance of a ground-source heat pump reaches four")
    says something, and so does a row whose first cell is a link and whose others are data.
    Headings, terms and code (:data:`_NEVER_LINKS`) never are."""
    if tag in _NEVER_LINKS or linked < LINK_SHARE * words:
        return False
    return tag in ("li", "dd") or words - linked <= _UNLINKED_WORDS.get(tag, 3)


#: How many words outside its links a block other than a list item may hold and still be link
#: captions (:func:`_caption`): none in a table row (its other cells would be data), three elsewhere.
_UNLINKED_WORDS = {"tr": 0}
