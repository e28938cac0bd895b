"""A list of sources the model wrote at the end of its report, found with a CommonMark parser and dropped.

The report's Sources section is generated from the citations (:func:`engine.citations.sources_section`),
so a model's own trailing "## Sources" / "References" / "Quellen" / "参考文献" list would make a
second one, with entries neither numbered nor checked. It goes before the citations are numbered,
so that an id cited only in that list is not a cited source. Only a list goes: a section of prose
under such a heading, or one followed by another section of the same or a higher level, stays.
"""

from __future__ import annotations

import functools
import re

from engine.chinese import with_traditional
from engine.citations import SOURCES_TITLE
from engine.headings import markdown_tokens, split_lines

#: Titles of a list of sources by language, beside :data:`engine.citations.SOURCES_TITLE` (compared
#: case-folded; a title of two of them joined, "Sources and references", is one too).
SOURCES_SYNONYMS = with_traditional(
    {
        "en": (
            "Sources",
            "Source",
            "References",
            "Reference",
            "Bibliography",
            "Works cited",
            "Sources cited",
            "Cited sources",
            "Citations",
            "Reference list",
            "List of sources",
            "Source list",
            "Literature",
            "Sources used",
        ),
        "de": (
            "Quellen",
            "Quelle",
            "Quellenangaben",
            "Quellenverzeichnis",
            "Literatur",
            "Literaturverzeichnis",
            "Literaturangaben",
            "Referenzen",
            "Belege",
            "Einzelnachweise",
            "Nachweise",
            "Verwendete Quellen",
        ),
        "fr": (
            "Sources",
            "Références",
            "Bibliographie",
            "Références bibliographiques",
            "Sources citées",
            "Sources consultées",
            "Liste des sources",
        ),
        "es": (
            "Fuentes",
            "Fuente",
            "Referencias",
            "Bibliografía",
            "Referencias bibliográficas",
            "Fuentes consultadas",
            "Fuentes citadas",
            "Lista de fuentes",
        ),
        "it": (
            "Fonti",
            "Fonte",
            "Riferimenti",
            "Bibliografia",
            "Riferimenti bibliografici",
            "Fonti citate",
            "Fonti consultate",
        ),
        "pt": ("Fontes", "Referências", "Bibliografia", "Referências bibliográficas", "Fontes consultadas"),
        "nl": ("Bronnen", "Referenties", "Bronvermelding", "Literatuur", "Literatuurlijst", "Bronnenlijst"),
        "ru": ("Источники", "Литература", "Список литературы", "Список источников", "Ссылки", "Библиография"),
        "zh": (
            "来源",
            "参考文献",
            "参考资料",
            "资料来源",
            "引用",
            "引用来源",
            "参考来源",
            "参考链接",
            "出处",
        ),
        "ja": ("出典", "参考文献", "参考資料", "引用文献", "引用", "出典一覧", "参考リンク"),
        "pl": ("Źródła", "Bibliografia", "Przypisy", "Literatura"),
        "sv": ("Källor", "Referenser", "Litteratur", "Källförteckning"),
        "ar": ("المصادر", "المراجع", "مصادر", "مراجع"),
    }
)
#: What joins two titles in one heading: ``,`` ``&`` ``/`` ``+`` or a conjunction.
_JOIN = re.compile(r"\s*(?:[,&/+、・]|\b(?:and|und|et|y|e|en|och|i|oraz|и)\b|和|与|與|及|と)\s*")
#: A heading's numbering ("7.", "7.1", "VII.") before its title.
_NUMBERING = re.compile(r"^(?:\d+(?:\.\d+)*[.):]?|[ivxlc]+[.)])\s+")
#: What makes a line an entry of a list of sources: a URL, a DOI, a minted source id.
_MARKER = re.compile(r"https?://|\bwww\.|\bdoi:|\b10\.\d{4,9}/|\bS[0-9a-fA-F]{6}\b", re.IGNORECASE)
#: A numbered reference at the start of a line: ``[1]``, ``1.``, ``1)``, a footnote's ``[^1]:``.
_NUMBERED = re.compile(r"^\s*(?:\[(?:\d+|\^\w+)\]:?|\d+[.)])\s")
#: The most characters of an entry's words (its URLs not counted): longer is prose that cites.
MAX_ENTRY_CHARS = 300
_LISTS = ("bullet_list_open", "ordered_list_open")
#: The level of a paragraph that stands as a heading over a list of sources ("**Sources:**", "References"):
#: below every heading, so that nothing but entries may follow it.
PSEUDO_HEADING = 7


def is_sources_title(text: str) -> bool:
    """Whether a heading's text (its inline Markdown as written) names a list of sources: one of
    :data:`SOURCES_SYNONYMS` or :data:`engine.citations.SOURCES_TITLE`, or several joined
    ("Sources and references"), after its numbering ("7.") and emphasis or punctuation around it."""
    words = re.sub(r"[*_`]", "", " ".join(text.split())).casefold()
    words = re.sub(r"^\W+|\W+$", "", _NUMBERING.sub("", words.strip()))
    titles = _titles()
    return bool(words) and all(part in titles for part in _JOIN.split(words))


@functools.cache
def _titles() -> frozenset[str]:
    """Every title of :data:`SOURCES_SYNONYMS` and :data:`engine.citations.SOURCES_TITLE`, case-folded
    (made on first use: their Traditional Chinese entries load OpenCC)."""
    return frozenset({t.casefold() for titles in SOURCES_SYNONYMS.values() for t in titles}
                     | {t.casefold() for t in SOURCES_TITLE.values()})


