"""The part of a shared file a citation names (its page, section, rows or table), in the report's language.

A thread's index keeps each section of a shared file under an English label (:mod:`engine.files.read`:
``page 3``, ``section: Pricing``, ``rows 1-200``, ``table 2``) and each passage titled
``"{name}, {label}"`` (``wp.pdf, page 3``): the stored form, the same in every language, which the
indexes, checkpoints and ``#page=N`` links written before the labels were translated hold too. A
reader sees the label in the report's language (:func:`label_text`: ``Seite 3``, ``Abschnitt: Preise``,
``Zeilen 1–200``), a source's whole title through :func:`source_title`, read back from the stored
title and the source's key (its ``#page=N`` or ``#section=N`` fragment), so a record of an earlier
run shows in every language too. A section's own name (a heading of the file) is kept as written.
"""

from __future__ import annotations

import re

from engine.phrasebook import BASE_LANGUAGE
from engine.phrases import say
from engine.text import parse_url

#: A stored label (:mod:`engine.files.read`), one named group a field of its ``file_*`` phrase.
_LABEL = re.compile(
    r"page (?P<page>\d+)|section: (?P<name>.*)|rows (?P<first>\d+)-(?P<last>\d+)|table (?P<table>\d+)"
    r"|(?P<beginning>beginning)",
    re.DOTALL,
)
#: A stored title of a page (``name, page 3``) and of any other section (``name, section: …``).
_PAGE_TITLE = re.compile(r"(?P<file>.+), (?P<label>page \d+)", re.DOTALL)
_SECTION_TITLE = re.compile(
    r"(?P<file>.+?), (?P<label>section: .*)|(?P<file2>.+), (?P<label2>rows \d+-\d+|table \d+|beginning)",
    re.DOTALL,
)


def label_text(label: str, language: str = BASE_LANGUAGE) -> str:
    """The stored ``label`` of a file's section as a reader of ``language`` reads it: ``page 3`` is
    ``Seite 3`` in German, ``section: Kosten`` ``Abschnitt: Kosten``, ``rows 1-2`` ``Zeilen 1–2``,
    ``table 2`` ``Tabelle 2``, ``beginning`` (before the first heading) ``Anfang``; a label of no such
    form (``""``, a file read whole) is kept."""
    found = _LABEL.fullmatch(label or "")
    if found is None:
        return label
    if found["page"]:
        return say("file_page", language, n=found["page"])  # as text: a page number is never grouped
    if found["first"]:
        return say("file_rows", language, first=found["first"], last=found["last"])
    if found["table"]:
        return say("file_table", language, n=found["table"])
    if found["beginning"]:  # the text before a file's first heading
        return say("file_beginning", language)
    return say("file_section", language, name=found["name"])


def source_title(title: str, url: str | None, language: str = BASE_LANGUAGE) -> str:
    """A source's stored ``title`` as a reader of ``language`` reads it: a shared file's passage
    (``wp.pdf, page 1`` with a key ending ``#page=1``; ``gas.md, section: Kosten`` or
    ``preise.csv, rows 1-2`` with one ending ``#section=N``) as ``wp.pdf, Seite 1``, with its label
    in ``language`` (:func:`label_text`); any other title as it is. With ``url`` None (a title
    quoted from a prompt's list of sources, which names no key) the title's form alone decides."""
    if not title or language == BASE_LANGUAGE:
        return title
    fragment = parse_url(url).fragment if url is not None else None
    page = _PAGE_TITLE.fullmatch(title) if fragment is None or fragment.startswith("page=") else None
    if page is not None and (fragment is None or page["label"] == f"page {fragment[5:]}"):
        name, label = page["file"], page["label"]
    elif (fragment is None or re.fullmatch(r"section=\d+", fragment)) and (
        found := _SECTION_TITLE.fullmatch(title)
    ):
        name, label = found["file"] or found["file2"], found["label"] or found["label2"]
    else:
        return title
    return say("file_part", language, name=name, part=label_text(label, language))
