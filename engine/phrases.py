"""The engine's words for people, outside the progress line: a turn's refusals, the files line and
why a shared file is skipped, and numbers as each language writes them.

The catalogue (``phrases.json``: ``{key: {language: template}}``, :class:`engine.phrasebook.Phrasebook`)
holds English, German, French, Spanish, Italian, Dutch, Portuguese (Brazilian, as CLDR's ``pt``),
Swedish, Chinese and Japanese: ``rejected_*`` are the texts of
:class:`engine.runner.TurnRejected`, ``files_*`` the files line of a status and ``skip_*`` the skip
reasons (:mod:`engine.file_summary`). The progress line's own words are ``progress_phrases.json``
(:data:`engine.progress.WORDS`).
"""

from __future__ import annotations

from pathlib import Path

from engine.chinese import TRADITIONAL
from engine.phrasebook import BASE_LANGUAGE, Phrasebook

#: The engine's texts for people, by key and language.
WORDS = Phrasebook(Path(__file__).with_name("phrases.json"))

#: Languages with one form for every count (CLDR plural category ``other`` only).
NO_PLURAL = frozenset({"zh", TRADITIONAL, "ja"})
#: Languages whose singular covers 0 as well as 1 (CLDR: French and Portuguese ``one`` is i = 0, 1).
SINGULAR_ZERO = frozenset({"fr", "pt"})


def number(value: int, language: str) -> str:
    """``value`` with its digits grouped by thousands as ``language`` writes them (CLDR's grouping
    separator: "8,000" in English, "8.000" in German, Spanish, Italian, Dutch and Portuguese, "8 000"
    with a narrow no-break space in French and with a no-break space in Swedish; the
    ``thousands_separator`` entry of :data:`WORDS`)."""
    return f"{value:,}".replace(",", WORDS("thousands_separator", language))


def plural(key: str, count: float, language: str) -> str:
    """``key_one`` or ``key_other``: the catalogue key of ``count`` things in ``language`` (CLDR's
    cardinal categories of the catalogue's languages: ``one`` for exactly 1; in French and Portuguese
    for every count whose whole part is 0 or 1, so 0, 0.5 and 1.5 too; Chinese and Japanese have only
    ``other``)."""
    if language in NO_PLURAL:
        return f"{key}_other"
    singular = 0 <= count < 2 if language in SINGULAR_ZERO else count == 1
    return f"{key}_{'one' if singular else 'other'}"


def local_value(value: object, language: str) -> str:
    """A field of a template as ``language`` writes it: an ``int`` grouped by :func:`number`, a
    ``float`` (``1.5``, as ``:g`` writes it) with the language's decimal mark (``decimal_separator``),
    anything else as its text (a name, an id)."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return number(value, language)
    if isinstance(value, float):
        return f"{value:g}".replace(".", WORDS("decimal_separator", language))
    return str(value)


def say(key: str, language: str = BASE_LANGUAGE, /, **fields: object) -> str:
    """The template ``key`` of :data:`WORDS` in ``language``, its fields written as the language
    writes them (:func:`local_value`).

    Raises:
        KeyError: an unknown ``key``, or a field the template names that is not given.
    """
    return WORDS(key, language, **{name: local_value(value, language) for name, value in fields.items()})