def _close(tokens: list, i: int) -> int:
    """The index of the token closing the block ``tokens[i]`` opens (``i`` for a block without children)."""
    depth = 0
    for j in range(i, len(tokens)):
        depth += tokens[j].nesting
        if depth <= 0:
            return j
    return len(tokens) - 1


def _blocks(tokens: list) -> list[list]:
    """``tokens`` (a run of sibling blocks) split into its blocks, each its tokens from open to close."""
    out, i = [], 0
    while i < len(tokens):
        end = _close(tokens, i)
        out.append(tokens[i : end + 1])
        i = end + 1
    return out


def _entry(text: str, numbered: bool) -> bool:
    """Whether ``text`` (one entry's Markdown) reads as a source: short, with a marker or numbered."""
    words = _MARKER.sub("", re.sub(r"\]\([^)\s]*\)?|<[^>\s]*>|\S*https?://\S*", "]", text))
    return len(" ".join(words.split())) <= MAX_ENTRY_CHARS and (
        numbered or bool(_MARKER.search(text) or _NUMBERED.match(text))
    )


def _list_of_entries(block: list) -> bool:
    """Whether every item of a list (its tokens, open to close) is an entry, or a label over a list of them."""
    ordered = block[0].type == "ordered_list_open"
    for item in _blocks(block[1:-1]):
        inner = _blocks(item[1:-1])
        paragraphs = [b for b in inner if b[0].type == "paragraph_open"]
        lists = [b for b in inner if b[0].type in _LISTS]
        if len(paragraphs) > 1 or len(paragraphs) + len(lists) != len(inner):
            return False
        if not all(_list_of_entries(b) for b in lists):
            return False
        if paragraphs and not _entry(paragraphs[0][1].content, ordered or bool(lists)):
            return False
    return True


def _rows_of_entries(block: list) -> bool:
    """Whether every body row of a table names a source (:data:`_MARKER`)."""
    rows, row = [], None
    for tok in block:
        if tok.type == "tr_open":
            row = []
        elif tok.type == "inline" and row is not None:
            row.append(tok.content)
        elif tok.type == "tr_close":
            rows.append(" ".join(row or []))
    return all(_MARKER.search(r) for r in rows[1:])


def _only_entries(tokens: list) -> bool:
    """Whether ``tokens`` (a section's blocks after its heading) hold nothing but source entries: lists
    and lines of them (:func:`_entry`), tables of them, subheadings and rules, after at most one lead-in
    line ending in a colon ("The sources consulted:")."""
    blocks = _blocks(tokens)
    for n, block in enumerate(blocks):
        kind = block[0].type
        if kind in _LISTS:
            ok = _list_of_entries(block)
        elif kind == "paragraph_open":
            lines = block[1].content.splitlines()
            lead_in = (
                n == 0 and len(blocks) > 1 and len(lines) == 1 and lines[0].rstrip().endswith((":", "："))
            )
            ok = lead_in or all(_entry(line, False) for line in lines)
        elif kind == "table_open":
            ok = _rows_of_entries(block)
        else:
            ok = kind in ("heading_open", "hr")
        if not ok:
            return False
    return True


def _level(tokens: list, i: int) -> int | None:
    """The level of the top-level heading ``tokens[i]`` opens; :data:`PSEUDO_HEADING` for a paragraph
    whose first line is a title of sources (``**Sources:**``) and each other line an entry; None for
    any other token."""
    tok = tokens[i]
    if tok.level or not tok.map:
        return None
    if tok.type == "heading_open":
        return int(tok.tag[1])
    lines = tokens[i + 1].content.splitlines() if tok.type == "paragraph_open" else []
    if lines and is_sources_title(lines[0]) and all(_entry(line, False) for line in lines[1:]):
        return PSEUDO_HEADING
    return None


def _cut(markdown: str) -> int | None:
    """The line where the last top-level heading that opens a list of sources starts (with a rule
    just before it), or None. Such a heading names one (:func:`is_sources_title`), every heading after
    it is deeper, text stands before it, and under it are only entries (:func:`_only_entries`)."""
    tokens = markdown_tokens(markdown)
    heads = [(i, level) for i in range(len(tokens)) if (level := _level(tokens, i)) is not None]
    shallowest_after = PSEUDO_HEADING + 1
    for i, level in reversed(heads):
        start = tokens[i].map[0]
        titled = level == PSEUDO_HEADING or is_sources_title(tokens[i + 1].content)
        if level < shallowest_after and titled and _only_entries(tokens[i + 3 :]):
            before = [tok for tok in tokens[:i] if tok.level == 0 and tok.nesting >= 0]
            if before and before[-1].type == "hr":
                start = before[-1].map[0]
                before = before[:-1]
            return start if before else None
        if level < PSEUDO_HEADING:
            shallowest_after = min(shallowest_after, level)
    return None


def drop_model_sources(markdown: str) -> str:
    """``markdown`` (a report as the model wrote it) without the lists of sources it ends with, each a
    section under a heading of any level (ATX or setext) naming one (:func:`is_sources_title`) with only
    entries under it (links, URLs, source ids, numbered references: :func:`_only_entries`), and
    without the blank lines they leave at the end; ``markdown`` as written when it ends otherwise."""
    while (start := _cut(markdown)) is not None:
        markdown = "".join(split_lines(markdown)[:start]).rstrip() + "\n"
    return markdown
