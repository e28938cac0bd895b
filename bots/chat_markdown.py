"""Markdown parsing shared by the chat renderers: one parser, bare URLs, no vanishing lines, tables."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from mistletoe import Document, span_token

from engine.citations import MISTLETOE_LOCK

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

# A bare http(s) URL in prose, as GitHub's autolink extension finds it: up to whitespace or
# ``<``, without trailing punctuation, and with a final ``)`` only when it closes one in the URL.
# https://github.github.com/gfm/#autolinks-extension-
_BARE_URL = re.compile(r"https?://[^\s<>\"'`]+", re.IGNORECASE)
_TRAILING = ".,:;!?*_~'\"。、，：；！？」』）"


def parse(markdown: str) -> Document:
    """Parse ``markdown`` (CommonMark + GFM tables and strikethrough) with mistletoe.

    Control characters (but newline and tab) and lone surrogates become U+FFFD, line ends
    ``\n``; link reference definition lines are kept as literal text instead of disappearing;
    code blocks are left alone. Thread-safe.
    """
    text = _BAD_CHARS.sub("\ufffd", (markdown or "").replace("\r\n", "\n").replace("\r", "\n"))
    with _PARSE_LOCK:
        return Document(_keep_definitions(text))


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


def split_urls(text: str) -> list[tuple[bool, str]]:
    """``text`` as ``(is_url, piece)`` pairs, bare http(s) URLs apart; the pieces join back to ``text``."""
    out: list[tuple[bool, str]] = []
    last = 0
    for match in _BARE_URL.finditer(text):
        url = _trim(match.group(0))
        if len(url) <= len("https://"):
            continue
        start = match.start()
        if start > last:
            out.append((False, text[last:start]))
        out.append((True, url))
        last = start + len(url)
    if last < len(text):
        out.append((False, text[last:]))
    return out


def _trim(url: str) -> str:
    while url:
        if url[-1] in _TRAILING:
            url = url[:-1]
        elif url[-1] == ")" and url.count(")") > url.count("("):
            url = url[:-1]
        else:
            break
    return url


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
    markers touch text), nested bold is marked once, and ``plain`` renders the text alone.
    """

    STRONG = "**"
    EMPHASIS = "*"
    STRIKE = "~~"
    plain = False
    _bold = 0

    def _wrap(self, mark: str, inner: str) -> str:
        stripped = inner.strip()
        if self.plain or not stripped:
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
        return inner if self._bold else self._wrap(self.STRONG, inner)

    def render_emphasis(self, token: span_token.Emphasis) -> str:
        return self._wrap(self.EMPHASIS, self.render_inner(token))

    def render_strikethrough(self, token: span_token.Strikethrough) -> str:
        return self._wrap(self.STRIKE, self.render_inner(token))
