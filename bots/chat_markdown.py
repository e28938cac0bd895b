"""Markdown for chat: one parser, one walk of the document (:class:`ChatRenderer`), bare URLs, tables.

Each platform subclasses :class:`ChatRenderer` and supplies only its syntax: escaping, links,
code, headings, list item layout and the table block.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import ClassVar
from urllib.parse import quote

from mistletoe import Document, block_token, span_token
from mistletoe.base_renderer import BaseRenderer

from engine.text import MISTLETOE_LOCK, split_urls

# mistletoe keeps its token types in module globals; parsing is serialised (one lock for the
# whole process, shared with the citation code) so a concurrent renderer that registers extra
# tokens cannot change the set halfway through a parse.
_PARSE_LOCK = MISTLETOE_LOCK
_BAD_CHARS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")

# A CommonMark link reference definition ("[1]: https://...") is consumed by the parser and
# shows nowhere; in a chat message it is text the author wrote, so it is kept as text.
# https://spec.commonmark.org/0.31.2/#link-reference-definitions
_LINK_DEFINITION = re.compile(r"^( {0,3}(?:>\s?)*)\[(?=[^\]\n]+\]:)")
_FENCE = re.compile(r"^ {0,3}(?:>\s?)*(`{3,}|~{3,})")

#: WORD JOINER (U+2060): invisible, and no marker or fence of Slack's reaches across it.
WORD_JOINER = "\u2060"
_FENCE_RUN = re.compile("`(?=``)")


def fence_safe(code: str) -> str:
    """``code`` that a triple-backtick fence can hold: every run of three or more backticks gets a
    :data:`WORD_JOINER` after each backtick that starts a triple (```` ``` ```` -> ``"`\u2060``"``),
    so none closes the fence; the backticks still show as written."""
    return _FENCE_RUN.sub("`" + WORD_JOINER, code)


class Strikethrough(span_token.Strikethrough):
    """GFM strikethrough: a run of exactly two tildes that opens before a non-space and a run of
    two that closes after one ("Strikethrough (extension)", https://github.github.com/gfm/#strikethrough-extension-:
    the runs must be of one length and flank the text). mistletoe's own token also takes
    ``~~ 5 and ~~`` or ``~~~ x ~~``, whose tildes GFM shows as written."""

    pattern = re.compile(r"(?<![\\~])(?:\\\\)*~~(?![~\s])(.+?)(?<![~\s])~~(?!~)", re.DOTALL)


def parse(markdown: str) -> Document:
    """Parse ``markdown`` (CommonMark + GFM tables and strikethrough) with mistletoe.

    Control characters (but newline and tab) and lone surrogates become U+FFFD, line ends
    ``\n``; link reference definition lines are kept as literal text instead of disappearing;
    code blocks are left alone; strikethrough as GFM reads it (:class:`Strikethrough`). Thread-safe.
    """
    text = _BAD_CHARS.sub("\ufffd", (markdown or "").replace("\r\n", "\n").replace("\r", "\n"))
    with _PARSE_LOCK:
        types = span_token._token_types
        swapped = [i for i, kind in enumerate(types) if kind is span_token.Strikethrough]
        for i in swapped:
            types[i] = Strikethrough
        try:
            return Document(_keep_definitions(text))
        finally:
            for i in swapped:
                types[i] = span_token.Strikethrough


def _keep_definitions(markdown: str) -> str:
    lines = markdown.split("\n")
    fence: str | None = None
    for i, line in enumerate(lines):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        if not line.startswith("    "):
            lines[i] = _LINK_DEFINITION.sub(r"\1\\[", line)
    return "\n".join(lines)


def display_width(text: str) -> int:
    """Columns ``text`` takes in a monospace font: East Asian wide and full-width characters count 2,
    combining marks 0."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    return width


def format_table(rows: list[list[str]], align: list, *, has_header: bool,
                 width: Callable[[str], int] = display_width, sep: str = "  ") -> str:
    """Rows of plain cell text as aligned monospace columns, a dashed rule under the header row.

    ``align`` is mistletoe's per-column alignment (None left, 0 centre, 1 right); ``width`` gives a
    cell's column count (for text that holds escapes, the width of what is shown).
    """
    if not rows:
        return ""
    ncols = max(len(r) for r in rows)
    rows = [r + [""] * (ncols - len(r)) for r in rows]
    widths = [max(width(r[i]) for r in rows) for i in range(ncols)]

    def cell(text: str, i: int) -> str:
        pad = widths[i] - width(text)
        mode = align[i] if i < len(align) else None
        if mode == 1:
            return " " * pad + text
        if mode == 0:
            return " " * (pad // 2) + text + " " * (pad - pad // 2)
        return text + " " * pad

    lines = [sep.join(cell(c, i) for i, c in enumerate(r)).rstrip() for r in rows]
    if has_header:
        lines.insert(1, sep.join("-" * max(w, 1) for w in widths))
    return "\n".join(lines)


class InlineMarks:
    """Bold, italic and strikethrough for a mistletoe chat renderer; each platform sets its marks.

    A span is wrapped only around its non-space text (Slack and Teams format a span only when its
    markers touch text), nested bold is marked once, and ``plain`` renders the text alone. With
    ``MARK_ENDS_SPAN`` a span whose text holds its own mark's character (as written, or as the
    stand-in ``HELD`` gives it) is shown unformatted: Slack ends ``_my_file_` at the first ``_``.
    """

    STRONG = "**"
    EMPHASIS = "*"
    STRIKE = "~~"
    #: The platform formats whole words only (Slack): a span inside a word is shown unformatted.
    WHOLE_WORDS = False
    MARK_ENDS_SPAN = False
    HELD: ClassVar[dict[str, str]] = {}
    plain = False
    _bold = 0

    def _in_word(self, token) -> bool:
        """True when ``token`` touches a letter or digit of the text next to it (``x**bold**y``)."""
        if not self.WHOLE_WORDS:
            return False
        siblings = list(getattr(getattr(token, "parent", None), "children", None) or ())
        if token not in siblings:
            return False
        i = siblings.index(token)
        before = plain_text(siblings[i - 1]) if i > 0 else ""
        after = plain_text(siblings[i + 1]) if i + 1 < len(siblings) else ""
        return bool(before[-1:].isalnum() or after[:1].isalnum())

    def _holds_mark(self, mark: str, text: str) -> bool:
        return self.MARK_ENDS_SPAN and (mark in text or self.HELD.get(mark, mark) in text)

    def _wrap(self, mark: str, inner: str) -> str:
        stripped = inner.strip()
        if self.plain or not stripped or self._holds_mark(mark, stripped):
            return inner
        lead = inner[: len(inner) - len(inner.lstrip())]
        trail = inner[len(inner.rstrip()):]
        return f"{lead}{mark}{stripped}{mark}{trail}"

    def render_strong(self, token: span_token.Strong) -> str:
        self._bold += 1
        try:
            inner = self.render_inner(token)
        finally:
            self._bold -= 1
        return inner if self._bold or self._in_word(token) else self._wrap(self.STRONG, inner)

    def render_emphasis(self, token: span_token.Emphasis) -> str:
        inner = self.render_inner(token)
        return inner if self._in_word(token) else self._wrap(self.EMPHASIS, inner)

    def render_strikethrough(self, token: span_token.Strikethrough) -> str:
        inner = self.render_inner(token)
        return inner if self._in_word(token) else self._wrap(self.STRIKE, inner)


SAFE_SCHEMES = ("http://", "https://", "mailto:")


def link_target(url: str, *, keep: str = "") -> str:
    """``url`` made safe as a link's target in chat markup: percent-encoded but for the URL's own
    delimiters (no spaces, quotes, ``<``, ``>``, ``|``, and no parentheses unless ``keep`` has
    them), ``&`` written ``&amp;`` (Slack's ``<url|text>`` and Teams' ``[text](url)`` alike)."""
    return quote(url.strip(), safe=":/?#[]@!$&'*+,;=%~-._" + keep).replace("&", "&amp;")
RULE = "―" * 12


def plain_text(token) -> str:
    """The text a span token shows, without markup (links as ``text (url)``), unescaped."""
    if isinstance(token, span_token.RawText):
        return token.content
    if isinstance(token, span_token.InlineCode):
        return token.children[0].content if token.children else ""
    if isinstance(token, (span_token.Link, span_token.Image)):
        label = "".join(plain_text(c) for c in token.children or ())
        url = token.target if isinstance(token, span_token.Link) else token.src
        return f"{label} ({url})" if label and label != url else url
    if isinstance(token, span_token.AutoLink):
        return token.target
    if isinstance(token, span_token.LineBreak):
        return " "
    children = getattr(token, "children", None)
    if children:
        return "".join(plain_text(c) for c in children)
    return getattr(token, "content", "")


class ChatRenderer(InlineMarks, BaseRenderer):
    """One walk of a mistletoe document for every chat platform; a subclass gives the syntax.

    A subclass sets the inline marks (:class:`InlineMarks`), ``BULLETS``, ``TABLE_SEP`` and
    ``LABEL_PLAIN`` (link labels without formatting) and implements :meth:`escape`,
    :meth:`link`, :meth:`code_span`, :meth:`code_block`, :meth:`heading` and
    :meth:`list_item`; it may override :meth:`literal` (prose text) and :meth:`paragraph`.
    Links are made only for http, https and mailto; tables are aligned monospace text
    (:func:`format_table`) over the cells' plain text, so every platform shows the same table.
    """

    BULLETS: tuple[str, ...] = ("-",)
    TABLE_SEP = "  "
    LABEL_PLAIN = False

    def __init__(self, *, plain: bool = False) -> None:
        super().__init__()
        self.plain = plain
        self._bold = 0
        self._in_label = 0
        self._list_depth = 0

    # ---- the platform's syntax ---------------------------------------------------------------
    def escape(self, text: str) -> str:
        """``text`` with the platform's markup characters escaped."""
        raise NotImplementedError

    def literal(self, text: str) -> str:
        """Prose text as written (defaults to :meth:`escape`)."""
        return self.escape(text)

    def link(self, url: str, label: str) -> str:
        """A link to ``url`` (a safe scheme) showing ``label`` (escaped; empty: the URL)."""
        raise NotImplementedError

    def code_span(self, code: str) -> str:
        """Inline code, ``code`` already escaped."""
        raise NotImplementedError

    def code_block(self, code: str) -> str:
        """A preformatted block, ``code`` already escaped."""
        raise NotImplementedError

    def heading(self, inner: str, level: int) -> str:
        """A heading of ``level`` 1-6 whose rendered text is ``inner`` (may be empty)."""
        raise NotImplementedError

    def list_item(self, lines: list[str], marker: str) -> str:
        """One list item: ``marker`` and the item's rendered lines, at ``self._list_depth``."""
        raise NotImplementedError

    def paragraph(self, text: str) -> str:
        """A rendered paragraph (hook for line-start escaping)."""
        return text

    # ---- plumbing ----------------------------------------------------------------------------
    def render(self, token) -> str:
        func = self.render_map.get(type(token).__name__)
        if func is None:  # a token type registered by another renderer: keep its text
            children = getattr(token, "children", None)
            return self.render_inner(token) if children else self.escape(getattr(token, "content", ""))
        return func(token)

    def render_document(self, token: block_token.Document) -> str:
        return self._blocks(token.children).strip("\n")

    def _blocks(self, children) -> str:
        return "\n\n".join(part for part in (self.render(c) for c in children or ()) if part.strip())

    # ---- spans -------------------------------------------------------------------------------
    def render_raw_text(self, token: span_token.RawText) -> str:
        if self.plain or self._in_label:
            return self.escape(token.content)
        return "".join(self._link(piece, "") if is_url else self.literal(piece)
                       for is_url, piece in split_urls(token.content))

    def render_escape_sequence(self, token: span_token.EscapeSequence) -> str:
        return self.render_inner(token)

    def render_inline_code(self, token: span_token.InlineCode) -> str:
        code = self.escape(token.children[0].content) if token.children else ""
        return code if self.plain else self.code_span(code)

    def _link(self, url: str, label: str) -> str:
        if not url.startswith(SAFE_SCHEMES):
            return label or self.escape(url)
        return self.link(url, label)

    def _label(self, token) -> str:
        saved, self.plain = self.plain, self.plain or self.LABEL_PLAIN
        self._in_label += 1
        try:
            return self.render_inner(token).replace("\n", " ").strip()
        finally:
            self._in_label -= 1
            self.plain = saved

    def render_link(self, token: span_token.Link) -> str:
        return self._link(token.target, self._label(token))

    def render_auto_link(self, token: span_token.AutoLink) -> str:
        target = token.target
        if target.startswith(("!", "@", "#")):  # <!here|@here> parses as an e-mail autolink: its text only
            return self.literal(target)
        if getattr(token, "mailto", False) and not target.startswith("mailto:"):
            return self._link(f"mailto:{target}", self.escape(target))
        return self._link(target, "")

    def render_image(self, token: span_token.Image) -> str:
        return self._link(token.src, self._label(token) or "image")

    def render_line_break(self, token: span_token.LineBreak) -> str:
        # A soft break is kept as a newline: chat text is read as it was written.
        return "\n"

    # ---- blocks ------------------------------------------------------------------------------
    def render_paragraph(self, token: block_token.Paragraph) -> str:
        return self.paragraph(self.render_inner(token))

    def render_heading(self, token: block_token.Heading) -> str:
        self._bold += 1
        try:
            inner = self.render_inner(token).replace("\n", " ").strip()
        finally:
            self._bold -= 1
        return inner if self.plain or not inner else self.heading(inner, token.level)

    def render_quote(self, token: block_token.Quote) -> str:
        inner = self._blocks(token.children)
        return "\n".join(f"> {line}" if line else ">" for line in inner.split("\n"))

    def render_block_code(self, token: block_token.BlockCode) -> str:
        code = token.children[0].content if token.children else ""
        code = self.escape(code.rstrip("\n"))
        return code if self.plain else self.code_block(code)

    def render_thematic_break(self, token: block_token.ThematicBreak) -> str:
        return RULE

    def render_list(self, token: block_token.List) -> str:
        self._list_depth += 1
        try:
            bullet = self.BULLETS[(self._list_depth - 1) % len(self.BULLETS)]
            items = token.children or ()
            # an ordered list keeps its delimiter as written: "1)" stays "1)", as the PDF and Word show it
            delimiter = ")" if items and str(getattr(items[0], "leader", "")).endswith(")") else "."
            markers = [bullet] * len(items) if token.start is None else [
                f"{token.start + i}{delimiter}" for i in range(len(items))]
            return "\n".join(self._item(item, marker) for item, marker in zip(items, markers, strict=True))
        finally:
            self._list_depth -= 1

    def _item(self, item: block_token.ListItem, marker: str) -> str:
        body = "\n".join(p for p in (self.render(c) for c in item.children or ()) if p.strip())
        return self.list_item(body.split("\n") if body else [""], marker)

    def render_list_item(self, token: block_token.ListItem) -> str:
        return self._item(token, self.BULLETS[0])

    def render_table(self, token: block_token.Table) -> str:
        rows = [self._cells(token.header)] if getattr(token, "header", None) is not None else []
        rows.extend(self._cells(row) for row in token.children or ())
        text = self.escape(format_table(rows, list(token.column_align or []),
                                        has_header=token.header is not None, sep=self.TABLE_SEP))
        return text if self.plain else self.code_block(text)

    @staticmethod
    def _cells(row: block_token.TableRow) -> list[str]:
        return [plain_text(cell).replace("\n", " ").strip() for cell in row.children or ()]

    def render_table_row(self, token: block_token.TableRow) -> str:
        return self.TABLE_SEP.join(self.escape(c) for c in self._cells(token))

    def render_table_cell(self, token: block_token.TableCell) -> str:
        return self.escape(plain_text(token))
