"""Teams text messages from Markdown: a real parser, literal text escaped, size kept within Teams' limit."""

from __future__ import annotations

import json
import re

from botbuilder.schema import Activity

from bots.chat_code import tick_spans
from bots.chat_markdown import ChatRenderer, link_target, parse
from bots.chat_split import shorten_to_fit

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


def escape(text: str) -> str:
    """``text`` with every character Teams could read as Markdown or HTML written as a character
    reference (``<`` ``&lt;``, ``*`` ``&#42;``, ``_`` ``&#95;``...); Teams shows it unchanged.

    An ``_`` between two letters or digits stays as it is: CommonMark never reads it as emphasis
    (https://spec.commonmark.org/0.31.2/#emphasis-and-strong-emphasis, rules 2 and 4), so
    ``DEEPRESEARCH_CORPUS_DIR`` or ``snake_case`` reads as written even where a client shows
    the text without decoding references.
    """
    last = len(text) - 1
    return "".join(
        ch if ch == "_" and 0 < i < last and text[i - 1].isalnum() and text[i + 1].isalnum()
        else _ESCAPES.get(ch, ch)
        for i, ch in enumerate(text)
    )


def code_span(code: str) -> str:
    """``code`` as inline code: a Markdown code span (Teams' "preformatted text") with its text as
    written, fenced by a run of backticks longer than any inside it and padded with a space when it
    starts or ends with a backtick or a space (https://spec.commonmark.org/0.31.2/#code-spans), so
    it reads as written with or without Markdown. Code holding ``<``, ``>`` or ``&`` (which Teams
    could read as HTML, e.g. an ``<at>`` mention) is ``<code>`` with its text escaped instead.
    Code of spaces alone is kept as written (CommonMark strips none of them); "" for empty code."""
    code = code.replace("\n", " ")
    if not code.strip():
        return f"`{code}`" if code else ""
    if any(ch in code for ch in "<>&"):
        return f"<code>{escape(code)}</code>"
    fence = "`" * (max((len(run) for run in re.findall(r"`+", code)), default=0) + 1)
    pad = " " if code[0] in "` " or code[-1] in "` " else ""
    return f"{fence}{pad}{code}{pad}{fence}"


def _escape_line_starts(text: str) -> str:
    def repl(m: re.Match[str]) -> str:
        if m.group(2):
            return f"{m.group(1)}&#{ord(m.group(2))};"
        return f"{m.group(1)}{m.group(3)}&#{ord(m.group(4))};"

    return _LINE_START.sub(repl, text)


class _Renderer(ChatRenderer):
    """The Markdown subset a Teams text message shows, for :class:`ChatRenderer`; literal text escaped."""

    TABLE_SEP = " | "

    def escape(self, text: str) -> str:
        return escape(text)

    def paragraph(self, text: str) -> str:
        return _escape_line_starts(text)

    def render_inline_code(self, token) -> str:
        # the code as written (mistletoe gives every code span one RawText child): code_span fences it
        return code_span(token.children[0].content)

    def code_block(self, code: str) -> str:
        return f"<pre>{code}</pre>"

    def heading(self, inner: str, level: int) -> str:
        # Teams shows headings of levels 1-3; deeper ones become bold lines
        return f"{'#' * level} {inner}" if level <= 3 else f"**{inner}**"

    def link(self, url: str, label: str) -> str:
        return f"[{label or escape(url.removeprefix('mailto:'))}]({link_target(url)})"

    def list_item(self, lines: list[str], marker: str) -> str:
        pad = " " * (len(marker) + 1)
        return "\n".join([f"{marker} {lines[0]}".rstrip(), *(f"{pad}{ln}" if ln else "" for ln in lines[1:])])


def to_teams_markdown(text: str) -> str:
    """Markdown (CommonMark + GFM tables and strikethrough) as a Teams text message (``textFormat`` markdown).

    Teams text messages show bold, italics, strikethrough, headings 1-3, lists, links, quotes and
    preformatted text, but no tables ("Format your bot messages",
    https://learn.microsoft.com/microsoftteams/platform/bots/how-to/format-your-bot-messages).
    Every literal ``&``, ``<``, ``>``, ``*``, ``_`` (and the other characters Markdown reads as
    markup) is written as a character reference, so ``List<String>`` or ``snake_case`` shows as
    written and no ``<at>`` mention or HTML is made from the text (an ``_`` inside a word is left
    as it is: it never starts emphasis). Inline code is a backtick code span with its text as
    written (``<code>`` when it holds ``<``, ``>`` or ``&``: :func:`code_span`), code blocks
    ``<pre>`` with their text escaped; tables become aligned ``<pre>`` blocks (links
    as ``text (url)``); headings of level 4-6 become bold lines; links only for http, https and
    mailto (others keep their text); bare http(s) URLs become links.
    """
    return _Renderer().render(parse(text))


