"""Citations built in code: the sources registry, minted source ids, `[n]` numbering and the Sources list.

Every document a search returns is minted an id in the sources registry (``S`` + 6 hex
digits of its URL's SHA-1). Researchers, the compressor, the report writer, the review roles
and the final synthesis all cite sources by these ids (``[S1a2b3c]``); only those ids become
``[n]`` markers, numbered 1..N by first use in the delivered report, and the Sources section is
generated from the cited sources alone (gemini-fullstack-langgraph-quickstart maps short ids
back to URLs in code the same way). Any other bracketed text, ``[0, 1]``, ``[1-5]``, ``[sic]``
or a ``[3]`` quoted from a page, is the writer's prose and passes through unchanged, as does
everything inside code spans and code blocks (found with mistletoe, a CommonMark parser). No
URL reaches the report that no tool returned and the user did not write.

What a prompt lists of the sources is :mod:`engine.prompt_sources`; a list of sources the model
wrote at the end of its report is dropped before numbering (:mod:`engine.model_sources`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import pairwise

from engine.chinese import with_traditional
from engine.source_links import source_text, web_link
from engine.text import MISTLETOE_LOCK, markdown_literal

#: One minted id in brackets, e.g. ``[S1a2b3c]``.
SID = re.compile(r"\[(S[0-9a-f]{6})\]")

_ID = r"S[0-9a-fA-F]{6}"  # minted lowercase; a model that upper-cases one still means it
# Candidates, leftmost first: a Markdown link (its text may hold one level of brackets, as a
# citation: ``[study [Sa]](url)``), a bracketed group of ids ([Sa] [Sa, Sb] [Sa; Sb]),
# a bare URL, a bare id. Which of them are prose (not code) is settled by the Markdown parser.
# A URL's characters: parentheses in pairs (``wiki/Heat_pump_(disambiguation)``, as CommonMark
# reads a link destination and GFM an autolink), so a ``)`` after the URL ends it, one inside does not.
_LINK_URL = r"https?://(?:[^()\s]|\([^()\s]*\))+"
_BARE = r"(?<![(<\[])\bhttps?://(?:\([^()\s>\]]*\)|[^()\s>\]]|\()+"
_CANDIDATE = re.compile(
    rf"(?P<link>(?<!!)\[(?P<text>(?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]\((?P<url>{_LINK_URL})\))"
    rf"|(?P<group>\[\s*{_ID}(?:\s*[,;]\s*{_ID})*\s*\])"
    rf"|(?P<bare_url>{_BARE})"
    rf"|(?P<bare_id>\b{_ID}\b)"
)
_GROUP_ID = re.compile(_ID)
_BARE_URL = re.compile(_BARE)
#: What may follow a bare URL without being part of it: GFM's trailing punctuation (``?!.,:*_~``,
#: GFM 0.29 §6.9), ``;``, closing quotes and the full-width punctuation of Chinese and Japanese.
#: A URL is looked up as written first, then without these one at a time (:func:`_url_forms`).
_URL_TRAILING = "?!.,:;*_~'\"”’»。，、；：！？）」』】"
#: What joins two citation markers: spaces, then one of ``, ; & 、 ， ；``, then a conjunction of a
#: report language (:data:`SOURCES_TITLE`), each optional; never a line break.
_JOINER = re.compile(
    r"[^\S\n]*(?:[,;&、，；][^\S\n]*)?"
    r"(?:(?:and|or|und|oder|sowie|et|ou|y|e|ed|o|u|en|of|и|или|以及|和|与|與|及|或|および|及び|と|や)[^\S\n]*)?",
    re.IGNORECASE)
#: Bracket pairs that a removed citation can leave empty, ``([Sbad])`` or ``（[Sbad]）``.
_PAIRS = {"(": ")", "[": "]", "（": "）", "【": "】"}
#: Punctuation no typography puts a space before (``!?:;`` take one in French, so are not here).
_NO_SPACE_BEFORE = ".,)]。，、）】」』"
_SPACES = re.compile(r"[ \t]*")
_SENTINEL = re.compile("\ue000(\\d+)\ue001")

SOURCES_TITLE = with_traditional({  # zh-Hant: the zh title in Traditional characters (OpenCC)
    "en": "Sources", "de": "Quellen", "fr": "Sources", "es": "Fuentes", "it": "Fonti",
    "pt": "Fontes", "nl": "Bronnen", "sv": "Källor", "ru": "Источники", "zh": "来源", "ja": "出典",
})


def source_id(url: str) -> str:
    """The id minted for a source: ``S`` followed by the first 6 hex digits of SHA-1(url)."""
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


# --- where the prose is -------------------------------------------------------------------------


def _ids(group: str) -> list[str]:
    """The ids of a bracketed group, as minted (lowercase hex)."""
    return ["S" + sid[1:].lower() for sid in _GROUP_ID.findall(group)]


def _code_candidates(text: str, starts: list[int]) -> set[int]:
    """Indexes ``i`` of ``starts`` whose offset lies in a code span or code block of ``text``.

    A private-use sentinel is put before each offset, the text parsed as CommonMark (with GFM
    tables), and the sentinels found inside code tokens are the answer. The sentinels are plain
    text to the parser, so they change no code span, fence or indentation.
    """
    if not starts or "`" not in text and "    " not in text and "\t" not in text and "~~~" not in text:
        return set()
    pieces, pos = [], 0
    for i, start in enumerate(starts):
        pieces += [text[pos:start], f"\ue000{i}\ue001"]
        pos = start
    pieces.append(text[pos:])
    from mistletoe import (  # a parser only reports need (about 0.15 s to import)
        Document,
        block_token,
        span_token,
    )

    code_tokens = (span_token.InlineCode, block_token.CodeFence, block_token.BlockCode)
    with MISTLETOE_LOCK:
        doc = Document("".join(pieces))
    found: set[int] = set()
    stack = [doc]
    while stack:
        token = stack.pop()
        if isinstance(token, code_tokens):
            inner = "".join(getattr(c, "content", "") for c in token.children or ())
            found.update(int(m.group(1)) for m in _SENTINEL.finditer(inner))
            continue
        stack.extend(getattr(token, "children", None) or ())
    return found


def _prose_matches(text: str) -> list[re.Match]:
    """The candidate matches of ``text`` that are prose, not code."""
    matches = list(_CANDIDATE.finditer(text))
    code = _code_candidates(text, [m.start() for m in matches])
    return [m for i, m in enumerate(matches) if i not in code]


def cited_ids(text: str, registry: dict | None = None) -> list[str]:
    """Ids cited in the prose of ``text`` (bracketed, or bare when in ``registry``), in order, with repeats."""
    out: list[str] = []
    for m in _prose_matches(text):
        if m.group("group"):
            out += _ids(m.group("group"))
        elif m.group("bare_id") and registry is not None and (sid := _ids(m.group("bare_id"))[0]) in registry:
            out.append(sid)
        elif m.group("link"):
            out += cited_ids(m.group("text"), registry)
    return out


def keep_known_ids(text: str, known: dict | set) -> str:
    """``text`` with bracketed ids not in ``known`` removed from its prose (code untouched).

    Used on the compressor's notes, so that an id the compressor invented never travels on.
    """
    def rewrite(m: re.Match) -> str | None:
        if not m.group("group"):
            return None
        ids = [sid for sid in _ids(m.group("group")) if sid in known]
        return "".join(f"[{sid}]" for sid in dict.fromkeys(ids))

    return _rewrite(text, rewrite)


def _url_forms(url: str) -> list[str]:
    """``url`` as written, then shorter by one trailing :data:`_URL_TRAILING` character at a time."""
    core = len(url.rstrip(_URL_TRAILING))
    return [url[:end] for end in range(len(url), core - 1, -1)]


@dataclass
class _Rewritten:
    """One prose candidate as a rule left it: ``text[start:end]`` becomes ``new``."""

    start: int
    end: int  # a bare URL's trailing punctuation (:data:`_URL_TRAILING`) is not part of it
    new: str
    marker: bool  # a citation: a bracketed group, a bare URL, a bare id numbered
    removed: bool


def _rewritten(text: str, rule) -> list[_Rewritten]:
    """The prose candidates of ``text`` that are citations or that ``rule`` rewrites, in order.

    A candidate is removed when ``rule`` leaves nothing of it but a bare URL's trailing punctuation.
    """
    out: list[_Rewritten] = []
    for m in _prose_matches(text):
        new = rule(m)
        url = m.group("bare_url")
        end = m.start() + len(url.rstrip(_URL_TRAILING)) if url else m.end()
        if new is None:
            if m.group("group") or url:
                out.append(_Rewritten(m.start(), end, text[m.start():end], True, False))
        elif new == text[end:m.end()]:
            out.append(_Rewritten(m.start(), end, "", True, True))
        else:
            out.append(_Rewritten(m.start(), m.end(), new, bool(m.group("group") or m.group("bare_id") or url), False))
    return out


def _runs(text: str, rewritten: list[_Rewritten]) -> list[list[_Rewritten]]:
    """``rewritten`` in runs: citations next to each other or joined by a :data:`_JOINER` share one."""
    runs: list[list[_Rewritten]] = []
    for item in rewritten:
        if runs and runs[-1][-1].marker and item.marker and _JOINER.fullmatch(text, runs[-1][-1].end, item.start):
            runs[-1].append(item)
        else:
            runs.append([item])
    return runs


def _past_spaces_before_closing(text: str, pos: int) -> int:
    """``pos``, or past the spaces at ``pos`` when :data:`_NO_SPACE_BEFORE` punctuation follows them."""
    after = _SPACES.match(text, pos).end()
    return after if text[after:after + 1] and text[after] in _NO_SPACE_BEFORE else pos


def _emptied_group(text: str, start: int, end: int, floor: int) -> tuple[int, int]:
    """``(start, end)`` widened over each :data:`_PAIRS` bracket pair around it that holds nothing
    else but spaces, ``claim ([Sbad]).`` losing ``([Sbad])``; never before ``floor``."""
    while True:
        left = start
        while left > floor and text[left - 1] in " \t":
            left -= 1
        right = _SPACES.match(text, end).end()
        if left == floor or _PAIRS.get(text[left - 1]) != text[right:right + 1]:
            return start, end
        start, end = left - 1, right + 1


def _rewrite(text: str, rule) -> str:
    """Apply ``rule(match) -> str | None`` (None keeps the match) to the prose candidates of ``text``.

    A citation removed goes with what only it left behind, and every other character stays:

    - among citations it was joined to (``[1] and [Sbad]``, ``[Sbad], [2]``, ``[1]、[Sbad]``; a
      :data:`_JOINER`), the joiner before it, or after it when it comes first;
    - alone, a bracket pair it leaves empty (``([Sbad])``), the spaces before it unless a word
      follows (``claim [Sbad].`` becomes ``claim.``; first on a line, the spaces after it, and a
      line it leaves blank, which would end a paragraph);
    - the spaces it leaves before :data:`_NO_SPACE_BEFORE` punctuation (``growth [Sbad] .``).
    """
    out: list[str] = []
    pos = 0
    for run in _runs(text, _rewritten(text, rule)):
        kept = [item for item in run if not item.removed]
        if kept:
            out += [text[pos:run[0].start], kept[0].new]
            for before, item in pairwise(run):
                if item.start > kept[0].start and not item.removed:
                    out += [text[before.end:item.start], item.new]
            pos = _past_spaces_before_closing(text, run[-1].end) if run[-1].removed else run[-1].end
            continue
        start, end = _emptied_group(text, run[0].start, run[-1].end, pos)
        line = text.rfind("\n", 0, start) + 1
        if not text[line:start].strip():  # first on its line: the indent stays, or the line goes whole
            after = _SPACES.match(text, end).end()
            whole = text[after:after + 1] == "\n"
            out.append(text[pos:line] if whole else text[pos:start])
            pos = after + whole
        elif end == len(text) or not text[end].isalnum():
            out.append(text[pos:start].rstrip(" \t"))
            pos = _past_spaces_before_closing(text, end)
        else:
            out.append(text[pos:start])
            pos = end
    out.append(text[pos:])
    return "".join(out)


# --- numbering for the delivered report ------------------------------------------------------


@dataclass
class Numbering:
    """Turns minted ids into ``[n]`` markers, numbered 1..N by first use over the texts given.

    Args:
        registry: ``{id: {"url", "title", ...}}``.
        user_text: what the user wrote (question, answers); URLs in it are theirs, not invented
            sources, so the report may repeat them (kept, and not listed as sources).

    Call :meth:`apply` on each text in reading order (the report body, then its summary);
    ``removed`` collects the bracketed ids that matched no source, ``cited`` the sources numbered.
    """

    registry: dict
    user_text: str = ""
    numbers: dict[str, int] = field(default_factory=dict)
    removed: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._urls = {rec["url"] for rec in self.registry.values()}
        self._urls |= {form for url in _BARE_URL.findall(self.user_text) for form in _url_forms(url)}
        self._run: tuple[int, list[str]] = (-1, [])  # where the last marker group ended, its markers

    def _number(self, sid: str) -> str:
        if sid not in self.numbers:
            self.numbers[sid] = len(self.numbers) + 1
        return f"[{self.numbers[sid]}]"

    def _rule(self, m: re.Match) -> str | None:
        if m.group("group"):
            # adjacent groups ([Sa][Sa][Sb]) are one run of markers: each source once
            run = self._run[1] if self._run[0] == m.start() else []
            out: list[str] = []
            for sid in _ids(m.group("group")):
                if sid not in self.registry:
                    self.removed.append(sid)
                elif (ref := self._number(sid)) not in out and ref not in run:
                    out.append(ref)
            self._run = (m.end(), run + out)
            return "".join(out)
        if m.group("bare_id"):
            sid = _ids(m.group("bare_id"))[0]
            return self._number(sid) if sid in self.registry else None
        if m.group("link"):
            text = self.apply(m.group("text"))
            return f"[{text}]({m.group('url')})" if m.group("url") in self._urls else text
        url = m.group("bare_url")
        if any(form in self._urls for form in _url_forms(url)):
            return None
        return url[len(url.rstrip(_URL_TRAILING)):]

    def apply(self, text: str) -> str:
        """``text`` with its prose ids as ``[n]``, unknown ids and unknown URLs removed (with the joiner,
        empty brackets and spaces only they left: :func:`_rewrite`), the rest unchanged."""
        outer, self._run = self._run, (-1, [])
        try:
            return _rewrite(text, self._rule)
        finally:
            self._run = outer

    def strip(self, text: str) -> str:
        """``text`` with every bracketed id removed from its prose (for a title), with the spaces
        before it (``costs [S1a2b3c]?`` becomes ``costs?``: :func:`_rewrite`); numbers nothing."""
        return _rewrite(text, lambda m: "" if m.group("group") else None)

    @property
    def cited(self) -> list[Cited]:
        """The sources numbered so far, in number order."""
        return [Cited(number=n, id=sid, url=self.registry[sid]["url"],
                      title=self.registry[sid].get("title") or self.registry[sid]["url"])
                for sid, n in sorted(self.numbers.items(), key=lambda kv: kv[1])]


def finalize_citations(report: str, registry: dict, user_text: str = "") -> tuple[str, list[Cited], list[str]]:
    """Number a report's citations and check its URLs (see :class:`Numbering`).

    A list of sources the report ends with goes first (:func:`engine.model_sources.drop_model_sources`):
    an id cited only there is not cited.

    Returns:
        ``(markdown, cited, removed)``: the report with its prose ids as ``[n]`` (1..N by first
        use) and everything else as written, ``cited`` in number order, ``removed`` the
        bracketed ids that matched no source.
    """
    from engine.model_sources import drop_model_sources  # it reads SOURCES_TITLE from here

    numbering = Numbering(registry, user_text)
    body = numbering.apply(drop_model_sources(report)).rstrip() + "\n"
    return body, numbering.cited, numbering.removed


# --- the review appendix and the Sources section ---------------------------------------------


def ids_to_numbers(text: str, numbers: dict[str, int]) -> str:
    """``text`` with the prose ids that ``numbers`` (``{id: n}``) has as ``[n]``; all else unchanged.

    For text quoted beside the report (the review appendix): a source the report cites gets
    its number there; any other id stays as written.
    """
    def rule(m: re.Match) -> str | None:
        if not m.group("group"):
            return None
        ids = _ids(m.group("group"))
        if not all(sid in numbers for sid in ids):
            return None
        return "".join(dict.fromkeys(f"[{numbers[sid]}]" for sid in ids))

    return _rewrite(text, rule)


def id_legend(texts: Iterable[str], registry: dict, numbers: dict[str, int] | None = None,
              language: str = "en") -> list[str]:
    """``- [Sxxxxxx] [title](<url>)`` lines (:func:`source_markdown`) for the ids ``texts`` cite (the
    review transcript's key).

    With ``numbers`` (the final report's ``{id: n}``), a source the report cites says so, in
    ``language`` (the ``source_of_report`` phrase: "(source 2 of the report)"); a shared file's page
    or section is named in ``language`` too (:func:`engine.file_labels.source_title`).
    """
    from engine.file_labels import source_title
    from engine.offline_phrases import phrase

    seen = dict.fromkeys(sid for text in texts for sid in cited_ids(text, registry) if sid in registry)
    lines = []
    for sid in seen:
        rec = registry[sid]
        note = " " + phrase("source_of_report", language, n=str(numbers[sid])) if numbers and sid in numbers else ""
        title = source_title(rec.get("title") or "", rec["url"], language)
        lines.append(f"- [{sid}] {source_markdown(title, rec['url'])}{note}")
    return lines


#: What ends or changes a ``<...>`` link destination (CommonMark 0.31, §6.3): a ``<`` or ``>``, a
#: backslash (an escape) and an ``&`` that starts a character reference (``&amp;`` reads as ``&``).
_DESTINATION_MARKUP = re.compile(r"[<>\\]|&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]*;)")


def link_destination(url: str) -> str:
    """``url`` as the text between the angle brackets of a Markdown link destination ``[t](<...>)``
    that a CommonMark reader reads back as ``url`` exactly (spaces and parentheses need no escape
    there; ``<``, ``>``, ``\\`` and a character reference's ``&`` are backslash-escaped)."""
    return _DESTINATION_MARKUP.sub(lambda m: "\\" + m.group(), url)


def source_markdown(title: str, url: str) -> str:
    """One source as Markdown: ``[title](<url>)`` for a web address, else its name as text
    (:func:`engine.source_links.source_text`: ``Title (sub/doc.md)``), never a link to a file or
    a server path."""
    if link := web_link(url):
        return f"[{markdown_literal(title or link, links=False)}](<{link_destination(link)}>)"
    return markdown_literal(source_text(title, url), links=False)


def sources_section(cited: list[Cited], language: str = "en", no_sources_note: str | None = None) -> str:
    """The generated Markdown Sources section (``## Sources`` then ``n. [title](<url>)`` lines; a
    source without a web address as text, :func:`source_markdown`); without sources cited,
    ``no_sources_note`` or the ``no_sources`` phrase of ``language`` (:mod:`engine.offline_phrases`)."""
    from engine.offline_phrases import phrase

    title = SOURCES_TITLE.get(language, "Sources")
    if not cited:
        return f"## {title}\n\n{no_sources_note or phrase('no_sources', language)}\n"
    lines = [f"{c.number}. {source_markdown(c.title, c.url)}" for c in cited]
    return f"## {title}\n\n" + "\n".join(lines) + "\n"

