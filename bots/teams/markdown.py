"""Teams text messages from Markdown: a real parser, literal text escaped, size kept within Teams' limit."""

from __future__ import annotations

import json
import re
from urllib.parse import quote

from botbuilder.schema import Activity
from mistletoe import block_token, span_token
from mistletoe.base_renderer import BaseRenderer

from bots.chat_common import cut_point
from bots.chat_markdown import InlineMarks, format_table, parse, split_urls

MAX_MESSAGE_BYTES = 28_000
"""Budget for one bot message's JSON payload, in bytes.

Microsoft's "Format your bot messages" page
(https://learn.microsoft.com/microsoftteams/platform/bots/how-to/format-your-bot-messages)
states the bot message size limit, counted over the entire message payload encoded as UTF-16;
the figure has changed between versions of that page (about 28 KB, then 40 KB, now 100 KB with
80 KB recommended) and a larger message is refused with 413 ``MessageSizeTooBig``. We keep
under the smallest published figure so a message is never refused by any tenant's service.
"""

SHORTENED_NOTE = (
    "*… shortened to fit in a Teams message: the full report follows as report.md, report.pdf and report.docx.*"
)

# Teams reads a bot's Markdown message as HTML too: a raw "<String>" is taken for a tag and
# dropped, "*" and "_" start emphasis. Every literal character that Markdown or HTML could take
# for markup is written as an HTML character reference, which both read as that character.
# https://spec.commonmark.org/0.31.2/#entity-and-numeric-character-references
_ESCAPES = {
    "&": "&amp;", "<": "&lt;", ">": "&gt;", "*": "&#42;", "_": "&#95;", "~": "&#126;", "`": "&#96;",
    "[": "&#91;", "]": "&#93;", "\\": "&#92;", "|": "&#124;",
}
# At the start of a line these begin a heading, quote, list, rule or table.
_LINE_START = re.compile(r"^([ \t]*)(?:([#>+=-])|(\d{1,9})([.)]))(?=[ \t]|$)", re.MULTILINE)
_SAFE_SCHEMES = ("http://", "https://", "mailto:")
_RULE = "―" * 12


def escape(text: str) -> str:
    """``text`` with every character Teams could read as Markdown or HTML written as a character
    reference (``<`` ``&lt;``, ``*`` ``&#42;``, ``_`` ``&#95;``...); Teams shows it unchanged."""
    return "".join(_ESCAPES.get(ch, ch) for ch in text)


def _escape_line_starts(text: str) -> str:
    def repl(m: re.Match[str]) -> str:
        if m.group(2):
            return f"{m.group(1)}&#{ord(m.group(2))};"
        return f"{m.group(1)}{m.group(3)}&#{ord(m.group(4))};"

    return _LINE_START.sub(repl, text)


def _href(url: str) -> str:
    """A URL as a Markdown link destination: no spaces, ``<``, ``>``, quotes or parentheses; ``&`` as ``&amp;``."""
    url = quote(url.strip(), safe=":/?#[]@!$&'*+,;=%~-._")
    return url.replace("&", "&amp;")


