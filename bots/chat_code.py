"""Where chat Markdown holds code, as CommonMark reads it (markdown-it-py): the lines of each fenced
code block and the place and text of each code span, and how to cut text so every piece of code
stays code (a span cut in parts, each written as a span; no cut that makes code of what was not)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

from engine.text import grapheme_cut

#: A list item's marker before a fence (``- ```py``): blanks where a fence closed or reopened
#: inside the item keeps it there.
_LIST_MARKER = re.compile(r"[-+*]|\d{1,9}[.)]")
#: The longest language name a reopened block keeps.
_LANGUAGE = 30
#: A run of backticks.
TICKS = re.compile(r"`+")


class Fence(NamedTuple):
    """A fenced code block on ``text.split("\\n")[first:last]`` (its opening line, its content and
    its closing line if any), and the lines that close and reopen it at a cut (its own fence, after
    the quote markers and list indent of its opening line; reopened with its language, the first word
    of its info string, unless that is longer than :data:`_LANGUAGE`)."""

    first: int
    last: int
    close: str
    reopen: str


class Span(NamedTuple):
    """A code span: ``text[start:end]`` between two runs of ``ticks``, shown as ``code`` (line
    breaks as spaces, one space stripped from both ends when both are spaces: CommonMark 6.1). With
    no ``ticks``, ``text[start:end]`` is a link or an HTML tag, to be kept whole."""

    start: int
    end: int
    ticks: str
    code: str


def _noting(rule_name: str, rule):
    """markdown-it-py's inline ``rule``, noting in the parse's environment (``env["spans"]``) where
    it read a code span (``backticks``: ``(start, end, ticks, code)``, its place in the inline source
    with its backticks) or a link, image, autolink or HTML tag (``(start, end, "", "")``: backticks in
    one are no code span's, and pairing them with others would make one)."""

    def noting(state: StateInline, silent: bool) -> bool:
        start, count = state.pos, len(state.tokens)
        found = rule(state, silent)
        if found and not silent and len(state.tokens) > count:
            token = state.tokens[-1] if rule_name == "backticks" else None
            if token is None or token.type == "code_inline":
                state.env["spans"].append((start, state.pos, token.markup if token else "", token.content if token else ""))
        return found

    return noting


#: CommonMark, blocks parsed by ``parse`` and each block's inline text by :func:`layout` itself.
_MD = MarkdownIt("commonmark").disable("inline")
for _rule in list(_MD.inline.ruler.__rules__):
    if _rule.name in ("backticks", "link", "image", "autolink", "html_inline"):
        _MD.inline.ruler.at(_rule.name, _noting(_rule.name, _rule.fn))


def layout(text: str) -> tuple[list[Fence], list[Span]]:
    """The fenced code blocks (in order) and code spans (by their start) of Markdown ``text``, with
    its links, images, autolinks and HTML tags as spans of no ``ticks`` (whole, not code).

    Offsets and line numbers are ``text``'s own (``\\r`` is read as a space, so lines are
    ``text.split("\\n")``). A span in a block whose source markdown-it-py rewrote (a tab partly
    taken as indentation) is left out.
    """
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    fences: list[Fence] = []
    spans: list[Span] = []
    env: dict = {}
    for token in _MD.parse(text.replace("\r", " "), env):
        if token.type == "fence" and token.map:
            opener = lines[token.map[0]]
            indent = _LIST_MARKER.sub(lambda m: " " * len(m.group()), opener[:opener.find(token.markup)])
            language = token.info.split()[0] if token.info.strip() else ""  # all of the info a reader sees
            language = language if len(language) <= _LANGUAGE else ""
            space = " " if language[:1] == token.markup[0] else ""  # ~~~ ~x: "~~~~x" would be a longer fence
            fences.append(Fence(token.map[0], token.map[1], indent + token.markup, indent + token.markup + space + language))
        elif token.type == "inline" and token.map and "`" in token.content:
            env["spans"] = []
            _MD.inline.parse(token.content, _MD, env, [])
            where = _source_offsets(token.content, lines[token.map[0]:token.map[1]], starts[token.map[0]])
            spans.extend(Span(where[start] + len(ticks), where[end - 1] + 1 - len(ticks), ticks, code)
                          for start, end, ticks, code in env["spans"] if where is not None)
    return fences, sorted(spans)


def _source_offsets(source: str, lines: list[str], offset: int) -> list[int] | None:
    """For each character of an inline ``source`` (markdown-it-py's content of a block on ``lines``,
    which start at ``offset`` in the text), its offset in the text; None when a line of it is not
    found in its line (rewritten by the parser)."""
    where: list[int] = []
    for part, line in zip(source.split("\n"), lines, strict=False):
        at = len(line) - len(part) if line.endswith(part) else line.rfind(part)
        if at < 0:
            return None
        where.extend(range(offset + at, offset + at + len(part)))
        where.append(offset + len(line))  # the line break
        offset += len(line) + 1
    return where


def span_parts(span: Span, limit: int, *, commonmark: bool = True) -> list[tuple[str, str]] | None:
    """``span``'s code as code spans of at most ``limit`` characters each, which shown one after
    another show its code, as ``(written, code)`` pairs: each part cut at a space if one is near (kept, at the start of the next
    part), else between two characters as readers see them; never inside a run of backticks unless
    one is longer than a part, and beside a backtick only when no other place is near.

    Each part is written (:func:`write_span`) between runs of ``span.ticks`` (another length when the part holds a run of
    that one), with a space inside both ends when it starts or ends with a backtick and, in
    CommonMark, when it starts and ends with a space (one is stripped from each end when read). With
    ``commonmark`` False (mrkdwn) the code is taken as written, spaces and all.

    None when ``limit`` is too small for a part: its backticks and one character (or the one
    cluster a reader sees) take more; the span is then to be cut as text.
    """
    code, parts = span.code, []
    while code:  # (each part takes at least one character of the code)
        room = max(limit - 2 * len(span.ticks) - 2, 1)
        cut = len(code) if len(code) <= room else _code_cut(code, room)
        while True:
            part = write_span(code[:cut], span.ticks, commonmark=commonmark)
            if len(part) <= limit:
                break
            if cut == 1:
                return None
            cut = grapheme_cut(code, cut - 1)  # (a delimiter longer than the span's own)
        parts.append((part, code[:cut]))
        code = code[cut:]
    return parts


def _code_cut(code: str, room: int) -> int:
    """Where to cut ``code`` (longer than ``room``) to at most ``room`` characters, and at least one
    (see :func:`span_parts`)."""
    space = code.rfind(" ", 0, room)
    cut = space if space >= max(room // 2, 1) else grapheme_cut(code, room)
    for c in range(cut, max(cut - room // 2, 0), -1):  # not beside a backtick if a place is near
        if "`" not in (code[c - 1], code[c]):
            return c
    for c in range(cut, 0, -1):  # else at least not inside a run of them
        if not code[c - 1] == "`" == code[c]:
            return c
    return cut


def write_span(code: str, ticks: str, *, commonmark: bool = True) -> str:
    """``code`` (not empty, one line) written as one code span that shows it: between runs of
    ``ticks`` (of another length when ``code`` holds a run of that one), with a space inside both ends
    when it starts or ends with a backtick and, in CommonMark, when it starts and ends with a space."""
    runs = {len(run) for run in TICKS.findall(code)}
    n = len(ticks) if len(ticks) not in runs else next(k for k in range(1, len(code) + 2) if k not in runs)
    pad = "`" in (code[0], code[-1]) or (commonmark and code[0] == " " == code[-1] and code.strip())
    inner = f" {code} " if pad else code
    return f"{'`' * n}{inner}{'`' * n}"


def tick_spans(line: str) -> list[Span]:
    """The code spans of one ``line`` as mrkdwn reads them (and CommonMark, for a line alone without
    escapes, links or HTML: https://spec.commonmark.org/0.31.2/#code-spans): a run of backticks opens
    one that the next run of the same length closes; a run without such a closer is a literal. Their
    text is as written."""
    spans, opener = [], None
    for run in TICKS.finditer(line):
        if opener is None:
            opener = run
        elif len(run.group()) == len(opener.group()):
            spans.append(Span(opener.end(), run.start(), opener.group(), line[opener.end():run.start()]))
            opener = None
    return spans


def span_around(spans: Sequence[Span], cut: int) -> Span | None:
    """The span of ``spans`` that a cut at ``cut`` would break (after its opening backtick, before
    the end of its closing run); None when the cut is outside every span."""
    return next((s for s in spans if s.start - len(s.ticks) < cut < s.end + len(s.ticks)), None)


def rewritten(line: str, spans: list[Span], span: Span, written: str, code: str) -> tuple[str, list[Span]]:
    """``line`` with ``span`` (one of its ``spans``) replaced by ``written``, a code span showing
    ``code``, and its spans moved to match."""
    opener, closer = span.start - len(span.ticks), span.end + len(span.ticks)
    ticks = TICKS.match(written).group()
    moved = len(written) - (closer - opener)
    new = Span(opener + len(ticks), opener + len(written) - len(ticks), ticks, code)
    return line[:opener] + written + line[closer:], [
        s if s.start < span.start else new if s == span else s._replace(start=s.start + moved, end=s.end + moved)
        for s in spans]


#: What opens a fenced block at a line's start (CommonMark 4.5): three or more backticks or tildes,
#: after any quote markers and list item markers (container blocks, 5.1 and 5.2).
FENCE_RUN = re.compile(r"(?:\s*(?:>|[-+*](?=\s)|\d{1,9}[.)](?=\s)))*\s*(?:`{3,}|~{3,})")


def makes_code(line: str, cut: int) -> bool:
    """True when cutting CommonMark ``line`` at ``cut`` would make code of what was not: inside a run
    of backticks or after a backslash (a backtick escaped or a run's length changed), or with either
    piece starting with what opens a fenced block (```` ``` a`b ```` is no fence, for the backtick in
    its info string, unless cut before that one)."""
    if cut >= len(line):
        return False
    opening = FENCE_RUN.match(line)
    if opening and opening.group().endswith("`") and cut <= line.find("`", opening.end()):
        return True
    return line[cut - 1] == "`" == line[cut] or line[cut - 1] == "\\" or bool(FENCE_RUN.match(line[cut:]))
