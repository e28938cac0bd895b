"""Markdown to Slack mrkdwn (and plain text) with a real parser, and Slack text back to plain text."""

from __future__ import annotations

import re
from urllib.parse import quote

from mistletoe import block_token, span_token
from mistletoe.base_renderer import BaseRenderer

from bots.chat_markdown import InlineMarks, display_width, format_table, parse, split_urls

# Slack's formatting reference: "&", "<" and ">" are control characters and must be escaped
# as HTML entities everywhere in mrkdwn text, code included.
# https://docs.slack.dev/messaging/formatting-message-text
_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_SAFE_SCHEMES = ("http://", "https://", "mailto:")
_BULLETS = ("•", "◦", "▪")
_RULE = "―" * 12


def escape(text: str) -> str:
    """Escape ``&``, ``<`` and ``>`` as Slack requires (``&amp;``, ``&lt;``, ``&gt;``)."""
    return "".join(_ESCAPES.get(ch, ch) for ch in text)


# mrkdwn has no escape for its markers: a literal "*", "_", "~" or "`" that could open
# formatting (no letter or digit before it) gets an invisible WORD JOINER (U+2060) before it, one
# that could close (none after it) gets one after it, so Slack shows "*literal*" instead of
# making it bold. Identifiers such as snake_case stay untouched. Literal markers are held as
# private-use stand-ins while rendering and guarded once their neighbours are known.
WORD_JOINER = "\u2060"
_STAND_IN = {"*": "\ue011", "_": "\ue012", "~": "\ue013", "`": "\ue014"}
_MARKER_OF = {v: k for k, v in _STAND_IN.items()}
_HELD = re.compile("[\ue011-\ue014]")


def _literal(text: str) -> str:
    return "".join(_STAND_IN.get(ch, ch) for ch in escape(text))


def _guard_markers(text: str) -> str:
    def guard(m: re.Match[str]) -> str:
        before = m.start() == 0 or not text[m.start() - 1].isalnum()
        after = m.end() == len(text) or not text[m.end()].isalnum()
        return f"{WORD_JOINER if before else ''}{_MARKER_OF[m.group(0)]}{WORD_JOINER if after else ''}"

    return _HELD.sub(guard, text)


def _link_url(url: str) -> str:
    """A URL made safe inside ``<url|text>``: no spaces, ``|``, ``<`` or ``>``; ``&`` escaped."""
    url = quote(url.strip(), safe=":/?#[]@!$&'()*+,;=%~-._")
    return url.replace("&", "&amp;")


