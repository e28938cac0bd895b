"""A PDF page's lines as prose: what a typesetter's layout adds to a text, undone.

A PDF holds no paragraphs, only lines placed on a page; its text (pypdf's ``extract_text``) has a
line break wherever a line ended. Where the typesetter broke a word ("uncan-" / "cel"), a dotted
name ("asyncio." / "CancelledError") or set a list bullet, those line breaks and marks are debris
that would cut or glue the sentences quoted from it. :func:`prose_lines` undoes them and changes
nothing else. The page numbers and running heads that a typesetter repeats on the pages are no
prose either: :func:`without_furniture` leaves them out, on the evidence of the pages together.
"""

from __future__ import annotations

import re
from collections import Counter

from engine.language_evidence import frequent_in
from engine.segments import ABBREVIATIONS

#: Bullets that open a list item at a line's start (U+2022 •, U+25E6 ◦, U+25AA ▪, U+2023 ‣, U+25CF ●,
#: U+2219 ∙: LaTeX's, the word processors' and the slides' item marks; U+F0B7 and U+F0A7, the Symbol
#: and Wingdings fonts' bullets, as a word processor's PDF maps them to Unicode's private use area) ...
_BULLET = re.compile(r"[ \t]*[•◦▪‣●∙\uf0b7\uf0a7][ \t]*")
#: ... and the EN DASH or HYPHEN-MINUS, one only after a line that closes a sentence or a clause (or
#: none), or inside a list (the line before is a list item's): a line that opens with "– which is
#: quiet" inside a sentence continues it.
_DASH = re.compile(r"[ \t]*[–-][ \t]+(?![\d.,])")  # "– 12 °C" is minus twelve
_CLOSED = (".", "!", "?", "…", ":", ";")
#: Citation marks after a sentence's end ("… opportunity. [1]", "[1, 2]", "[3–5] [7]"): they number
#: the document's own sources, which a quote of the sentence does not cite (:func:`_closing_marks`
#: tells a sentence's end from a number's or an abbreviation's full stop).
_MARKS = re.compile(r"(?:(?<=[.!?…])|(?<=[.!?…][\"”’»)]))(?:[ \t]*\[\d+(?:[ \t]*[,–-][ \t]*\d+)*\])+")
#: The abbreviations before which a bracketed number is what they name ("et al. [4]", "Ref. [4]",
#: "Eq. [3]"), besides :data:`engine.segments.ABBREVIATIONS` ("Fig. [2]", "cf. [4]").
_NAMING = frozenset(
    {
        "al.",
        "ref.",
        "refs.",
        "eq.",
        "eqs.",
        "sec.",
        "ch.",
        "chap.",
        "tab.",
        "thm.",
        "lem.",
        "def.",
        "app.",
        "ex.",
        "nos.",
    }
)
#: What a mark is no sentence's end before: a lower-case word ("[3] proposed …": the mark is the
#: sentence's subject), or a sign that goes on with it ("[3], [4] proposed", "[3] (2020)").
_GOES_ON = ",;:()]}–—-/&"
#: A line that ends in a word broken at a hyphen: HYPHEN-MINUS, or HYPHEN (U+2010); the word's
#: part before it (a compound's parts with their hyphens: "state-of-the") ...
_BROKEN_WORD = re.compile(r"(?:^|(?<=\s))([^\W\d_](?:[\w-]*[^\W\d_])?)[-\u2010]$")
#: ... and a SOFT HYPHEN (U+00AD), which only ever stands where a word was broken.
_SOFT = "\u00ad"
#: A word's parts are words of a language, the word joined is no frequent one (:func:`frequent_in`):
#: the word is a compound written with its hyphen when the largest wordfreq list of each of the
#: (at most this many) languages the parts are likeliest in ...
_LANGUAGES_ASKED = 2
#: ... has the joined word less often than this Zipf frequency (once in ten million words, wordfreq's
#: scale: "wellknown" 1.6, "longterm" 2.75, "followup" 2.87 in English; "wärmepumpe" 2.8 in German:
#: kept as written with the hyphen, which loses no letter).
_USED = 3.0
#: A line that ends in a name and a full stop, which may be a dotted name broken at that dot
#: ("asyncio.", "concurrent.futures.") ...
_NAME_DOT = re.compile(r"(?:^|(?<=[\s(\"“‘]))((?:[^\W\d]\w*\.)+)$")
#: The words after which a hyphen at a line's end is a suspended one ("Wärme- und Kältepumpen",
#: "pre- and post-processing"): it stays, with the space after it.
_CONJUNCTIONS = frozenset(
    {"und", "oder", "bzw", "sowie", "and", "or", "nor", "et", "ou", "y", "o", "e", "of", "to"}
)
#: ... and the word that opens the next line.
_WORD = re.compile(r"[^\W\d]\w*")
#: A name written in CamelCase: capitals inside it ("CancelledError", "TaskGroup"), as a class's is.
_CAMEL = re.compile(r"[A-Z][a-z\d]+[A-Z]\w*")
_NO_WORD = re.match("", "")
#: A line that is only a page's number: "12", "- 12 -", "– 12 –", "12 / 40", "Page 12", "Page 12 of 40",
#: "Seite 12 von 40" (group 1 the word "page", group 2 or 3 the number; "-12" is minus twelve) ...
_PAGE_NUMBER = re.compile(
    r"(?i)(?:(page|seite|p\.|s\.)[ \t]*)?(?:(\d{1,4})|[-–—][ \t]*(\d{1,4})[ \t]*[-–—])"
    r"(?:[ \t]*(?:/|of|von|de|sur)[ \t]*\d{1,4})?"
)
#: ... and how many lines at a page's top and at its bottom (not blank ones) are looked at for its
#: number and its running head or foot; a running head is at most this long ...
_EDGE_LINES = 2
_HEAD_CHARS = 80
#: ... and is the same (its page number aside: "Smith: Examples, p. 3") on at least this share of the pages.
_HEAD_SHARE = 0.5


