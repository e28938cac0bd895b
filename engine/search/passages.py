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


def _cut(text: str, limit: int) -> list[str]:
    for pattern, sep in ((r"\n", "\n"), (r"(?<=[.!?。！？])\s+", " ")):
        parts = [p.strip() for p in re.split(pattern, text) if p.strip()]
        if len(parts) > 1:
            small: list[str] = []
            for part in parts:
                small.extend(_split_long(part, limit) if len(part) > limit else [part])
            packed: list[str] = []
            for part in small:
                if packed and len(packed[-1]) + len(sep) + len(part) <= limit:
                    packed[-1] = f"{packed[-1]}{sep}{part}"
                else:
                    packed.append(part)
            return packed
    out = []
    while len(text) > limit:
        cut = text.rfind(" ", limit // 2, limit)
        cut = cut if cut > 0 else limit
        out.append(text[:cut].strip())
        text = text[cut:].strip()
    if text:
        out.append(text)
    return out
