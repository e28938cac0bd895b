"""Long chat text in pieces within a platform's limit, as CommonMark (or Slack's mrkdwn) reads it:
cut at a paragraph, line, sentence or word end, code blocks closed and reopened, code spans kept whole
or cut in parts that each show their code, never a piece that reads as something it was not; and a
text shortened to fit one message, with a note.

Nothing here knows a platform: each adapter passes its own limit.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from bots.chat_code import (
    FENCE_RUN,
    Fence,
    Span,
    layout,
    makes_code,
    rewritten,
    span_around,
    span_parts,
    tick_spans,
    write_span,
)
from engine.text import grapheme_cut

_FENCE = "```"
#: mrkdwn's marks for bold, italics and strikethrough (one character each; a run of them is literal).
_MARKS = re.compile(r"\*+|_+|~+")
#: What mrkdwn never reads a mark in: a code span is found by :func:`tick_spans`, and ``<...>`` is a
#: link, mention or channel (its URL or label may hold ``_`` or ``*``).
_ANGLED = re.compile(r"<[^<>]*>")
#: A quote's markers at a line's start in mrkdwn (a literal ``>`` is written ``&gt;``).
_QUOTED = re.compile(r"(?:> ?)*")
#: WORD JOINER: a literal mark has one on the side where it could open or close (bots.slack.mrkdwn).
_JOINER = "\u2060"


def safe_cut(text: str, limit: int) -> int:
    """An index <= ``limit`` to cut ``text`` at: a space if one is near, else between two grapheme
    clusters (:func:`engine.text.grapheme_cut`); never inside ``<...>`` or an ``&..;`` character
    reference."""
    if len(text) <= limit:
        return len(text)
    cut = text.rfind(" ", 0, limit)
    if cut < limit // 2:
        cut = grapheme_cut(text, limit)  # no space near: between two characters as readers see them
    head = text[:cut]
    opened = head.rfind("<")
    if opened > head.rfind(">") and opened > 0:
        cut = opened
    amp = text.rfind("&", 0, cut)
    if amp >= 0 and ";" not in text[amp:cut] and cut - amp <= 5 and amp > 0:
        cut = amp
    return max(cut, 1)


def clip(text: str, limit: int) -> str:
    """``text`` without outer whitespace, cut at a safe place (:func:`safe_cut`) to ``limit``
    characters with an ellipsis when longer (line breaks kept, unlike :func:`engine.text.one_line`)."""
    text = text.strip()
    if len(text) <= limit:
        return text
    return text[:safe_cut(text, limit - 1)].rstrip() + "…"


def pack(chunks: Sequence[str], *, most: int, chars: int) -> list[list[str]]:
    """``chunks`` in order, in groups of at most ``most`` chunks and ``chars`` characters in all
    (the platform's limits for one message; a chunk over ``chars`` is a group alone); [] for none."""
    groups: list[list[str]] = []
    size = 0
    for chunk in chunks:
        if not groups or len(groups[-1]) == most or size + len(chunk) > chars:
            groups.append([])
            size = 0
        groups[-1].append(chunk)
        size += len(chunk)
    return groups


def cut_point(text: str, limit: int) -> int:
    """Where to cut ``text[:limit]``: a paragraph, line, sentence or word end in its last fifth
    (CJK full stops count), else ``limit``."""
    window = text[:limit]
    floor = int(limit * 0.8)
    for sep in ("\n\n", "\n", "。", "！", "？", ". ", "; ", " "):
        pos = window.rfind(sep)
        if pos >= floor:
            return pos + (len(sep) if sep.strip() else 0)
    return limit


def shorten_to_fit(text: str, fits: Callable[[str], bool], *, note: str, close: Callable[[str], str] = str) -> str:
    """``text`` itself when ``fits`` holds for it; else its longest head that fits with ``note``
    after a blank line, cut at a paragraph, line, sentence or word end (:func:`cut_point`) and made
    whole by ``close`` (which closes what the cut left open); ``note`` alone when no head fits.

    ``fits`` is the platform's size check (bytes of the payload, say); it is called about
    log2(len(text)) times.
    """
    if fits(text):
        return text

    def with_note(head: str) -> str:
        head = close(head)
        return f"{head}\n\n{note}" if head else note

    lo, hi = 0, len(text)
    while lo < hi:  # the longest prefix that fits with the note
        mid = (lo + hi + 1) // 2
        if fits(with_note(text[:mid])):
            lo = mid
        else:
            hi = mid - 1
    nicer = with_note(text[:cut_point(text, lo)] if lo else "")
    return nicer if fits(nicer) else with_note(text[:lo])  # closing what the nicer cut opened may not fit


def _flips_fence(line: str) -> bool:
    """True when ``line`` leaves a ``` code block open or closed that was not, as mrkdwn reads it: an
    odd number of ``` in it (```` ``` ```` alone, ``> ```lang``). A code span written on one line
    (```` ``` a`b ``` ````, as mrkdwn writes code holding a backtick) has its closing ``` on the same
    line and is no fence, wherever it stands."""
    return line.count(_FENCE) % 2 == 1


def _split_line(line: str, limit: int, *, spans: Sequence[Span] | None = None, commonmark: bool = False) -> list[str]:
    """``line`` in pieces of at most ``limit`` characters, cut at :func:`safe_cut` (a line break in
    it counts as a space).

    ``spans`` are its code spans, links and HTML tags (:func:`bots.chat_code.tick_spans` when None;
    none inside a code block): a cut never falls inside one, it moves before it, and it goes whole
    to the next piece. Only a span that starts a piece and is longer than it is cut, in parts that
    are each a span showing their part of its code (:func:`bots.chat_code.span_parts`).

    ``commonmark``: the text is CommonMark (else mrkdwn). A span over lines is written on one line
    first (the same code, :func:`bots.chat_code.write_span`); a cut never makes code of what was not
    (:func:`bots.chat_code.makes_code`: not inside a run of backticks, not after a backslash, no
    piece starting with what opens a fenced block, :func:`_cut_after`).
    """
    spans = list(tick_spans(line) if spans is None else spans)
    for span in reversed(spans if commonmark else ()):  # a span over lines, written on one line (the same code)
        if span.ticks and "\n" in line[span.start:span.end]:  # ... so that no cut or piece's start changes what it shows
            line, spans = rewritten(line, spans, span, write_span(span.code, span.ticks), span.code)
    pieces = []
    while len(line) > limit:
        cut, span, closer = _span_cut(line, spans, limit, commonmark)
        parts = None
        if span is not None and span.ticks and 2 * len(span.ticks) + 2 <= limit // 2:  # (a run of backticks half a piece long: cut as text)
            parts, cut = _cut_in_parts(line, span, closer, cut, limit, commonmark)
        if parts is None:  # (no span to cut, or no part of it fits in a piece: cut as text)
            if head := line[:cut].rstrip():
                pieces.append(head)
            line, spans = _rest(line, spans, cut)
            continue
        pieces.extend(written for written, _ in parts[:-1])
        line, spans = rewritten(line, spans, span, *parts[-1])
    pieces.append(line)
    return pieces


def _span_cut(line: str, spans: Sequence[Span], limit: int, commonmark: bool) -> tuple[int, Span | None, int]:
    """Where :func:`_split_line` cuts ``line`` (longer than ``limit``): ``(cut, span, closer)``. ``span`` is
    the span the cut falls in that may have to be cut in parts (None: cut at ``cut`` as text), ``closer``
    the end of its closing run of backticks. A span that does not start the line goes whole to the next
    piece; one that starts it and fits goes whole in this one, unless what follows it would open a block."""
    cut = _text_cut(line, limit, commonmark)
    span = span_around(spans, cut)
    if span is not None and not span.ticks and span.start == 0 and span.end > limit:  # a link longer than a piece
        span = span_around([s for s in spans if s.ticks], cut)  # is cut, but not in a code span of its text
    if span is None:
        return cut, None, 0
    opener, closer = span.start - len(span.ticks), span.end + len(span.ticks)
    if opener > 0:  # the span goes whole to the next piece
        return opener, None, closer
    if closer <= limit:  # it fits in this one whole, unless what follows it would open a block
        after = _cut_after(line, spans, closer, limit) if commonmark else closer
        if after is not None or closer <= limit // 2:
            return (closer if after is None else after), None, closer
    return cut, span, closer


def _cut_in_parts(line: str, span: Span, closer: int, cut: int, limit: int,
                  commonmark: bool) -> tuple[list[tuple[str, str]] | None, int]:
    """``(parts, cut)`` for a code span starting ``line`` that :func:`_span_cut` left to cut: its parts
    (:func:`bots.chat_code.span_parts`), or None to cut as text at the returned ``cut`` (the span's end
    when no part fits, or the span is one part written as it is, and it fits whole)."""
    # a span longer than a piece, from its start (or one that a fence's run follows: its end moves on)
    parts = span_parts(span, limit if closer > limit else limit // 2, commonmark=commonmark)
    if parts is not None and len(parts) == 1 and parts[0][0] == line[:closer]:  # (written as it is: no step on)
        parts = None
    if parts is None and closer <= limit:  # no part fits or the span is one: it stays whole in this piece
        cut = closer
    return parts, cut


def _rest(line: str, spans: Sequence[Span], cut: int) -> tuple[str, list[Span]]:
    """What follows a cut of ``line`` at ``cut`` (its leading spaces and line breaks left out), and the
    spans that lie in it, moved to its positions."""
    rest = line[cut:].lstrip(" \n")
    moved = len(line) - len(rest)
    return rest, [s._replace(start=s.start - moved, end=s.end - moved) for s in spans if s.start - len(s.ticks) >= moved]


def _cut_after(line: str, spans: Sequence[Span], closer: int, limit: int) -> int | None:
    """Where to cut CommonMark ``line``, which starts with a code span ending at ``closer`` (at most
    ``limit``): there, unless the next piece would then start with what opens a fenced block; else at
    a later space that makes no code (:func:`bots.chat_code.makes_code`) or inside a run of tildes
    (``~`` and ``~~`` open nothing); None when only a cut in the span itself would do."""
    if not makes_code(line, closer):
        return closer
    for c in range(limit, closer, -1):
        if line[c] == " " and not makes_code(line, c) and span_around(spans, c) is None:
            return c
    run = FENCE_RUN.match(line, closer)
    if run and run.group().endswith("~") and run.end() - 2 <= limit:  # ~~~ cut in ~ and ~~
        return run.end() - len(run.group().lstrip(" >-+*.)0123456789")) + 1
    return None


def _text_cut(line: str, limit: int, commonmark: bool) -> int:
    """Where to cut ``line`` to at most ``limit`` characters: :func:`safe_cut` (a line break counts
    as a space); in CommonMark moved back, to the space before or else a character, while the cut
    makes code of what was not (:func:`makes_code`)."""
    flat = line.replace("\n", " ")
    first = cut = safe_cut(flat, limit)
    if not commonmark:
        return cut
    while cut > 1 and makes_code(flat, cut):
        space = flat.rfind(" ", 0, cut)
        cut = space if space > 0 else grapheme_cut(flat, cut - 1)
    return first if makes_code(flat, cut) else cut  # (a run of backticks longer than a piece: cut inside it)


class _Line(NamedTuple):
    """A line of text to split (or lines that one code span joins): its ``text``, its code ``spans``,
    ``code`` when it belongs to a fenced block (cut as text), and ``inside``, the block open before
    it as ``(close, reopen)`` lines (None outside one); a block's opening line has its ``short``
    form, the fence and language alone, written when the line is longer than a piece."""

    text: str
    spans: tuple[Span, ...]
    code: bool
    inside: tuple[str, str] | None
    short: str | None = None


def _lines(text: str, *, commonmark: bool) -> list[_Line]:
    """``text``'s lines with their code, read as CommonMark (:func:`bots.chat_code.layout`; lines that
    a code span runs across are one) or as mrkdwn (``` anywhere opens or closes a block,
    :func:`_flips_fence`; spans by :func:`tick_spans`)."""
    out: list[_Line] = []
    if not commonmark:
        fenced, fence = False, _FENCE
        for line in text.split("\n"):
            flips = _flips_fence(line)
            code = fenced or flips
            if flips and not fenced:  # a block in a quote is closed and reopened in it
                fence = _QUOTED.match(line).group() + _FENCE
            spans = () if code else tuple(tick_spans(line))
            out.append(_Line(line, spans, code, (fence, fence) if fenced else None))
            fenced ^= flips
        return out
    fences, spans = layout(text)
    inside: dict[int, Fence] = {n: f for f in fences for n in range(f.first, f.last)}
    crossed = {s.start + at for s in spans for at, ch in enumerate(text[s.start:s.end]) if ch == "\n"}
    starts = [s.start for s in spans]  # (in order)
    start = 0
    for n, line in enumerate(text.split("\n")):
        end = start + len(line)
        fence = inside.get(n)
        if out and start - 1 in crossed:  # a span (or link) runs across the break
            prev = out.pop()
            start -= len(prev.text) + 1
            line = f"{prev.text}\n{line}"
        own = tuple(s._replace(start=s.start - start, end=s.end - start)
                    for s in spans[bisect.bisect_left(starts, start):bisect.bisect_right(starts, end)])
        out.append(_Line(line, own, fence is not None,
                         (fence.close, fence.reopen) if fence is not None and n > fence.first else None,
                         _opener_short(line, fence) if fence is not None and n == fence.first else None))
        start = end + 1
    return out


def _opener_short(line: str, fence: Fence) -> str:
    """The short form of a block's opening ``line``: its own quote and list markers (a list item's
    marker too, which the block's ``reopen`` line blanks), then the fence and language of ``reopen``."""
    markup = fence.close.lstrip(" >")
    return line[:line.find(markup)] + fence.reopen[len(fence.close) - len(markup):]


def _paragraphs(lines: Sequence[_Line]) -> list[list[_Line]]:
    """Blank-line separated paragraphs of ``lines``; a fenced code block is never split at its blank lines."""
    paragraphs: list[list[_Line]] = [[]]
    for line in lines:
        if not line.text.strip() and not line.inside:
            if paragraphs[-1]:
                paragraphs.append([])
        else:
            paragraphs[-1].append(line)
    return [p for p in paragraphs if p]


def _open_marks(text: str) -> str:
    """The mrkdwn marks (``*``, ``_``, ``~``) that ``text`` leaves open at its end, in the order they
    opened. A mark opens after no letter, digit or word joiner and before a non-space, and closes
    the open one of its kind before no letter, digit or word joiner and after a non-space; one in code
    (a ``` block or a code span) or in ``<...>``, or in a run of marks, is literal."""
    open_: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if fenced or _flips_fence(line):
            fenced ^= _flips_fence(line)
            continue
        skip = [(s.start - len(s.ticks), s.end + len(s.ticks)) for s in tick_spans(line)]
        skip += [m.span() for m in _ANGLED.finditer(line)]
        for m in _MARKS.finditer(line):
            if len(m.group()) > 1 or any(a <= m.start() < b for a, b in skip):
                continue
            before, after = line[m.start() - 1:m.start()] or " ", line[m.end():m.end() + 1] or " "
            mark = m.group()
            if mark in open_ and not before.isspace() and after != _JOINER and not after.isalnum():
                del open_[open_.index(mark):]
            elif mark not in open_ and before != _JOINER and not before.isalnum() and not after.isspace():
                open_.append(mark)
    return "".join(open_)


def _carry_marks(chunks: Sequence[str]) -> list[str]:
    """mrkdwn ``chunks`` of one paragraph, each closing the bold, italics or strikethrough it leaves open
    (:func:`_open_marks`) at its end and the next reopening them at its start, after its quote markers
    and indent: a block is read on its own, so a span cut in two is formatted in both, as a code span
    cut in two is code in both."""
    out: list[str] = []
    carried = ""
    for chunk in chunks:
        if carried and not _flips_fence(chunk.split("\n", 1)[0]):
            at = len(_QUOTED.match(chunk).group())
            at += len(chunk[at:]) - len(chunk[at:].lstrip(" "))
            chunk = chunk[:at] + carried + chunk[at:]
        carried = _open_marks(chunk)
        out.append(chunk.rstrip() + carried[::-1] if carried else chunk)
    return out


def _split_long(paragraph: Sequence[_Line], limit: int, *, commonmark: bool) -> list[str]:
    """Split one over-long paragraph by lines, closing and reopening a code fence at each cut; a line
    longer than a chunk is cut in pieces (:func:`_split_line`), one chunk each."""
    out: list[str] = []
    lines: list[str] = []
    size = 0
    fences = {line.inside: (line.inside[0], line.inside[1] if len(line.inside[1]) <= limit // 8 else line.inside[0])
              for line in paragraph if line.inside}  # (reopened without its language when that is long)
    reserve = max((len(max(pair, key=len)) for pair in fences.values()), default=len(_FENCE)) + 1
    # mrkdwn: room for the marks a chunk reopens at its start and closes at its end (three kinds at most)
    marks = 0 if commonmark or not any(_MARKS.search(line.text) for line in paragraph) else 6
    limit -= marks
    room = limit - 2 * reserve
    if room < (1 if fences else limit // 2):  # a limit too small for a block's fences beside a piece (or,
        room, fences, reserve = limit, {}, 0  # outside one, for their room to leave half of it): lines cut as text
    was_cut = False
    pad = 0  # the spaces a chunk that reopens a block in a list item takes off its lines
    for line in paragraph:
        text = line.short if line.short and len(line.text) > room else line.text  # (an info string's rest is not shown)
        # mrkdwn: a quoted line's later pieces are quoted too (each starts a block, read on its own)
        quote = "" if commonmark or line.code or len(text) <= room else _QUOTED.match(text).group()
        spans = () if line.code else line.spans
        pieces = _split_line(text, room - len(quote), spans=spans, commonmark=commonmark)
        pieces[1:] = [quote + piece for piece in pieces[1:]]
        for n, raw in enumerate(pieces):
            piece = _dedent(raw, pad)
            added = len(piece) + (1 if lines else 0)
            # a line's later pieces each start a chunk: a line break between two would show in the text;
            # and the next line follows none of them (after a piece that starts with ">" or ends a
            # heading's text, a line would read as part of a block that it was not part of)
            if lines and (n > 0 or was_cut or size + added + reserve > limit):
                if line.inside in fences:
                    lines.append(_dedent(fences[line.inside][0], pad))
                out.append("\n".join(lines))
                lines, pad = _reopened(fences.get(line.inside) if line.inside else None)
                piece = _dedent(raw, pad)
                size = len(lines[0]) if lines else 0
                added = len(piece) + (1 if lines else 0)
            if not lines and n == 0 and line.short is not None:  # a chunk that opens a block: out of its list item too
                pad = _indent(raw)
                piece = _dedent(raw, pad)
                added = len(piece)
            lines.append(piece)
            size += added
        was_cut = commonmark and len(pieces) > 1 and not line.code  # (in a code block a line is a line)
    if lines:
        out.append("\n".join(lines))
    return _carry_marks(out) if marks else out


def _reopened(fence: tuple[str, str] | None) -> tuple[list[str], int]:
    """A chunk's first lines when it continues a block (``fence``: its close and reopen lines, None
    outside one) and the spaces to take off each of its lines (:func:`_indent`): a message is read on
    its own, out of the list item the block was in, and a fence indented four spaces or more would
    be read there as an indented code block (its fences shown as text), so one indented only by
    spaces is written at the line's start, its lines with it. A chunk that opens a block does the
    same (:func:`_split_long`)."""
    if fence is None:
        return [], 0
    pad = _indent(fence[1])
    return [fence[1][pad:]], pad


def _indent(fence_line: str) -> int:
    """The spaces before the fence of a block's opening or reopening line when they are four or more
    (CommonMark 4.5: up to three, it is still a fence on its own, left as written); 0 when fewer, or
    when a quote's ``>`` comes first (the quote is written again in every chunk)."""
    bare = fence_line.lstrip(" ")
    spaces = len(fence_line) - len(bare)
    return spaces if spaces >= 4 and bare[:1] in ("`", "~") else 0


def _dedent(text: str, pad: int) -> str:
    """``text`` with up to ``pad`` spaces taken off the start of each line."""
    if not pad:
        return text
    return "\n".join(ln[min(pad, len(ln) - len(ln.lstrip(" "))):] for ln in text.split("\n"))


def split_text(text: str, limit: int, *, mrkdwn: bool = False) -> list[str]:
    """Split formatted ``text`` into non-empty chunks of at most ``limit`` characters (the
    platform's limit for one text field).

    Cuts fall between paragraphs when possible, then between lines, then at spaces; never
    inside a ``<link|label>`` or an ``&amp;`` reference; a code block or a code span cut in two is
    closed and reopened so both halves render as code. In mrkdwn, bold, italics or strikethrough cut in
    two are closed and reopened the same way, and a quoted line's later pieces keep its ``>``. A paragraph cut in pieces keeps one piece
    per chunk (none joined again to the next with a blank line in between).

    ``text`` is CommonMark: code blocks and spans are found as markdown-it-py reads them (a fence
    opens only at a line's start; a span's backticks pair only with a run of their own length, and a
    span may run over lines). With ``mrkdwn`` it is Slack's mrkdwn, where ``` anywhere on a line opens
    or closes a block (:func:`_flips_fence`).
    """
    chunks: list[str] = []
    current = ""
    for paragraph in _paragraphs(_lines(text, commonmark=not mrkdwn)):
        whole = "\n".join(line.text for line in paragraph)
        pieces = [whole] if len(whole) <= limit else _split_long(paragraph, limit, commonmark=not mrkdwn)
        for n, piece in enumerate(pieces):
            joined = f"{current}\n\n{piece}" if current else piece
            if len(joined) <= limit and n == 0:  # a paragraph's later pieces are not joined with a blank line
                current = joined
            else:
                if current:
                    chunks.append(current)
                current = piece
    if current.strip():
        chunks.append(current)
    return chunks