def prose_lines(text: str) -> str:
    """``text`` (a PDF page's, lines as the page sets them) with its layout undone:

    * a word broken at a hyphen at a line's end, when the next line goes on with a lower-case
      letter, is one word again ("uncan-" / "cel" -> "uncancel"); the hyphen stays, and only the
      line break goes, when the word is a compound: the part before it has a hyphen of its own
      ("state-of-the-" / "art"), the text writes the word with that hyphen elsewhere, or each part
      is a word and the two joined are none (``"well"``, ``"known"``, not ``"wellknown"``, nor ``"longterm"``:
      :func:`_compound`, by wordfreq's lists; a rare compound keeps its hyphen, ``"Wärme-pumpe"``). A soft
      hyphen always goes;
    * a name broken after one of its dots (:func:`_dotted_name`) is one name again;
    * a hyphen at a line's end before "und", "oder", "and", "or" (:data:`_CONJUNCTIONS`) is a suspended
      one and stays with a space ("Wärme- und Kältepumpen");
    * a list bullet (:data:`_BULLET`: •, ◦, ▪, ‣, ●; "–" or "-" after a line that ends a sentence or a
      clause or inside a list of them, not before a number: "– 12 °C" is minus twelve) at a line's start is
      left out, and its item is a paragraph of its own (a blank line before it);
    * citation marks after a sentence's end (:data:`_MARKS`: "… opportunity. [1]") are left out
      (:func:`_closing_marks`); a mark glued to a number ("3.[14]"), after an abbreviation ("et al. [4]")
      or before a lower-case word ("[3] proposed …") stays as written.

    Spaces at a line's end go; any other character, and every other line break, stays as it was.
    """
    text = _MARKS.sub(lambda m: "" if _closing_marks(text, m) else m.group(0), text)
    out: list[str] = []
    in_list = False  # the lines since the last blank one are a dash list's
    for line in text.split("\n"):
        line = line.rstrip(" \t")
        prev = out[-1] if out else ""
        bullet = _BULLET.match(line) or (
            _DASH.match(line + " ") if in_list or not prev.strip() or prev.endswith(_CLOSED) else None
        )
        if not bullet and (not line.strip() or prev.endswith(_CLOSED)):
            in_list = False  # a blank line, or a line after a closed one that opens no item, ends the list
        if bullet:
            in_list = not _BULLET.match(line)
            if prev.strip():
                out.append("")
            if line[bullet.end() :].strip():  # else the item follows on the next line
                out.append(line[bullet.end() :])
        elif prev and line[:1].islower() and prev.endswith(_SOFT):
            out[-1] = prev[:-1] + line
        elif prev and line[:1].islower() and (broken := _BROKEN_WORD.search(prev)):
            suspended = (_WORD.match(line) or _NO_WORD).group(0).casefold() in _CONJUNCTIONS
            joint = "- " if suspended else "-" if _compound(broken.group(1), line, text) else ""
            out[-1] = prev[:-1] + joint + line
        elif prev and (name := _NAME_DOT.search(prev)) and _dotted_name(name.group(1), line, text):
            out[-1] = prev + line
        else:
            out.append(line)
    return "\n".join(out)


