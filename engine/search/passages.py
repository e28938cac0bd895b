"""Cutting a document's text into the passages an index stores and a search returns.

:func:`split_passages` is shared by the FTS5 corpus index (:mod:`engine.search.corpus_index`) and the
PostgreSQL text index of a thread's files (:mod:`engine.search.postgres_text`), so both store and
cite the same passages.
"""

from __future__ import annotations

import re

from engine.search.extract import LINK_MARK

PASSAGE_TARGET = 2000  # characters: a passage closes once it reaches this size ...
PASSAGE_LIMIT = 2500  # ... and never grows past this one (bar a short tail merged into the last)


def split_passages(text: str, target: int = PASSAGE_TARGET, limit: int = PASSAGE_LIMIT) -> list[str]:
    """Split ``text`` into passages of about ``target`` characters, at most ``limit``, on paragraph
    boundaries (blank lines); an oversized paragraph is cut at lines, then sentences, then spaces
    (each piece of a line of link captions keeps its :data:`LINK_MARK`)."""
    pieces: list[str] = []
    for para in re.split(r"\n\s*\n", text):
        para = para.strip()
        if para:
            pieces.extend(_split_long(para, limit) if len(para) > limit else [para])
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for piece in pieces:
        if current and size + 2 + len(piece) > limit:
            chunks.append("\n\n".join(current))
            current, size = [], 0
        size += len(piece) + (2 if current else 0)
        current.append(piece)
        if size >= target:
            chunks.append("\n\n".join(current))
            current, size = [], 0
    if current:
        tail = "\n\n".join(current)
        if chunks and len(tail) < target // 4 and len(chunks[-1]) + len(tail) + 2 <= limit * 1.2:
            chunks[-1] = f"{chunks[-1]}\n\n{tail}"
        else:
            chunks.append(tail)
    return chunks


def _split_long(text: str, limit: int) -> list[str]:
    pieces = _cut(text, limit)
    if text.startswith(LINK_MARK):
        return [piece if piece.startswith(LINK_MARK) else LINK_MARK + piece for piece in pieces]
    return pieces


#: What ends a sentence, before any closing quotation mark or bracket.
_SENTENCE_END = re.compile(r"[.!?。！？…][\"'”’»)\]]*$")


def sentence_break(before: str, after: str) -> bool:
    """True when a sentence ends between ``before`` and ``after`` (two pieces of one paragraph):
    ``before`` ends in end punctuation (:data:`_SENTENCE_END`) that is no abbreviation's
    (:func:`engine.segments.sentence_continues`: "e.g.", "z. B."), and ``after`` does not go on in
    small letters ("… e.g. | in Norway", "… when | the timeout expires")."""
    from engine.segments import sentence_continues

    before, after = before.rstrip(), after.lstrip()
    return bool(_SENTENCE_END.search(before)) and not sentence_continues(before, after)


def _cut(text: str, limit: int) -> list[str]:
    """``text`` (one paragraph longer than ``limit``) in pieces of at most ``limit`` characters: cut
    at its line breaks, else after its sentences, packed back together up to ``limit``; where a piece
    would pass it, cut at the last place in it where a sentence ends (:func:`sentence_break`), so a
    passage never opens inside a sentence, a hard-wrapped one or one with "e.g." in it; where none
    does, at the piece's last line or sentence end as split."""
    for pattern, sep in ((r"\n", "\n"), (r"(?<=[.!?。！？])\s+", " ")):
        parts = [p.strip() for p in re.split(pattern, text) if p.strip()]
        if len(parts) > 1:
            small: list[str] = []
            for part in parts:
                small.extend(_split_long(part, limit) if len(part) > limit else [part])
            groups: list[list[str]] = []
            for part in small:
                group = groups[-1] if groups else []
                if group and len(sep.join([*group, part])) <= limit:
                    group.append(part)
                    continue
                at = next((k for k in range(len(group), 0, -1)
                           if sentence_break(group[k - 1], group[k] if k < len(group) else part)), 0)
                if 0 < at < len(group) and len(sep.join([*group[at:], part])) <= limit:
                    groups[-1], rest = group[:at], group[at:]
                    groups.append([*rest, part])
                else:
                    groups.append([part])
            return [sep.join(group) for group in groups]
    out = []
    while len(text) > limit:
        cut = text.rfind(" ", limit // 2, limit)
        cut = cut if cut > 0 else limit
        out.append(text[:cut].strip())
        text = text[cut:].strip()
    if text:
        out.append(text)
    return out
