"""What every chat surface shares: the help text, de-duplication keys, ignoring bots, splitting
long text within a platform's limit, error replies and the wording of a research's status.

Nothing here knows a platform: each adapter passes its own limits, ids and ways to ask.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable, Sequence

from bots.logs import redact
from engine.text import grapheme_cut
from jobs.conversation.message import command_word

#: Words that ask for the help text (any case, trailing ``.`` or ``!`` ignored); empty text too.
HELP_WORDS = frozenset({"", "help", "/help", "?", "usage", "hilfe", "aide", "ayuda", "帮助"})
#: A research's status as the person who asked reads it (the statuses still open).
STATUS_WORDS = {"queued": "queued", "running": "running", "paused": "waiting for your answer",
                "delivering": "posting its report"}
#: The reply when the bot failed on its side and can say nothing better.
ERROR_LINE = "Sorry, something went wrong on my side; please try again in a minute."
#: The same with a reference the operator finds in the log (``ref``: :func:`log_failure`'s).
TRY_AGAIN = "Sorry, I couldn't take that request just now (ref `{ref}`). Please try again in a minute."
#: The discussion given as context: at most this many earlier messages (the newest) ...
DISCUSSION_MESSAGES = 50
#: ... and this many characters in all (the oldest are dropped first).
DISCUSSION_CHARS = 12_000
_FENCE = "```"


def is_help(text: str) -> bool:
    """True when ``text`` asks for the help text (see :data:`HELP_WORDS`;
    :func:`jobs.conversation.message.command_word`)."""
    return command_word(text) in HELP_WORDS


def usage(ask: Sequence[str], *, follow_up: str, direct: str = "direct message") -> str:
    """The help text in Markdown: what the bot does, ``ask`` (the platform's ways to start a
    research, one bullet each), then the rules every surface shares.

    ``follow_up`` says how to address the bot in a finished thread (e.g. "mention me in its
    thread"); ``direct`` is the platform's word for a one-to-one chat, where every message is for
    the bot (the rule of :func:`jobs.conversation.decide`).
    """
    lines = [
        "**Deep Research** writes a cited report on your question: a summary, then the report as "
        "`report.md`, `report.pdf` and `report.docx`.",
        "",
        *(f"- {line}" for line in ask),
        "- I may ask one clarifying question first: the person who asked answers it in the same thread.",
        "- I keep one status message up to date while I work. Press **Cancel** on it, or send `cancel`, "
        "to stop the research (only the person who asked can).",
        f"- After the report, {follow_up} for a follow-up research, or press one of the suggested "
        "follow-up questions under the summary; it starts with the report as context. Other replies "
        f"in the thread are left to the people there. In a {direct} every message is for me.",
        "- `help` shows this message.",
    ]
    return "\n".join(lines)


def dedupe_key(surface: str, kind: str, *ids: str) -> str:
    """The de-duplication key of one platform event: ``{surface}:{kind}:{id}:...``
    (e.g. ``slack:msg:C1:1712.5``), for :func:`jobs.dedupe.seen_before`."""
    return ":".join((surface, kind, *ids))


def press_key(message_key: str, action: str, index: int, user: str) -> str:
    """The de-duplication key of a button press: the bot message that carries the button
    (``message_key``), the button (``action``, ``index``) and, for Cancel, the person, so one
    button pressed twice runs once and another person's Cancel is heard on its own."""
    key = f"{message_key}:{action}_{index}"
    return f"{key}:{user}" if action == "cancel" else key


def is_from_bot(sender: str | None, *, self_id: str | None, flagged: bool) -> bool:
    """True for a message no research may come from: no sender, a sender the platform
    ``flagged`` as a bot, or the bot itself (``self_id``)."""
    return not sender or flagged or (self_id is not None and sender == self_id)


def admitted(log: logging.Logger, surface: str, place: str | None, allowed: frozenset[str]) -> bool:
    """True when an event from ``place`` (a Slack workspace id, a Teams tenant id) may reach the
    bot: ``allowed`` is empty (any place) or holds it (compared case-insensitively). Otherwise one
    ``event={surface}_stranger_ignored`` line is logged and the caller acknowledges the event and
    does nothing more: no reply, no job."""
    if not allowed or (place and place.lower() in {p.lower() for p in allowed}):
        return True
    log.info("event=%s_stranger_ignored place=%s", surface, place or "none")
    return False


def log_failure(log: logging.Logger, surface: str, step: str, err: BaseException) -> str:
    """Log ``err`` with a short reference, its message redacted (the traceback too, on one line,
    by :class:`bots.logs.RedactingFormatter`); return the reference (for :data:`TRY_AGAIN`)."""
    ref = uuid.uuid4().hex[:8]
    log.error("event=%s_error step=%s ref=%s error=%s detail=%s", surface, step, ref, type(err).__name__,
              redact(str(err))[:500].replace("\n", " "), exc_info=err)
    return ref


def discussion(messages: Sequence[tuple[str, str]], name: Callable[[str], str]) -> str:
    """A thread's earlier discussion as ``Name: text`` lines, oldest first, for a research's context.

    ``messages`` are ``(author id, plain text)`` in the thread's order, people's only; whitespace
    is collapsed and empty texts are left out. At most :data:`DISCUSSION_MESSAGES` of the newest
    are kept and :data:`DISCUSSION_CHARS` characters in all (the oldest go first); ``name(author)``
    gives the name shown, asked only for the lines kept.
    """
    lines: list[str] = []
    total = 0
    for author, text in reversed(messages[-DISCUSSION_MESSAGES:]):
        text = " ".join(text.split())
        if not text:
            continue
        line = f"{name(author) if author else 'someone'}: {text}"
        if total + len(line) > DISCUSSION_CHARS:
            break
        lines.append(line)
        total += len(line) + 1
    return "\n".join(reversed(lines))


# ---- splitting long text -----------------------------------------------------------------------

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
    """True when ``line`` leaves a ``` code block open or closed that was not: an odd number of
    ``` in it (```` ``` ```` alone, ``> ```lang``). A code span written on one line
    (```` ``` a`b ``` ````, as mrkdwn writes code holding a backtick) has its closing ``` on the same
    line and is no fence, wherever it stands."""
    return line.count(_FENCE) % 2 == 1


_TICKS = re.compile(r"`+")


def _code_span_around(line: str, cut: int) -> tuple[int, int, str] | None:
    """``(start, end, ticks)`` of the code span whose text holds ``line[cut]``: ``line[start:end]``
    between two runs of ``ticks``; None when ``cut`` is outside every span. As CommonMark reads code
    spans (https://spec.commonmark.org/0.31.2/#code-spans), and so mrkdwn: a run of backticks opens
    one that the next run of the same length closes; a run without such a closer is a literal."""
    opener = None
    for run in _TICKS.finditer(line):
        if opener is None:
            if run.start() >= cut:
                return None
            opener = run
        elif len(run.group()) == len(opener.group()):
            if cut < run.end():
                return opener.end(), run.start(), opener.group()
            opener = None
    return None


def _split_line(line: str, limit: int, *, spans: bool = True) -> list[str]:
    """``line`` in pieces of at most ``limit`` characters, cut at :func:`safe_cut`. With ``spans``
    (the line is not inside a code block) a cut never falls inside a code span: it moves before the
    span, which goes whole to the next piece; only a span that starts a piece and is longer than
    it is cut, closed before the cut and reopened after it (its spaces kept, never next to one of
    its own backticks), so both parts show as code."""
    pieces = []
    while len(line) > limit:
        cut = safe_cut(line, limit)
        span = _code_span_around(line, cut) if spans else None
        if span is not None:
            opener, closer = span[0] - len(span[2]), span[1] + len(span[2])
            if opener > 0:  # the span goes whole to the next piece
                cut, span = opener, None
            elif closer <= limit:  # it fits in this one whole
                cut, span = closer, None
        if span is None or 2 * len(span[2]) + 2 > limit // 2:  # (a run of backticks half a piece long: cut as text)
            pieces.append(line[:cut].rstrip())
            line = line[cut:].lstrip(" ")
            continue
        start, end, ticks = span  # a span longer than a piece, from its start: cut inside it
        cut = min(max(safe_cut(line, limit - len(ticks)), start + 1), end - 1)
        while cut > start + 1 and "`" in (line[cut - 1], line[cut]):
            cut -= 1
        pieces.append(line[:cut] + ticks)
        line = ticks + line[cut:]
    pieces.append(line)
    return pieces


def _paragraphs(text: str) -> list[str]:
    """Blank-line separated paragraphs; a fenced code block is never split at its blank lines."""
    paragraphs: list[str] = []
    current: list[str] = []
    fenced = False
    for line in text.split("\n"):
        fenced ^= _flips_fence(line)
        if not line.strip() and not fenced:
            if current:
                paragraphs.append("\n".join(current))
                current = []
        else:
            current.append(line)
    if current:
        paragraphs.append("\n".join(current))
    return paragraphs


def _split_long(paragraph: str, limit: int) -> list[str]:
    """Split one over-long paragraph by lines, closing and reopening a code fence at each cut; a line
    longer than a chunk is cut in pieces (:func:`_split_line`), one chunk each."""
    out: list[str] = []
    lines: list[str] = []
    size = 0
    fenced = False
    reserve = len(_FENCE) + 1  # room to close an open fence
    for raw in paragraph.split("\n"):
        flips = _flips_fence(raw)  # a line cut in pieces opens or closes a block once, after its last piece
        for n, line in enumerate(_split_line(raw, limit - 2 * reserve, spans=not (fenced or flips))):
            added = len(line) + (1 if lines else 0)
            # a line's later pieces each start a chunk: a line break between two would show in the text
            if lines and (n > 0 or size + added + reserve > limit):
                if fenced:
                    lines.append(_FENCE)
                out.append("\n".join(lines))
                lines = [_FENCE] if fenced else []
                size = len(_FENCE) if fenced else 0
                added = len(line) + (1 if lines else 0)
            lines.append(line)
            size += added
        fenced ^= flips
    if lines:
        out.append("\n".join(lines))
    return out


def split_text(text: str, limit: int) -> list[str]:
    """Split formatted ``text`` into non-empty chunks of at most ``limit`` characters (the
    platform's limit for one text field).

    Cuts fall between paragraphs when possible, then between lines, then at spaces; never
    inside a ``<link|label>`` or an ``&amp;`` reference; a ``` code block or a code span cut in two is
    closed and reopened so both halves render as code. A paragraph cut in pieces keeps one piece
    per chunk (none joined again to the next with a blank line in between).
    """
    chunks: list[str] = []
    current = ""
    for paragraph in _paragraphs(text):
        pieces = [paragraph] if len(paragraph) <= limit else _split_long(paragraph, limit)
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
