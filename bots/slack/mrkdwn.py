"""Markdown to Slack mrkdwn (and plain text) with a real parser, and Slack text back to plain text."""

from __future__ import annotations

import re
from collections.abc import Callable

from rich.emoji import Emoji, NoEmoji

from bots.chat_markdown import WORD_JOINER, ChatRenderer, fence_safe, link_target, parse
from engine.text import has_words

# Slack's formatting reference: "&", "<" and ">" are control characters and must be escaped
# as HTML entities everywhere in mrkdwn text, code included.
# https://docs.slack.dev/messaging/formatting-message-text
_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def escape(text: str) -> str:
    """Escape ``&``, ``<`` and ``>`` as Slack requires (``&amp;``, ``&lt;``, ``&gt;``)."""
    return "".join(_ESCAPES.get(ch, ch) for ch in text)


# mrkdwn has no escape for its markers: a literal "*", "_" or "~" (or a run of one) that could open
# formatting (no letter or digit before it) gets an invisible WORD JOINER (U+2060) before it, one
# that could close (none after it) gets one after it, so Slack shows "*literal*" instead of
# making it bold. Identifiers such as snake_case stay untouched. Literal markers are held as
# private-use stand-ins while rendering and guarded once their neighbours are known. Slack pairs any
# two backticks on a line, joiners or not: a literal one shows as MODIFIER LETTER GRAVE ACCENT
# (U+02CB, its look-alike, as jsx-slack escapes it), code's own backticks are held until the end.
_STAND_IN = {"*": "\ue011", "_": "\ue012", "~": "\ue013"}
_MARKER_OF = {v: k for k, v in _STAND_IN.items()}
_HELD = re.compile("\ue011+|\ue012+|\ue013+")  # a run is guarded as one: ``x`` must not pair inside it
GRAVE, _CODE_TICK = "\u02cb", "\ue014"


def _literal(text: str) -> str:
    return "".join(_STAND_IN.get(ch, ch) for ch in escape(text))


def _guard_markers(text: str) -> str:
    def guard(m: re.Match[str]) -> str:
        before = m.start() == 0 or not text[m.start() - 1].isalnum()
        after = m.end() == len(text) or not text[m.end()].isalnum()
        run = _MARKER_OF[m.group(0)[0]] * len(m.group(0))
        return f"{WORD_JOINER if before else ''}{run}{WORD_JOINER if after else ''}"

    return _HELD.sub(guard, text)


class _Renderer(ChatRenderer):
    """Slack mrkdwn's syntax for :class:`ChatRenderer`, or plain text when ``plain`` is set."""

    STRONG, EMPHASIS, STRIKE = "*", "_", "~"
    BULLETS = ("•", "◦", "▪")
    LABEL_PLAIN = True  # formatting inside a link label does not render in Slack: its words only
    WHOLE_WORDS = MARK_ENDS_SPAN = True  # "*bold*" formats only between word boundaries: x*bold*y shows its stars
    HELD = _STAND_IN

    def escape(self, text: str) -> str:
        return escape(text)

    def literal(self, text: str) -> str:
        # a bare URL is made a link by the walk: with ``verbatim`` set, Slack no longer finds it itself
        return _literal(text)

    def render_document(self, token) -> str:
        text = _guard_markers(super().render_document(token))
        return text if self.plain else text.replace("`", GRAVE).replace(_CODE_TICK, "`")

    def code_span(self, code: str) -> str:
        # mrkdwn code has no escape: a backtick would end `code`, but only three end a ```block```
        fence = "``` " if "`" in code else "`"
        return (fence + fence_safe(code) + fence[::-1]).replace("`", _CODE_TICK)

    def code_block(self, code: str) -> str:
        return f"```\n{fence_safe(code)}\n```".replace("`", _CODE_TICK)

    def heading(self, inner: str, level: int) -> str:
        return self._wrap("*", inner)

    def link(self, url: str, text: str) -> str:
        if self.plain:
            shown = escape(url)
            if not text or text == shown:
                return shown
            # an address shows as written: <me@x.test> as me@x.test, not as its mailto: link
            return text if text == shown.removeprefix("mailto:") else f"{text} ({shown})"
        safe = link_target(url, keep="()")
        if not text and safe != escape(url):  # percent-encoding changed it: show the URL as written
            text = escape(url)
        return f"<{safe}>" if not text or text == safe else f"<{safe}|{text}>"

    def list_item(self, lines: list[str], marker: str) -> str:
        indent = "    " * (self._list_depth - 1)
        head = f"{indent}{marker} {lines[0]}".rstrip()
        # nested lists carry their own indentation; continuation lines line up under the text
        rest = [line if line.startswith(indent + "    ") or not line else f"{indent}    {line}" for line in lines[1:]]
        return "\n".join([head, *rest])


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
    return _MARK.sub(lambda m: kept[int(m.group(1))], text)


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


def markdown_to_plain(markdown: str) -> str:
    """The same document as plain text (no markers; links as ``text (url)``), still escaped."""
    return _render(markdown, plain=True, mentions=False)


_SLACK_TOKEN = re.compile(r"<([^<>]*)>")