def _closing_marks(text: str, marks: re.Match[str]) -> bool:
    """True when ``marks`` (a match of :data:`_MARKS` in ``text``) close a sentence, and may go: the
    full stop before them ends a sentence, not a number glued to them ("3.[14]", "in 2023.[4]": the
    mark may be the number's), a number opening its line ("3. [14] Smith": a list's), an abbreviation
    (:data:`engine.segments.ABBREVIATIONS`, :data:`_NAMING`: "et al. [4]") or an initial ("Smith J. [4]");
    and a space, then the line's end or a sentence's start, follows them (not a lower-case word or a
    sign of :data:`_GOES_ON`: "[3] proposed", "[3], [4]", "[3]'s")."""
    line = text[: marks.start()].rsplit("\n", 1)[-1]
    words = line.split()
    stop = words[-1].rstrip('"”’»)').lstrip('(["“„«‘') if words else ""
    glued = not marks.group(0)[:1].isspace()
    if stop[-2:-1].isdigit() and stop.endswith(".") and (glued or len(words) == 1 and stop[:-1].isdigit()):
        return False  # "3.[14]", "in 2023.[4]"; "3. [14] Smith" numbers a list
    if stop.endswith(".") and (stop.lower() in ABBREVIATIONS | _NAMING or re.fullmatch(r"[^\W\d_]\.", stop)):
        return False  # "et al. [4]", "Ref. [4]", "Smith J. [4]"
    after = text[marks.end() :]
    if after[:1] and not after[:1].isspace():
        return False
    rest = after.lstrip(" \t")
    if not rest[:1].strip():  # the line's end: a lower-case word opening the next line goes on with it
        return not rest.lstrip()[:1].islower()
    return not rest[:1].islower() and rest[:1] not in _GOES_ON


def _compound(head: str, line: str, text: str) -> bool:
    """True when the word broken at a line's end after ``head`` (its part before the hyphen), going
    on at ``line``'s start, is written with its hyphen (a compound), False when it is one word, as
    :func:`prose_lines` tells them apart in ``text`` (the page's)."""
    after = _WORD.match(line)
    if "-" in head or "\u2010" in head or not after:
        return True
    joined, hyphenated = head + after.group(0), f"{head}-{after.group(0)}"
    if hyphenated in text:
        return True
    if re.search(rf"\b{re.escape(joined)}\b", text):
        return False
    first, second, whole = head.lower(), after.group(0).lower(), joined.lower()
    both = frequent_in(first) & frequent_in(second)
    if not both or frequent_in(whole):
        return False
    from wordfreq import zipf_frequency

    likely = sorted(
        both,
        key=lambda code: (
            -zipf_frequency(first, code, wordlist="small") - zipf_frequency(second, code, wordlist="small"),
            code,
        ),
    )
    asked = {
        *likely[:_LANGUAGES_ASKED],
        *({"en"} & both),
    }  # English's list, the largest, whenever it knows both
    return all(zipf_frequency(whole, code) < _USED for code in asked)


def _dotted_name(name: str, line: str, text: str) -> bool:
    """True when ``name`` (a line's last word with its dots, "asyncio.") and the word opening the next
    ``line`` are one name broken after a dot, as a typesetter breaks inline code: the text writes
    them joined elsewhere ("signal." / "SIGINT" where "signal.SIGINT" stands too); or the next word
    is CamelCase after a name with dots or underscores of its own ("concurrent.futures." /
    "ThreadPoolExecutor"); or the next line opens with code (a lower-case word with a bracket, an
    underscore or a dot in it: "run()") after a name that is no word of a language (``asyncio``, not
    ``task``: :func:`engine.language_evidence.frequent_in`). Anything else may be two sentences
    ("numpy." / "PyTorch was slower.", "a task." / "asyncio.run() starts it"): the line break stays,
    which loses no letter. A full stop of an abbreviation (``e.g.``) ends no name."""
    word = _WORD.match(line)
    if not word or name.lower() in ABBREVIATIONS:
        return False
    first, token = word.group(0), line.split(None, 1)[0]
    if name + first in text:
        return True
    stem = name[:-1]
    # a name of its own dots or underscores before a CamelCase one ("concurrent.futures." / "ThreadPoolExecutor");
    # "numpy." / "PyTorch was slower" or "task." / "asyncio.run()" may as well be two sentences: they stay
    if _CAMEL.match(first):
        return stem[:1].islower() and ("." in stem or "_" in stem)
    # code after a name that is no word of a language ("asyncio." / "run() again"; not "task." / "asyncio.run()")
    return (
        first[:1].islower()
        and bool(re.search(r"[(_]|\.\w", token))
        and ("." in stem or "_" in stem or not frequent_in(stem.lower()))
    )


