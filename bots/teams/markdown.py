"""Teams' Markdown dialect and message size: tables as preformatted text, long text shortened to fit."""

from __future__ import annotations

import json
import re
import unicodedata

from botbuilder.schema import Activity

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
    "*… shortened to fit in a Teams message: the full report follows as report.md and report.pdf.*"
)

_FENCE = re.compile(r"^\s*(```|~~~)")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_HEADING = re.compile(r"^(#{4,6})\s+(.*?)\s*#*\s*$")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+(?:\([^)]*\))?[^)\s]*)\)")
_EMPHASIS = re.compile(r"(\*\*|__|`)")


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _cells(line: str) -> list[str]:
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    cells = re.split(r"(?<!\\)\|", line)
    out = []
    for cell in cells:
        cell = _LINK.sub(lambda m: f"{m.group(1)} ({m.group(2)})", cell.strip())
        out.append(_EMPHASIS.sub("", cell).replace("\\|", "|"))
    return out


def _table_block(rows: list[list[str]]) -> list[str]:
    ncols = max(len(r) for r in rows)
    rows = [r + [""] * (ncols - len(r)) for r in rows]
    widths = [max(_width(r[i]) for r in rows) for i in range(ncols)]

    def fmt(row: list[str]) -> str:
        return " | ".join(cell + " " * (widths[i] - _width(cell)) for i, cell in enumerate(row)).rstrip()

    lines = ["```", fmt(rows[0]), "-+-".join("-" * w for w in widths)]
    lines += [fmt(r) for r in rows[1:]]
    lines.append("```")
    return lines


def to_teams_markdown(text: str) -> str:
    """Adapt common Markdown to what a Teams text message renders.

    Teams text messages support bold, italics, headings (levels 1-3), lists, links, quotes and
    preformatted text but not tables ("Format your bot messages",
    https://learn.microsoft.com/microsoftteams/platform/bots/how-to/format-your-bot-messages):
    tables become aligned preformatted blocks (links shown as ``text (url)``), headings of level
    4-6 become bold lines. Fenced code is left untouched.
    """
    lines = text.replace("\r\n", "\n").split("\n")
    out: list[str] = []
    in_fence = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            in_fence = not in_fence
            out.append(line)
            i += 1
            continue
        if in_fence:
            out.append(line)
            i += 1
            continue
        if "|" in line and i + 1 < len(lines) and _TABLE_SEP.match(lines[i + 1]) and "-" in lines[i + 1]:
            rows = [_cells(line)]
            i += 2
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                rows.append(_cells(lines[i]))
                i += 1
            out.extend(_table_block(rows))
            continue
        heading = _HEADING.match(line)
        if heading:
            out.append(f"**{heading.group(2)}**")
        else:
            out.append(line)
        i += 1
    return "\n".join(out)


def payload_bytes(activity: Activity) -> int:
    """Size of ``activity`` as Teams counts it: its JSON payload, the larger of UTF-16 and UTF-8 bytes."""
    body = json.dumps(activity.serialize(), ensure_ascii=False, separators=(",", ":"))
    return max(len(body.encode("utf-16-le")), len(body.encode("utf-8")))


def _cut_point(text: str, limit: int) -> int:
    """Where to cut ``text[:limit]``: a paragraph, line, sentence or word end near the limit."""
    window = text[:limit]
    floor = int(limit * 0.8)
    for sep in ("\n\n", "\n", "。", "！", "？", ". ", "; ", " "):
        pos = window.rfind(sep)
        if pos >= floor:
            return pos + (len(sep) if sep.strip() else 0)
    return limit


def _close_fences(text: str) -> str:
    opened = sum(1 for line in text.split("\n") if _FENCE.match(line)) % 2
    return text + "\n```" if opened else text


def fit_activity(activity: Activity, *, limit: int = MAX_MESSAGE_BYTES, note: str = SHORTENED_NOTE) -> bool:
    """Shorten ``activity.text`` in place until :func:`payload_bytes` is within ``limit``.

    The text is cut at a paragraph, line, sentence or word boundary (never inside an open code
    fence, which is closed) and ``note`` is appended, pointing to the full report. Returns True
    when the text was shortened. A message is shortened, never rejected; when even the note
    alone does not fit (huge attachments), the text becomes the note.
    """
    text = activity.text or ""
    if payload_bytes(activity) <= limit:
        return False
    lo, hi = 0, len(text)
    while lo < hi:  # the longest prefix that fits with the note
        mid = (lo + hi + 1) // 2
        activity.text = _close_fences(text[:mid].rstrip()) + "\n\n" + note
        if payload_bytes(activity) <= limit:
            lo = mid
        else:
            hi = mid - 1
    keep = _cut_point(text, lo) if lo else 0
    head = _close_fences(text[:keep].rstrip())
    activity.text = f"{head}\n\n{note}" if head else note
    return True