class _Renderer(InlineMarks, BaseRenderer):
    """mistletoe renderer producing the Markdown subset a Teams text message shows, text escaped."""

    def __init__(self) -> None:
        super().__init__()
        self._bold = 0
        self._in_link = 0

    def render(self, token) -> str:
        func = self.render_map.get(type(token).__name__)
        if func is None:  # a token type registered by another renderer (HTML): keep its text
            children = getattr(token, "children", None)
            return self.render_inner(token) if children else escape(getattr(token, "content", ""))
        return func(token)

    def render_document(self, token: block_token.Document) -> str:
        return self._blocks(token.children).strip("\n")

    def _blocks(self, children) -> str:
        return "\n\n".join(part for part in (self.render(c) for c in children or ()) if part.strip())

    # ---- spans ---------------------------------------------------------------------------
    def render_raw_text(self, token: span_token.RawText) -> str:
        if self._in_link:
            return escape(token.content)
        return "".join(self._link(piece, "") if is_url else escape(piece) for is_url, piece in split_urls(token.content))

    def render_escape_sequence(self, token: span_token.EscapeSequence) -> str:
        return self.render_inner(token)

    def render_inline_code(self, token: span_token.InlineCode) -> str:
        code = token.children[0].content if token.children else ""
        return f"<code>{escape(code)}</code>"

    def _link(self, url: str, label: str) -> str:
        if not url.startswith(_SAFE_SCHEMES):
            return label or escape(url)
        return f"[{label or escape(url.removeprefix('mailto:'))}]({_href(url)})"

    def render_link(self, token: span_token.Link) -> str:
        return self._link(token.target, self._label(token))

    def _label(self, token) -> str:
        self._in_link += 1
        try:
            return self.render_inner(token).replace("\n", " ").strip()
        finally:
            self._in_link -= 1

    def render_auto_link(self, token: span_token.AutoLink) -> str:
        target = token.target
        if getattr(token, "mailto", False) and not target.startswith("mailto:"):
            if target.startswith(("!", "@", "#")):  # Slack-style <!here|@here>: its text, not an address
                return escape(target)
            target = f"mailto:{target}"
        return self._link(target, "")

    def render_image(self, token: span_token.Image) -> str:
        return self._link(token.src, self._label(token) or "image")

    def render_line_break(self, token: span_token.LineBreak) -> str:
        return "\n"

    # ---- blocks --------------------------------------------------------------------------
    def render_paragraph(self, token: block_token.Paragraph) -> str:
        return _escape_line_starts(self.render_inner(token))

    def render_heading(self, token: block_token.Heading) -> str:
        self._bold += 1
        try:
            inner = self.render_inner(token).replace("\n", " ").strip()
        finally:
            self._bold -= 1
        if not inner:
            return ""
        # Teams shows headings of levels 1-3; deeper ones become bold lines
        return f"{'#' * token.level} {inner}" if token.level <= 3 else f"**{inner}**"

    def render_quote(self, token: block_token.Quote) -> str:
        inner = self._blocks(token.children)
        return "\n".join(f"> {line}" if line else ">" for line in inner.split("\n"))

    def render_block_code(self, token: block_token.BlockCode) -> str:
        code = token.children[0].content if token.children else ""
        return _pre(escape(code.rstrip("\n")))

    def render_thematic_break(self, token: block_token.ThematicBreak) -> str:
        return _RULE

    def render_list(self, token: block_token.List) -> str:
        items = []
        for index, item in enumerate(token.children or ()):
            marker = f"{token.start + index}." if token.start is not None else "-"
            items.append(self._item(item, marker))
        return "\n".join(items)

    def _item(self, item: block_token.ListItem, marker: str) -> str:
        body = "\n".join(p for p in (self.render(c) for c in item.children or ()) if p.strip())
        lines = body.split("\n") if body else [""]
        pad = " " * (len(marker) + 1)
        return "\n".join([f"{marker} {lines[0]}".rstrip(), *(f"{pad}{ln}" if ln else "" for ln in lines[1:])])

    def render_list_item(self, token: block_token.ListItem) -> str:
        return self._item(token, "-")

    def render_table(self, token: block_token.Table) -> str:
        rows = []
        if getattr(token, "header", None) is not None:
            rows.append(self._cells(token.header))
        rows.extend(self._cells(row) for row in token.children or ())
        text = format_table(rows, list(token.column_align or []), has_header=token.header is not None, sep=" | ")
        return _pre(escape(text))

    def _cells(self, row: block_token.TableRow) -> list[str]:
        return [_plain(cell).replace("\n", " ").strip() for cell in row.children or ()]

    def render_table_row(self, token: block_token.TableRow) -> str:
        return " | ".join(escape(c) for c in self._cells(token))

    def render_table_cell(self, token: block_token.TableCell) -> str:
        return escape(_plain(token))


def _pre(escaped: str) -> str:
    """A preformatted block (Teams' ``<pre>``): its text escaped, so nothing in it is read as markup."""
    return f"<pre>{escaped}</pre>"


