"""What a reader sees: a Markdown source, a Slack mrkdwn text and a Teams message, as plain words.

The views are independent of the bots' renderers: the Markdown source and the Teams message are
read with markdown-it (CommonMark; Teams reads Markdown with HTML), Slack's mrkdwn with its
documented rules (``*bold*``, ``_italic_``, ``~strike~``, ``<url|label>``, code, entities).
Slack pairs any two backticks on a line as code (a link's label included) and ends a span at the
next marker of its kind, so a span whose text holds its own marker is not formatted; a reader
sees the MODIFIER LETTER GRAVE ACCENT (U+02CB) as the backtick it looks like.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from markdown_it import MarkdownIt

from bots.chat_markdown import _keep_definitions

_BLOCKS = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "pre", "blockquote", "ul", "ol", "tr", "table",
           "br", "hr", "div", "thead", "tbody"}
_DECORATION = "―•◦▪\u2060"


class _Text(HTMLParser):
    """Text content of HTML; ordered list items numbered; links in table cells as ``label (url)``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.tags: list[str] = []
        self._lists: list[list[int] | None] = []
        self._cell = 0
        self._href: list[str | None] = []

    def handle_starttag(self, tag: str, attrs) -> None:
        self.tags.append(tag)
        attrs = dict(attrs)
        if tag in _BLOCKS:
            self.parts.append("\n")
        if tag == "ol":
            self._lists.append([int(attrs.get("start") or 1)])
        elif tag == "ul":
            self._lists.append(None)
        elif tag == "li" and self._lists and self._lists[-1] is not None:
            counter = self._lists[-1]
            self.parts.append(f"{counter[0]}. ")
            counter[0] += 1
        elif tag in ("td", "th"):
            self._cell += 1
            self.parts.append(" ")
        elif tag == "a":
            self._href.append(attrs.get("href") if self._cell else None)
        elif tag == "img":  # the renderers link an image by its alt text, or "image" when it has none
            self.parts.append(attrs.get("alt") or "image")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("ol", "ul") and self._lists:
            self._lists.pop()
        elif tag in ("td", "th"):
            self._cell -= 1
        elif tag == "a" and self._href:
            href = self._href.pop()
            label = "".join(self.parts[-1:]).strip()
            if href and html.unescape(href) not in (label, f"mailto:{label}"):
                self.parts.append(f" ({html.unescape(href)})")
        if tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def _html_text(markup: str) -> tuple[str, list[str]]:
    parser = _Text()
    parser.feed(markup)
    parser.close()
    return "".join(parser.parts), parser.tags


def normalise(text: str) -> str:
    """Whitespace collapsed, decoration (rules, bullets, word joiners) and table bars dropped."""
    text = "".join(ch for ch in text if ch not in _DECORATION).replace("\u02cb", "`")
    lines = [ln for ln in text.split("\n") if not re.fullmatch(r"[\s|:+-]*-[\s|:+-]*", ln)]
    return " ".join(" ".join(lines).replace(" | ", " ").split())


_SOURCE = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
_SOURCE.validateLink = lambda url: True  # a javascript: link still shows its label, as the renderers do
_TEAMS = MarkdownIt("commonmark", {"html": True}).enable(["strikethrough"])


def markdown_shown(markdown: str) -> str:
    """What a CommonMark + GFM tables reader shows of ``markdown`` (raw HTML shown as text, link
    definitions kept as text: the chat renderers' documented reading)."""
    text, _ = _html_text(_SOURCE.render(_keep_definitions(markdown)))
    return normalise(text)


def teams_parse(message: str) -> tuple[str, list[str]]:
    """``(text, tags)`` of a Teams Markdown message read as CommonMark with HTML (as Teams reads it)."""
    return _html_text(_TEAMS.render(message))


def teams_shown(message: str) -> str:
    """The words a Teams message shows."""
    return normalise(teams_parse(message)[0])


_SLACK_BOLD = re.compile(r"(?<![^\s(\[{\"'“‘])([*_~])(?=\S)((?:(?!\1).)+?)(?<=\S)\1(?![^\s.,;:!?)\]}\"'”’-])")


def slack_shown(mrkdwn: str) -> str:
    """The words a Slack mrkdwn text shows (formatting markers, quotes and bullets removed)."""
    kept: list[str] = []

    def hide(text: str) -> str:
        kept.append(text)
        return f"\ue000{len(kept) - 1}\ue001"

    text = re.sub(r"```\n?(.*?)\n?```", lambda m: hide("\n" + m.group(1) + "\n"), mrkdwn, flags=re.DOTALL)
    text = re.sub(r"`([^`\n]+)`", lambda m: hide(m.group(1)), text)
    text = re.sub(r"<([^<>|]+)\|([^<>]*)>", lambda m: hide(m.group(2)), text)
    text = re.sub(r"<([^<>|]+)>", lambda m: hide(m.group(1)), text)
    text = re.sub(r"(?m)^(?:> ?)+", "", text)
    text = re.sub(r"(?m)^\s*[•◦▪] ", "", text)
    previous = None
    while previous != text:
        previous, text = text, _SLACK_BOLD.sub(lambda m: m.group(2), text)
    text = re.sub("\ue000(\\d+)\ue001", lambda m: kept[int(m.group(1))], text)
    text = re.sub("\ue000(\\d+)\ue001", lambda m: kept[int(m.group(1))], text)
    return normalise(text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))