class _Renderer(InlineMarks, BaseRenderer):
    """mistletoe renderer producing Slack mrkdwn, or plain text when ``plain`` is set."""

    STRONG, EMPHASIS, STRIKE = "*", "_", "~"

    def __init__(self, *, plain: bool = False) -> None:
        super().__init__()
        self.plain = plain
        self._bold = 0
        self._list_depth = 0

    # ---- plumbing ------------------------------------------------------------------------
    def render(self, token) -> str:
        func = self.render_map.get(type(token).__name__)
        if func is None:  # a token type registered by another renderer: keep its text
            children = getattr(token, "children", None)
            return self.render_inner(token) if children else escape(getattr(token, "content", ""))
        return func(token)

    def render_document(self, token: block_token.Document) -> str:
        return _guard_markers(self._blocks(token.children).strip("\n"))

    def _blocks(self, children) -> str:
        return "\n\n".join(part for part in (self.render(c) for c in children or ()) if part.strip())

    # ---- spans ---------------------------------------------------------------------------
    def render_raw_text(self, token: span_token.RawText) -> str:
        if self.plain:
            return escape(token.content)
        # a bare URL becomes a link here: with ``verbatim`` set, Slack no longer finds it itself
        return "".join(self._link(piece, "") if is_url else _literal(piece)
                       for is_url, piece in split_urls(token.content))

    def render_escape_sequence(self, token: span_token.EscapeSequence) -> str:
        return self.render_inner(token)

    def render_inline_code(self, token: span_token.InlineCode) -> str:
        code = escape(token.children[0].content) if token.children else ""
        return code if self.plain else f"`{code}`"

    def _link(self, url: str, text: str) -> str:
        if not url.startswith(_SAFE_SCHEMES):
            return text or escape(url)
        if self.plain:
            shown = escape(url)
            return shown if not text or text in (shown, shown.removeprefix("mailto:")) else f"{text} ({shown})"
        safe = _link_url(url)
        if not text and safe != escape(url):  # percent-encoding changed it: show the URL as written
            text = escape(url)
        return f"<{safe}>" if not text or text == safe else f"<{safe}|{text}>"

    def _link_text(self, token) -> str:
        # Formatting inside a link label does not render in Slack; keep its words only.
        saved, self.plain = self.plain, True
        try:
            return self.render_inner(token).replace("\n", " ").strip()
        finally:
            self.plain = saved

    def render_link(self, token: span_token.Link) -> str:
        return self._link(token.target, self._link_text(token))

    def render_auto_link(self, token: span_token.AutoLink) -> str:
        target = token.target
        if target.startswith(("!", "@", "#")):  # <!here|@here> parses as an e-mail autolink: its text only
            return _literal(target)
        if getattr(token, "mailto", False) and not target.startswith("mailto:"):
            return self._link(f"mailto:{target}", escape(target))
        return self._link(target, "")

    def render_image(self, token: span_token.Image) -> str:
        return self._link(token.src, self._link_text(token) or "image")

    def render_line_break(self, token: span_token.LineBreak) -> str:
        # A soft break is kept as a newline: chat text is read as it was written.
        return "\n"

    # ---- blocks --------------------------------------------------------------------------
    def render_paragraph(self, token: block_token.Paragraph) -> str:
        return self.render_inner(token)

    def render_heading(self, token: block_token.Heading) -> str:
        self._bold += 1
        try:
            inner = self.render_inner(token).replace("\n", " ").strip()
        finally:
            self._bold -= 1
        return inner if self.plain else self._wrap("*", inner)

    def render_quote(self, token: block_token.Quote) -> str:
        inner = self._blocks(token.children)
        return "\n".join(f"> {line}" if line else ">" for line in inner.split("\n"))

    def render_block_code(self, token: block_token.BlockCode) -> str:
        code = token.children[0].content if token.children else ""
        code = escape(code.rstrip("\n"))
        return code if self.plain else f"```\n{code}\n```"

    def render_thematic_break(self, token: block_token.ThematicBreak) -> str:
        return _RULE

    def render_list(self, token: block_token.List) -> str:
        self._list_depth += 1
        try:
            lines = []
            for index, item in enumerate(token.children):
                marker = (
                    f"{token.start + index}." if token.start is not None
                    else _BULLETS[(self._list_depth - 1) % len(_BULLETS)]
                )
                lines.append(self._list_item(item, marker))
            return "\n".join(lines)
        finally:
            self._list_depth -= 1

    def _list_item(self, item: block_token.ListItem, marker: str) -> str:
        indent = "    " * (self._list_depth - 1)
        parts = [self.render(child) for child in item.children or ()]
        body = "\n".join(p for p in parts if p.strip())
        lines = body.split("\n") if body else [""]
        head = f"{indent}{marker} {lines[0]}".rstrip()
        # nested lists carry their own indentation; continuation lines line up under the text
        rest = [line if line.startswith(indent + "    ") or not line else f"{indent}    {line}" for line in lines[1:]]
        return "\n".join([head, *rest])

    def render_list_item(self, token: block_token.ListItem) -> str:
        return self._list_item(token, _BULLETS[0])

    def render_table(self, token: block_token.Table) -> str:
        saved, self.plain = self.plain, True
        try:
            rows = []
            if getattr(token, "header", None) is not None:
                rows.append(self._cells(token.header))
            rows.extend(self._cells(row) for row in token.children or ())
        finally:
            self.plain = saved
        text = format_table(rows, list(token.column_align or []), has_header=token.header is not None,
                            width=lambda cell: display_width(_unescape(cell)))
        return text if self.plain else f"```\n{text}\n```"

    def _cells(self, row: block_token.TableRow) -> list[str]:
        return [self.render_inner(cell).replace("\n", " ").strip() for cell in row.children or ()]

    def render_table_row(self, token: block_token.TableRow) -> str:
        return "  ".join(self._cells(token))

    def render_table_cell(self, token: block_token.TableCell) -> str:
        return self.render_inner(token)