def _plain(token) -> str:
    """The text a span token shows, without markup (links as ``text (url)``), unescaped."""
    if isinstance(token, span_token.RawText):
        return token.content
    if isinstance(token, span_token.InlineCode):
        return token.children[0].content if token.children else ""
    if isinstance(token, (span_token.Link, span_token.Image)):
        label = "".join(_plain(c) for c in token.children or ())
        url = token.target if isinstance(token, span_token.Link) else token.src
        return f"{label} ({url})" if label and label != url else url
    if isinstance(token, span_token.AutoLink):
        return token.target
    if isinstance(token, span_token.LineBreak):
        return " "
    children = getattr(token, "children", None)
    if children:
        return "".join(_plain(c) for c in children)
    return getattr(token, "content", "")


def to_teams_markdown(text: str) -> str:
    """Markdown (CommonMark + GFM tables and strikethrough) as a Teams text message (``textFormat`` markdown).

    Teams text messages show bold, italics, strikethrough, headings 1-3, lists, links, quotes and
    preformatted text, but no tables ("Format your bot messages",
    https://learn.microsoft.com/microsoftteams/platform/bots/how-to/format-your-bot-messages).
    Every literal ``&``, ``<``, ``>``, ``*``, ``_`` (and the other characters Markdown reads as
    markup) is written as a character reference, so ``List<String>`` or ``snake_case`` shows as
    written and no ``<at>`` mention or HTML is made from the text. Code is ``<code>`` and
    ``<pre>`` with its text escaped the same way; tables become aligned ``<pre>`` blocks (links
    as ``text (url)``); headings of level 4-6 become bold lines; links only for http, https and
    mailto (others keep their text); bare http(s) URLs become links.
    """
    return _Renderer().render(parse((text or "").replace("\r\n", "\n")))


def payload_bytes(activity: Activity) -> int:
    """Size of ``activity`` as Teams counts it: its JSON payload, the larger of UTF-16 and UTF-8 bytes."""
    body = json.dumps(activity.serialize(), ensure_ascii=False, separators=(",", ":"))
    return max(len(body.encode("utf-16-le")), len(body.encode("utf-8")))


_FENCE = re.compile(r"^\s*(```|~~~)")
_PARTIAL = re.compile(r"(?:&[#\w]{0,10}|<[^<>]{0,10})$")


def _close_open(text: str) -> str:
    """``text`` cut anywhere, made whole: no half character reference or tag at its end, and an
    open code fence, ``<pre>`` or ``<code>`` closed."""
    text = _PARTIAL.sub("", text).rstrip()
    if sum(1 for line in text.split("\n") if _FENCE.match(line)) % 2:
        text += "\n```"
    for tag in ("code", "pre"):
        if text.count(f"<{tag}>") > text.count(f"</{tag}>"):
            text += f"</{tag}>"
    return text


def fit_activity(activity: Activity, *, limit: int = MAX_MESSAGE_BYTES, note: str = SHORTENED_NOTE) -> bool:
    """Shorten ``activity.text`` in place until :func:`payload_bytes` is within ``limit``.

    The text is cut at a paragraph, line, sentence or word boundary (never inside a character
    reference or a tag; an open code fence, ``<pre>`` or ``<code>`` is closed) and ``note`` is appended, pointing to the full report. Returns True
    when the text was shortened. A message is shortened, never rejected; when even the note
    alone does not fit (huge attachments), the text becomes the note.
    """
    text = activity.text or ""
    if payload_bytes(activity) <= limit:
        return False
    lo, hi = 0, len(text)
    while lo < hi:  # the longest prefix that fits with the note
        mid = (lo + hi + 1) // 2
        activity.text = _close_open(text[:mid]) + "\n\n" + note
        if payload_bytes(activity) <= limit:
            lo = mid
        else:
            hi = mid - 1
    keep = cut_point(text, lo) if lo else 0
    head = _close_open(text[:keep])
    activity.text = f"{head}\n\n{note}" if head else note
    if payload_bytes(activity) > limit:  # closing tags the nicer cut opened: take the longest prefix
        head = _close_open(text[:lo])
        activity.text = f"{head}\n\n{note}" if head else note
    return True
