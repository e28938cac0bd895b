"""The headings of model-written Markdown, found as a CommonMark reader finds them and moved below a heading of ours."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from engine.text import squeeze

#: The deepest heading Markdown has; a heading moved further down stays at this level.
DEEPEST = 6
#: The container markers (block quotes, list items) and indentation before an ATX heading's ``#`` run.
_PREFIX = r"[ \t>*+\-\d.)]*?"
#: A heading's text ending in what an ATX heading would read as its closing sequence (`` #``).
_CLOSING = re.compile(r"(^|[ \t])(#+)([ \t]*)$")


@dataclass(frozen=True)
class Heading:
    """A heading outside any block quote or list: its level (1-6), its text as written (inline
    Markdown, one line) and the lines it spans, ``split_lines(markdown)[start:end]``."""

    level: int
    text: str
    start: int
    end: int


def split_lines(markdown: str) -> list[str]:
    """``markdown``'s lines with their endings, split where a CommonMark reader ends a line
    (``\\n``, ``\\r\\n`` or ``\\r``): the lines a :class:`Heading` counts."""
    return [line for line in re.split(r"(?<=\n)|(?<=\r)(?!\n)", markdown) if line]


@functools.cache
def _parser():
    from markdown_it import MarkdownIt  # a parser only reports need

    return MarkdownIt("commonmark").enable("table")


def markdown_tokens(markdown: str) -> list:
    """``markdown`` as markdown-it's block tokens (CommonMark with GFM tables), each with its
    ``map``, the lines it spans in :func:`split_lines`."""
    return _parser().parse(markdown)


def _heading_tokens(markdown: str) -> list[tuple[int, object, str]]:
    """``(level, token, inline text)`` of every heading in ``markdown``, code blocks and raw HTML
    excepted (a ``#`` line in them is no heading), in order."""
    tokens = markdown_tokens(markdown)
    return [(int(tok.tag[1]), tok, tokens[i + 1].content) for i, tok in enumerate(tokens)
            if tok.type == "heading_open" and tok.map]


def heading_levels(markdown: str) -> list[int]:
    """The level of every heading in ``markdown`` (in block quotes and lists too), in order."""
    return [level for level, _, _ in _heading_tokens(markdown)]


def top_headings(markdown: str) -> list[Heading]:
    """The headings of ``markdown`` that are not inside a block quote or a list, in order."""
    return [Heading(level, squeeze(text), tok.map[0], tok.map[1])
            for level, tok, text in _heading_tokens(markdown) if tok.level == 0]


def shift_headings(markdown: str, by: int) -> str:
    """``markdown`` with every heading's level moved by ``by`` (down when positive), kept between 1
    and :data:`DEEPEST`; everything else as written.

    Headings in block quotes and lists move too; ``#`` lines in code and raw HTML are not headings
    and stay. An ATX heading keeps its line, only its ``#`` run changes; a setext heading (text
    underlined with ``===`` or ``---``) that moves becomes an ATX one, its lines joined on one.
    Moving down by ``n`` and back up by ``n`` gives the text again when none went past the limits.
    """
    if not by:
        return markdown
    lines = split_lines(markdown)
    for level, tok, text in reversed(_heading_tokens(markdown)):
        new = max(1, min(DEEPEST, level + by))
        if new == level:
            continue
        start, end = tok.map
        if tok.markup.startswith("#"):
            lines[start] = re.sub(rf"^({_PREFIX})#{{{level}}}(?=[ \t\r\n]|$)", rf"\g<1>{'#' * new}", lines[start], count=1)
            continue
        first = text.split("\n", 1)[0].strip()
        at = lines[start].find(first) if first else -1
        prefix = lines[start][:at] if at >= 0 else ""
        words = _CLOSING.sub(lambda m: f"{m.group(1)}\\{m.group(2)}{m.group(3)}", squeeze(text))
        newline = lines[end - 1][len(lines[end - 1].rstrip("\r\n")):]
        lines[start:end] = [f"{prefix}{'#' * new} {words}".rstrip() + newline]
    return "".join(lines)


def nest_headings(markdown: str, under: int) -> str:
    """``markdown`` with its headings moved down (relative levels kept, at most to :data:`DEEPEST`)
    so that the highest is one level below ``under``, the level of the heading of ours it stands
    under; ``markdown`` as written when no heading is at ``under`` or above."""
    levels = heading_levels(markdown)
    if not levels or min(levels) > under:
        return markdown
    return shift_headings(markdown, under + 1 - min(levels))
