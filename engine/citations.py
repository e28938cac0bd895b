"""Citations built in code: the sources registry, `[n]` checking and the generated Sources list.

Every document a search returns gets a stable short id (``S`` + 6 hex digits of its URL's
SHA-1) that researchers cite in their notes. Before the report is written the cited ids are
numbered 1..K; the report's ``[n]`` markers are then checked against that numbering, unknown
ones removed, the rest renumbered 1..N by first use, and the Sources section generated from the
cited sources only (the approach of gemini-fullstack-langgraph-quickstart, which maps short ids
back to URLs in code). No URL reaches the report that no tool returned.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

SID = re.compile(r"\[(S[0-9a-f]{6})\]")
_MARKER_GROUP = re.compile(r"\[(\s*\d+(?:\s*[,;–-]\s*\d+)*\s*)\](?!\()")
_LINK = re.compile(r"(?<!!)\[([^\]]*)\]\((https?://[^)\s]+(?:\([^)\s]*\))?[^)\s]*)\)")
_BARE_URL = re.compile(r"(?<![(<\[])\bhttps?://[^\s)>\]]+")
_SOURCES_HEADING = re.compile(
    r"^#{1,6}\s*(sources|references|bibliography|quellen|literatur|références|fuentes|fonti|"
    r"referências|bronnen|источники|参考文献|来源|出典)\s*:?\s*$",
    re.IGNORECASE | re.MULTILINE,
)
SOURCES_TITLE = {
    "en": "Sources", "de": "Quellen", "fr": "Sources", "es": "Fuentes", "it": "Fonti",
    "pt": "Fontes", "nl": "Bronnen", "ru": "Источники", "zh": "来源", "ja": "出典",
}


def source_id(url: str) -> str:
    """The short id of a source: ``S`` followed by the first 6 hex digits of SHA-1(url)."""
    return "S" + hashlib.sha1(url.encode("utf-8")).hexdigest()[:6]


@dataclass
class Cited:
    """A source as numbered in the delivered report."""

    number: int
    id: str
    url: str
    title: str


def merge_sources(current: dict | None, new: dict | None) -> dict:
    """LangGraph reducer for the registry ``{id: record}``: first record of an id wins.

    ``{"type": "override", "value": {...}}`` replaces the registry (a new research in a thread).
    """
    if isinstance(new, dict) and new.get("type") == "override":
        return dict(new.get("value") or {})
    merged = dict(current or {})
    for key, record in (new or {}).items():
        merged.setdefault(key, record)
    return merged


def number_sources(registry: dict, texts: list[str]) -> dict[str, int]:
    """Number the registry's ids 1..K by first appearance of ``[Sxxxxxx]`` in ``texts``.

    Ids never cited in ``texts`` follow in registry order, so a writer may still cite them.
    Returns ``{id: n}``.
    """
    order: list[str] = []
    for text in texts:
        for sid in SID.findall(text):
            if sid in registry and sid not in order:
                order.append(sid)
    for sid in registry:
        if sid not in order:
            order.append(sid)
    return {sid: i + 1 for i, sid in enumerate(order)}


def ids_to_numbers(text: str, numbering: dict[str, int]) -> str:
    """Replace ``[Sxxxxxx]`` with ``[n]``; ids missing from ``numbering`` are dropped."""
    return SID.sub(lambda m: f"[{numbering[m.group(1)]}]" if m.group(1) in numbering else "", text)


def source_list(registry: dict, numbering: dict[str, int], limit_chars: int | None = None) -> str:
    """``[n] title — url`` lines for a prompt, in number order."""
    lines = []
    for sid, n in sorted(numbering.items(), key=lambda kv: kv[1]):
        rec = registry[sid]
        lines.append(f"[{n}] {rec.get('title') or rec['url']} — {rec['url']}")
    text = "\n".join(lines)
    return text[:limit_chars] if limit_chars else text


def _expand(group: str) -> list[int]:
    nums: list[int] = []
    for part in re.split(r"\s*[,;]\s*", group.strip()):
        m = re.fullmatch(r"(\d+)\s*[–-]\s*(\d+)", part)
        if m:
            a, b = int(m.group(1)), int(m.group(2))
            if 0 < b - a <= 20:
                nums.extend(range(a, b + 1))
                continue
        if part.isdigit():
            nums.append(int(part))
    return nums


def _split_code(text: str) -> list[tuple[bool, str]]:
    """Split Markdown into (is_code, chunk) so code spans and fences are left untouched."""
    parts = re.split(r"(```.*?```|`[^`\n]*`)", text, flags=re.DOTALL)
    return [(i % 2 == 1, p) for i, p in enumerate(parts)]


def finalize_citations(
    report: str, registry: dict, numbering: dict[str, int], language: str = "en", user_text: str = ""
) -> tuple[str, list[Cited], list[int]]:
    """Check and renumber a report's citations and append the generated Sources section.

    Args:
        report: Markdown written by a model, citing ``[n]`` from ``numbering``.
        registry: ``{id: {"url", "title", ...}}``.
        numbering: ``{id: n}`` the model was shown.
        language: ISO code for the Sources heading.
        user_text: what the user wrote (question, answer); URLs in it are theirs, not invented
            sources, so the report may repeat them (they are kept, and not listed as sources).

    Returns:
        ``(markdown, cited, removed)``: the report with valid markers renumbered 1..N by first
        use, unknown markers, unknown links and any model-written source list removed, and a
        Sources section listing exactly the cited sources; ``cited`` in number order;
        ``removed`` the marker numbers that matched no source.
    """
    by_number = {n: sid for sid, n in numbering.items() if sid in registry}
    known_urls = {rec["url"] for rec in registry.values()}
    known_urls |= {u.rstrip(".,;:") for u in _BARE_URL.findall(user_text)}
    m = _SOURCES_HEADING.search(report)
    if m:
        report = report[: m.start()].rstrip() + "\n"
    new_number: dict[str, int] = {}
    removed: list[int] = []

    def marker(match: re.Match) -> str:
        out: list[str] = []
        for n in _expand(match.group(1)):
            sid = by_number.get(n)
            if sid is None:
                removed.append(n)
                continue
            if sid not in new_number:
                new_number[sid] = len(new_number) + 1
            ref = f"[{new_number[sid]}]"
            if ref not in out:
                out.append(ref)
        return "".join(out)

    def link(match: re.Match) -> str:
        return match.group(0) if match.group(2) in known_urls else match.group(1)

    def bare(match: re.Match) -> str:
        url = match.group(0).rstrip(".,;:")
        return match.group(0) if url in known_urls else ""

    chunks = []
    for is_code, chunk in _split_code(report):
        if not is_code:
            chunk = _LINK.sub(link, chunk)
            chunk = _BARE_URL.sub(bare, chunk)
            chunk = _MARKER_GROUP.sub(marker, chunk)
        chunks.append(chunk)
    body = "".join(chunks).rstrip() + "\n"
    cited = [
        Cited(number=n, id=sid, url=registry[sid]["url"], title=registry[sid].get("title") or registry[sid]["url"])
        for sid, n in sorted(new_number.items(), key=lambda kv: kv[1])
    ]
    return body, cited, removed


def sources_section(cited: list[Cited], language: str = "en", no_sources_note: str | None = None) -> str:
    """The generated Markdown Sources section (``## Sources`` then ``[n] [title](url)`` lines)."""
    title = SOURCES_TITLE.get(language, "Sources")
    if not cited:
        return f"## {title}\n\n{no_sources_note or 'No sources were found or cited.'}\n"
    lines = [f"{c.number}. [{_escape_md(c.title)}](<{c.url}>)" for c in cited]
    return f"## {title}\n\n" + "\n".join(lines) + "\n"


def _escape_md(text: str) -> str:
    return re.sub(r"([\[\]\\*_`])", r"\\\1", text)