def _unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


# Slack's own references the bot may write on purpose: user mentions ``<@U123>`` and channel
# links ``<#C123>`` / ``<#C123|name>``. Broadcasts (``<!channel>``, ``<!here>``) never pass.
_PASSTHROUGH = re.compile(r"<(?:@[UW][A-Z0-9]+|#C[A-Z0-9]+(?:\|[\w.-]*)?)>")
_MARK = re.compile("\ue000(\\d+)\ue001")


def _render(markdown: str, *, plain: bool, mentions: bool) -> str:
    kept: list[str] = []

    def hide(match: re.Match[str]) -> str:
        kept.append(match.group(0))
        return f"\ue000{len(kept) - 1}\ue001"

    source = re.sub("[\ue000\ue001\ue011-\ue014]", "", markdown or "")
    if mentions:
        source = _PASSTHROUGH.sub(hide, source)
    text = _Renderer(plain=plain).render(parse(source))
    return _MARK.sub(lambda m: kept[int(m.group(1))], text) if kept else text


def markdown_to_mrkdwn(markdown: str, *, mentions: bool = False) -> str:
    """Convert Markdown (CommonMark + GFM tables and strikethrough) to Slack mrkdwn.

    Bold ``*x*``, italics ``_x_``, strikethrough ``~x~``, links ``<url|text>`` (only http, https
    and mailto; others keep their text; bare http(s) URLs become links too), headings as bold
    lines, lists with bullets or numbers, quotes ``> ``, code as backtick spans and fenced
    blocks, tables as aligned monospace code blocks. ``&``, ``<`` and ``>`` are escaped
    everywhere (Slack's escaping), so text from a user, a web page or a model never makes a
    mention, a broadcast (``<!channel>``) or a link. With ``mentions`` (for text the bot
    itself wrote), user mentions ``<@U123>`` and channel links ``<#C123>`` pass through.
    The result has no length limit; see :mod:`bots.slack.blocks` for splitting it into blocks.
    """
    return _render(markdown, plain=False, mentions=mentions)


def markdown_to_plain(markdown: str, *, mentions: bool = False) -> str:
    """The same document as plain text (no markers; links as ``text (url)``), still escaped."""
    return _render(markdown, plain=True, mentions=mentions)


_SLACK_TOKEN = re.compile(r"<([^<>]*)>")


def slack_to_text(text: str, *, bot_user_id: str | None = None) -> str:
    """Turn a Slack message's text into the plain text a user typed.

    Mentions of ``bot_user_id`` are removed; other user mentions become ``@U123``, channels
    ``#name``, links their URL (or ``label (url)``), ``<!here>``-style specials ``@here``;
    ``&amp;``, ``&lt;``, ``&gt;`` are unescaped. Whitespace is collapsed at the ends.
    """

    def replace(match: re.Match[str]) -> str:
        body = match.group(1)
        target, _, label = body.partition("|")
        if target.startswith("@"):
            return "" if bot_user_id and target[1:] == bot_user_id else "@" + (label or target[1:]).lstrip("@")
        if target.startswith("#"):
            return "#" + (label or target[1:]).lstrip("#")
        if target.startswith("!"):
            # <!channel>, <!here|@here>, <!subteam^S123|@team>: the label already has its "@"
            return "@" + (label or target[1:].split("^")[0]).lstrip("@")
        if label and label != target and label not in target:
            return f"{label} ({target})"
        return target.removeprefix("mailto:") if target.startswith("mailto:") else target

    plain = _SLACK_TOKEN.sub(replace, text or "")
    return re.sub(r"[ \t]{2,}", " ", _unescape(plain)).strip()