def payload_bytes(activity: Activity) -> int:
    """Size of ``activity`` as Teams counts it: its JSON payload, the larger of UTF-16 and UTF-8 bytes."""
    body = json.dumps(activity.serialize(), ensure_ascii=False, separators=(",", ":"))
    return max(len(body.encode("utf-16-le")), len(body.encode("utf-8")))


_FENCE = re.compile(r"^\s*(```|~~~)")
_PARTIAL = re.compile(r"(?:&[#\w]{0,10}|<[^<>]{0,10})$")


def _open_code_span(text: str) -> str:
    """The backtick run that opens a code span left open on the last line of ``text`` ("" when
    none). A code span never crosses a line here (:func:`code_span`), and literal backticks are
    written as ``&#96;``, so the runs of that line pair up as fences."""
    line = text.rsplit("\n", 1)[-1]
    opener = ""
    if not _FENCE.match(line):
        for run in re.findall(r"`+", line):
            opener = run if not opener else ("" if run == opener else opener)
    return opener


_MARK_RUN = re.compile(r"\*+|~+")
_LINK_TARGET = re.compile(r"\]\([^()\s]*\)")  # (link_target writes no parenthesis, no space)


def _open_marks(text: str) -> str:
    """The runs of ``*`` and ``~`` (bold, italics, strikethrough) that ``text``, as :func:`to_teams_markdown`
    writes it (every literal ``*`` and ``~`` a character reference), leaves open, as they close them:
    a run opens before a non-space and closes what is open of its kind after one; runs in a code span
    or a link's target are not marks."""
    opened = ""
    for line in text.split("\n"):
        skip = [(s.start - len(s.ticks), s.end + len(s.ticks)) for s in tick_spans(line)]
        skip += [m.span() for m in _LINK_TARGET.finditer(line)]
        for m in _MARK_RUN.finditer(line):
            if any(a <= m.start() < b for a, b in skip):
                continue
            run = m.group()
            before, after = line[m.start() - 1:m.start()] or " ", line[m.end():m.end() + 1] or " "
            if not before.isspace():
                closed = min(len(run), len(opened) - len(opened.rstrip(run[0])))
                opened, run = opened[:len(opened) - closed], run[closed:]
            if run and not after.isspace():
                opened += run
    return opened[::-1]


def _close_open(text: str) -> str:
    """``text`` cut anywhere, made whole: no half character reference or tag at its end, and an
    open code fence, code span, ``<pre>`` or ``<code>``, bold, italics or strikethrough closed."""
    text = _PARTIAL.sub("", text).rstrip()
    if sum(1 for line in text.split("\n") if _FENCE.match(line)) % 2:
        text += "\n```"
    opener = _open_code_span(text)
    if opener:
        text += (" " if text.endswith("`") else "") + opener
    for tag in ("code", "pre"):
        if text.count(f"<{tag}>") > text.count(f"</{tag}>"):
            text += f"</{tag}>"
    return text + _open_marks(text)


def fit_activity(activity: Activity, *, limit: int = MAX_MESSAGE_BYTES, note: str = SHORTENED_NOTE) -> bool:
    """Shorten ``activity.text`` in place until :func:`payload_bytes` is within ``limit``
    (:func:`bots.chat_split.shorten_to_fit`: cut at a paragraph, line, sentence or word end,
    never inside a character reference or a tag, an open code fence, ``<pre>`` or ``<code>``
    closed, ``note`` appended, pointing to the full report). Returns True when the text was
    shortened. A message is shortened, never rejected; when even the note alone does not fit
    (huge attachments), the text becomes the note.
    """
    text = activity.text or ""

    def fits(candidate: str) -> bool:
        activity.text = candidate
        return payload_bytes(activity) <= limit

    activity.text = shorten_to_fit(text, fits, note=note, close=_close_open)
    return activity.text != text