def slack_to_text(text: str, *, bot_user_id: str | None = None, names: Callable[[str], str] | None = None) -> str:
    """Turn a Slack message's text into the plain text a user typed.

    Mentions of ``bot_user_id`` are removed; other user mentions become ``@name`` (their label,
    else ``names(user_id)``, e.g. the display name from ``users.info``) or ``@U123``, channels
    ``#name``, links their URL (or ``label (url)``), ``<!here>``-style specials ``@here``, dates
    (``<!date^...|Feb 18, 2014>``) their text;
    ``&amp;``, ``&lt;``, ``&gt;`` are unescaped. Whitespace is collapsed at the ends.
    """

    def replace(match: re.Match[str]) -> str:
        body = match.group(1)
        target, _, label = body.partition("|")
        if target.startswith("@"):
            if bot_user_id and target[1:] == bot_user_id:
                return ""
            return "@" + (label or (names(target[1:]) if names else "") or target[1:]).lstrip("@")
        if target.startswith("#"):
            return "#" + (label or target[1:]).lstrip("#")
        if target.startswith("!date^"):
            # <!date^1392734382^{date_short}|Feb 18, 2014>: the label is the date as text
            return label
        if target.startswith("!"):
            # <!channel>, <!here|@here>, <!subteam^S123|@team>: the label already has its "@"
            return "@" + (label or target[1:].split("^")[0]).lstrip("@")
        if label and label != target and label not in target:
            return f"{label} ({target})"
        return target.removeprefix("mailto:")

    plain = _SLACK_TOKEN.sub(replace, text or "")
    return re.sub(r"[ \t]{2,}", " ", _unescape(plain)).strip()


#: One emoji as Slack's text carries it: ``:fire:``, ``:+1:``, ``:flag-us:``, a custom ``:party_parrot:``,
#: with its skin tone as a second code (``:+1::skin-tone-2:``).
#: https://docs.slack.dev/messaging/formatting-message-text#emoji
_EMOJI_CODE = re.compile(r":([a-z0-9_+'-]+):", re.IGNORECASE)
#: What a code with no Unicode emoji (a workspace's custom emoji) stands as: a symbol, not a word.
CUSTOM_EMOJI = "\u25ab"


def _unicode_emoji(match: re.Match[str]) -> str:
    name = match.group(1).lower()
    if name.startswith("skin-tone-"):  # the tone of the emoji before it, which stands for both
        return ""
    try:
        return str(Emoji(name))
    except NoEmoji:
        return CUSTOM_EMOJI


def emoji_alone_as_unicode(text: str) -> str:
    """``text`` as a person typed it when it is emoji alone: Slack sends ``🔥 🚀`` as ``:fire: :rocket:``,
    a text of letters, which would read as a question. When ``text`` holds a shortcode and, once the
    codes are gone, no letter or digit (only spaces, punctuation, symbols, Unicode emoji), each code
    becomes its Unicode emoji (``":+1::skin-tone-2: !"`` -> ``"👍 !"``; a custom emoji,
    :data:`CUSTOM_EMOJI`), so the message has no words, as the same emoji typed in Unicode has none.
    Any other text (``":rocket: Ariane 6 launch costs"``, ``"12:30:45"``) is returned unchanged."""
    if not _EMOJI_CODE.search(text) or has_words(_EMOJI_CODE.sub(" ", text)):
        return text
    return _EMOJI_CODE.sub(_unicode_emoji, text).strip()


#: What the bot's own mrkdwn writes as syntax, in the order it is read: a code block or a code span of
#: three backticks (``` ``` x ``` ```), a code span of one, a link ``<url|label>`` or ``<url>``.
_MRKDWN_SYNTAX = re.compile(r"```[\n ]?(.*?)[\n ]?```|`([^`\n]*)`|<([^<>]*)>", re.DOTALL)
#: A run of one mark's character in prose, with what is on each side of it.
_MARK_RUN = re.compile(r"\*+|_+|~+")


def _prose_to_plain(text: str) -> str:
    """Prose of :func:`markdown_to_mrkdwn` without its marks: a run of ``*``, ``_`` or ``~`` is a mark
    when it stands at a word's edge with no WORD JOINER beside it (a literal one has a joiner on its open
    side, one inside a word has letters on both); the joiners beside literal marks go."""
    def unmark(m: re.Match[str]) -> str:
        before, after = text[m.start() - 1:m.start()], text[m.end():m.end() + 1]
        if WORD_JOINER in (before, after) or (before.isalnum() and after.isalnum()):
            return m.group(0)
        return ""

    plain = _MARK_RUN.sub(unmark, text)
    return re.sub(f"{WORD_JOINER}(?=[*_~])|(?<=[*_~]){WORD_JOINER}", "", plain).replace(GRAVE, "`")


def mrkdwn_to_plain(mrkdwn: str) -> str:
    """The text a piece of :func:`markdown_to_mrkdwn`'s output shows, as :func:`markdown_to_plain` writes
    the whole document: no bold, italic or strikethrough marks, code without its backticks or fences,
    links as ``label (url)`` (a link showing its own address: the address), still escaped (``&amp;``: as
    a message's ``text`` must be, https://docs.slack.dev/messaging/formatting-message-text). For a
    message's notification text when a long text continues in more messages
    (:func:`bots.slack.blocks.markdown_messages`), each showing its own words: a piece cut anywhere reads
    as its words, not its markup."""
    out, at = [], 0
    for m in _MRKDWN_SYNTAX.finditer(mrkdwn):
        out.append(_prose_to_plain(mrkdwn[at:m.start()]))
        at = m.end()
        code = m.group(1) if m.group(1) is not None else m.group(2)
        if code is not None:
            out.append(code)
            continue
        target, _, label = m.group(3).partition("|")
        # a link showing its own address (as written: an address percent-encoded in the target) is the address
        own = not label or label == target.removeprefix("mailto:") or link_target(_unescape(label), keep="()") == target
        out.append((label or target).removeprefix("mailto:") if own else f"{label} ({target})")
    out.append(_prose_to_plain(mrkdwn[at:]))
    return "".join(out)
