"""Why a shared file is skipped, and the files line of a status, in the language of the thread.

A skip reason is a ``skip_*`` entry of :data:`engine.phrases.WORDS` (its stable code) with its
fields (a file's ending, a size, an error's name). What a thread's list of files keeps
(``FileEntry.reason``, :mod:`engine.files`) is the English text, as logs, the terminal and the
lists written before the codes existed have it; :func:`reason_parts` reads the code and fields
back from that text, so an old list shows in every language too. A reason no code matches (a
system error's own words) is shown as it is.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable
from typing import Protocol

from engine.phrasebook import BASE_LANGUAGE
from engine.phrases import WORDS, plural, say

#: Skip reasons a status line names (one short line); the others are counted as ``+N more``.
STATUS_REASONS = 3
#: The catalogue keys of skip reasons start so.
PREFIX = "skip_"
#: Endings of the catalogue keys of a reason with a count, one key per plural form (:func:`engine.phrases.plural`).
PLURAL_FORMS = ("_one", "_other")


class Listed(Protocol):
    """What the files line reads of a thread's file (:class:`engine.files.FileEntry`)."""

    status: str
    reason: str


def skip_reason(code: str, /, **fields: object) -> str:
    """The English reason ``code`` (a ``skip_*`` key of :data:`engine.phrases.WORDS`) with its
    ``fields``: the text a thread's list keeps and logs show, e.g.
    ``skip_reason("skip_corrupt_pdf", error="PdfReadError")`` is ``"corrupt PDF (PdfReadError)"``.

    Raises:
        KeyError: an unknown ``code``, or a field its template names that is not given.
    """
    return say(code, BASE_LANGUAGE, **fields)


def _pattern(template: str) -> re.Pattern:
    """A regular expression matching ``template`` filled in, one named group a field."""
    parts = []
    for literal, name, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if name is not None:
            parts.append(f"(?P<{name}>.+?)")
    return re.compile("".join(parts), re.DOTALL)


#: English reasons without fields, by text; then the others' patterns, the longest literal text first
#: (so "unsupported type (no extension)" is its own code, not ``skip_unsupported_type``).
_FIXED = {entry[BASE_LANGUAGE]: key for key, entry in WORDS.catalogue.items()
          if key.startswith(PREFIX) and "{" not in entry[BASE_LANGUAGE]}
_PATTERNS = sorted(((key, _pattern(entry[BASE_LANGUAGE])) for key, entry in WORDS.catalogue.items()
                    if key.startswith(PREFIX) and "{" in entry[BASE_LANGUAGE]),
                   key=lambda item: -len(re.sub(r"\(\?P<\w+>\.\+\?\)", "", item[1].pattern)))


def reason_parts(reason: str) -> tuple[str, dict[str, str]] | None:
    """``(code, fields)`` of an English skip ``reason`` as :func:`skip_reason` writes it (and as the
    lists of earlier versions and the chat surfaces' refusals hold it), or None when no code matches."""
    if reason in _FIXED:
        return _FIXED[reason], {}
    for code, pattern in _PATTERNS:
        if found := pattern.fullmatch(reason):
            return code, found.groupdict()
    return None


_INTEGER = re.compile(r"\d{1,3}(?:,\d{3})+|\d+")
_DECIMAL = re.compile(r"\d+\.\d+")
_SIZE = re.compile(r"(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?) (MB|KB)")


def _value(text: str, language: str) -> object:
    """A field read back from an English reason, ready for ``language``: a number as a number (so
    it is grouped and marked as the language writes it), a size (``"25 MB"``) with the language's
    unit (``"25 Mo"``), anything else (a name, an ending) as it is."""
    if _INTEGER.fullmatch(text):
        return int(text.replace(",", ""))
    if _DECIMAL.fullmatch(text):
        return float(text)
    if size := _SIZE.fullmatch(text):
        return say(f"size_{size[2].lower()}", language, n=_value(size[1], language))
    return text


def reason_text(reason: str, language: str = BASE_LANGUAGE) -> str:
    """The English skip ``reason`` (``FileEntry.reason``) in ``language``: English as it is; else
    its code's template filled with its fields (:func:`reason_parts`), or ``reason`` itself when no
    code matches."""
    parts = reason_parts(reason) if language != BASE_LANGUAGE else None
    if parts is None:
        return reason
    code, fields = parts
    values = {name: _value(value, language) for name, value in fields.items()}
    if code.endswith(PLURAL_FORMS):  # the count's form in ``language``, not the one English took
        count = next(value for value in values.values() if isinstance(value, int | float))
        code = plural(code.rsplit("_", 1)[0], count, language)
    return say(code, language, **values)


def files_status(entries: Iterable[Listed], language: str = BASE_LANGUAGE) -> str:
    """The files line of a status in ``language`` ("" when there are no ``entries``): the files
    read and skipped, and the :data:`STATUS_REASONS` most common skip reasons (:func:`reason_text`),
    then ``+N more`` for the other reasons; e.g. ``"3 files read, 1 skipped: scanned PDF without a
    text layer"``, ``"1 Datei gelesen, 2 übersprungen: nicht unterstützter Dateityp (.exe)"``.
    Counts take the language's plural forms (:func:`engine.phrases.plural`)."""
    entries = list(entries)
    if not entries:
        return ""
    read = sum(e.status == "read" for e in entries)
    text = say(plural("files_read", read, language), language, n=read)
    skipped = [e.reason for e in entries if e.status != "read"]
    if not skipped:
        return text
    counted = Counter(skipped)
    shown = [reason_text(r, language) for r, _ in counted.most_common(STATUS_REASONS)]
    if (more := len(counted) - STATUS_REASONS) > 0:
        shown.append(say(plural("files_more", more, language), language, n=more))
    reasons = WORDS("list_separator", language).join(shown)
    return WORDS("files_read_and_skipped", language, read=text,
                 skipped=say(plural("files_skipped", len(skipped), language), language, n=len(skipped),
                             reasons=reasons))
