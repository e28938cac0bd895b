"""The sources a prompt lists: ``[Sxxxxxx] title — url`` lines for what the texts cite, counted and bounded.

The writers after the researchers (final report, finalize, the review) see the sources their
inputs cite by minted id (:func:`engine.citations.cited_ids`), with title and URL, at most
:data:`MAX_PROMPT_SOURCES` of them, so a prompt grows with what is cited, not with what was
found; :func:`found_sources_block` adds how many were found and names a few not cited yet.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from engine.citations import cited_ids
from engine.source_links import public_url
from engine.text import one_line

#: The most sources a prompt lists by id, title and URL (final report, finalize, the review's
#: ``list_sources``): at about 50 tokens a source, 60 sources are about 3,000 tokens, so such a
#: prompt stays bounded however many results each search returns.
MAX_PROMPT_SOURCES = 60
#: Characters of a title shown in a prompt's source list.
PROMPT_TITLE_CHARS = 150


def prompt_sources(registry: dict, texts: Iterable[str], limit: int = MAX_PROMPT_SOURCES) -> tuple[str, int]:
    """The sources ``texts`` cite, as ``[Sxxxxxx] title — url`` lines for a prompt.

    Only registry ids cited in ``texts`` are listed, in order of first use; when more than
    ``limit`` are cited, the most cited ``limit`` are kept (ties: first used). Returns
    ``(lines, left_out)`` where ``left_out`` counts the cited sources not listed.
    """
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(sid for sid in cited_ids(text, registry) if sid in registry)
    order = list(counts)  # first use
    kept = set(sorted(order, key=lambda sid: (-counts[sid], order.index(sid)))[:limit])
    lines = [_source_line(sid, registry[sid]) for sid in order if sid in kept]
    return "\n".join(lines), len(order) - len(kept)


def _title(rec: dict) -> str:
    return one_line(str(rec.get("title") or rec["url"]), PROMPT_TITLE_CHARS)


def _source_line(sid: str, rec: dict) -> str:
    return f"[{sid}] {_title(rec)} — {public_url(rec['url'])}"


def source_block(registry: dict, texts: Iterable[str], limit: int = MAX_PROMPT_SOURCES) -> str:
    """:func:`prompt_sources` as the body of a prompt's ``<Sources>`` block (``(none)`` when empty)."""
    lines, left_out = prompt_sources(registry, texts, limit)
    if left_out:
        lines += f"\n({left_out} more cited sources are not listed here; their ids are valid citations.)"
    return lines or "(none)"


#: The first line of :func:`found_sources_block`, and the start of its line of sources not cited.
FOUND_HEAD = "{found} sources found; {cited} cited so far."
NOT_CITED_HEAD = "Found, not cited so far:"
#: Sources not cited that :func:`found_sources_block` names (by title and id, without URL) at most.
MAX_NOT_CITED_NAMED = 5


def found_sources_block(registry: dict, texts: Iterable[str], limit: int = MAX_PROMPT_SOURCES) -> str:
    """:func:`source_block` (the sources ``texts`` cite), after a :data:`FOUND_HEAD` line counting
    every source found (``registry``) and those cited, and before one :data:`NOT_CITED_HEAD` line
    naming the first :data:`MAX_NOT_CITED_NAMED` others found (``“title” [Sxxxxxx]``, no URL, so
    the prompt grows little with the number of results). ``(none)`` for an empty registry."""
    if not registry:
        return "(none)"
    texts = list(texts)
    cited = {sid for text in texts for sid in cited_ids(text, registry) if sid in registry}
    out = [FOUND_HEAD.format(found=len(registry), cited=len(cited))]
    block = source_block(registry, texts, limit)
    if block != "(none)":
        out.append(block)
    others = [sid for sid in registry if sid not in cited]
    if others:
        named = ", ".join(f"“{_title(registry[sid])}” [{sid}]" for sid in others[:MAX_NOT_CITED_NAMED])
        more = f" (+{len(others) - MAX_NOT_CITED_NAMED})" if len(others) > MAX_NOT_CITED_NAMED else ""
        out.append(f"{NOT_CITED_HEAD} {named}{more}")
    return "\n".join(out)