def without_furniture(pages: list[str], first: int = 1) -> list[str]:
    """``pages`` (the texts of a document's pages in order, lines as each page sets them; ``pages[0]``
    the ``first`` page of the file) without their page numbers and running heads and feet, the lines a
    typesetter repeats at a page's top or bottom, which are no part of its prose. Of the first and the
    last :data:`_EDGE_LINES` lines of a page (blank lines aside), from the page's edge inwards until a
    line that is text:

    * a line that is only a number (:data:`_PAGE_NUMBER`: "12", "- 12 -", "12 / 40") goes when it is the
      page's number: the page's position in the file, or a number that many pages' numbers agree with
      (two pages at least, each ``position + offset`` with the same offset: an excerpt's "41", "42");
      "Page 12" goes on any page;
    * a running head or foot goes: a line of at most :data:`_HEAD_CHARS` characters, with a letter,
      that stands at the same edge of at least two pages and at least :data:`_HEAD_SHARE` of them,
      as it is or with the page's number in it (:func:`_head_keys`: "Smith: Examples, p. 41"); a
      page's only line is its text, not a head, and the file's first page keeps its top lines: its
      title is often the line the other pages repeat at theirs.

    Any other line stays as it is; so does every line of a document whose pages show no such evidence.
    """
    lines = [page.split("\n") for page in pages]
    edges = [(_edge(page, top=True), _edge(page, top=False)) for page in lines]
    offsets: dict[int, set[int]] = {}
    for n, ends in enumerate(edges):
        for index in {*ends[0], *ends[1]}:
            if number := _PAGE_NUMBER.fullmatch(lines[n][index].strip()):
                offsets.setdefault(int(number.group(2) or number.group(3)) - n - first, set()).add(n)
    alone = [len(_edge(page, top=True, count=2)) < 2 for page in lines]  # a page's only line is its text
    heads = [
        Counter(
            key
            for n, ends in enumerate(edges)
            if not alone[n]
            for key in {k for i in ends[side] for k in _head_keys(lines[n][i], n + first)}
        )
        for side in (0, 1)
    ]
    needed = max(2, len(pages) * _HEAD_SHARE)

    def furniture(n: int, side: int, index: int) -> bool:
        line = lines[n][index].strip()
        if number := _PAGE_NUMBER.fullmatch(line):
            offset = int(number.group(2) or number.group(3)) - n - first
            return bool(number.group(1)) or offset == 0 or len(offsets[offset]) >= 2
        return (
            not alone[n]
            and (n + first > 1 or side == 1)
            and len(line) <= _HEAD_CHARS
            and bool(re.search(r"[^\W\d_]", line))
            and any(heads[side][key] >= needed for key in _head_keys(line, n + first))
        )

    out = []
    for n, page in enumerate(lines):
        gone: set[int] = set()
        for side, ends in enumerate(edges[n]):
            for index in ends:
                if index in gone or not furniture(n, side, index):
                    break
                gone.add(index)
        kept = [line for index, line in enumerate(page) if index not in gone]
        if gone:  # the blank lines a heading's type set beside a line that went
            while kept and not kept[0].strip():
                kept.pop(0)
            while kept and not kept[-1].strip():
                kept.pop()
        out.append("\n".join(kept))
    return out


def _edge(lines: list[str], top: bool, count: int = _EDGE_LINES) -> list[int]:
    """The indexes of the ``count`` lines of ``lines`` that are not blank nearest its top (or bottom),
    the edge's first."""
    order = range(len(lines)) if top else range(len(lines) - 1, -1, -1)
    return [index for index in order if lines[index].strip()][:count]


def _head_keys(line: str, position: int) -> set[tuple[str, int | None]]:
    """How ``line``, on the page at ``position`` in its file, reads as a running head that is the same
    on every page: as it stands (``(line, None)``), and with each of its numbers as "#" and the
    number's offset from the position ("Smith: Examples, p. 41" on the first page: ``("Smith: Examples,
    p. #", 40)``), for a running head that numbers its pages. Spaces are collapsed."""
    line = " ".join(line.split())
    return {(line, None)} | {
        (line[: m.start()] + "#" + line[m.end() :], int(m.group(0)) - position)
        for m in re.finditer(r"(?<!\d)\d{1,4}(?!\d)", line)
    }
