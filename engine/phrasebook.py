"""Words shown to people, by key and language, from a JSON catalogue."""

from __future__ import annotations

import json
import string
from pathlib import Path

from engine.chinese import TRADITIONAL, base_language, localized
from engine.language import detect_language

#: The language every catalogue holds in full; a language a catalogue lacks reads this one.
BASE_LANGUAGE = "en"


class Phrasebook:
    """Templates by key and language: a JSON object ``{key: {language: template}}`` (ISO 639-1
    codes), read once. A template is a :meth:`str.format` string; its fields are the same in
    every language (a test checks each catalogue). A catalogue with Chinese (``zh``, Simplified)
    speaks Traditional Chinese (``zh-Hant``) too: its ``zh`` templates written in Traditional
    characters by OpenCC (:func:`engine.chinese.traditional`, cached), never a second copy.

    Raises:
        OSError / ValueError: the file is missing or not such an object (at construction).
    """

    def __init__(self, path: Path) -> None:
        catalogue = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(catalogue, dict) or not all(
                isinstance(v, dict) and BASE_LANGUAGE in v for v in catalogue.values()):
            raise ValueError(f"{path.name}: every key needs a {BASE_LANGUAGE!r} template")
        self.path = path
        self.catalogue: dict[str, dict[str, str]] = catalogue

    @property
    def languages(self) -> tuple[str, ...]:
        """The catalogue's languages: those of its first entry, in file order (a test checks that every
        entry has the same), and ``zh-Hant`` after ``zh`` (:mod:`engine.chinese`)."""
        first = tuple(next(iter(self.catalogue.values()), {}))
        return first + (TRADITIONAL,) if "zh" in first and TRADITIONAL not in first else first

    def template(self, key: str, language: str = BASE_LANGUAGE) -> str:
        """The unfilled template ``key`` in ``language`` (the base language when the catalogue lacks
        it; for ``zh-Hant`` the ``zh`` one in Traditional characters).

        Raises:
            KeyError: an unknown ``key``.
        """
        entry = self.catalogue[key]
        return localized(entry.get(base_language(language)) or entry[BASE_LANGUAGE], language)

    def texts(self, key: str) -> dict[str, str]:
        """The unfilled template ``key`` in each of :attr:`languages`: ``{language: template}``."""
        return {language: self.template(key, language) for language in self.languages}

    def language_of(self, text: str | None, default: str = BASE_LANGUAGE) -> str:
        """The catalogue language to answer ``text`` in: its language as the report's is chosen
        (:func:`engine.language.detect_language`), ``default`` when unsure or when the catalogue
        does not hold that language."""
        if not text or not text.strip():
            return default if default in self.languages else BASE_LANGUAGE
        lang = detect_language(text, default=default)
        return lang if lang in self.languages else BASE_LANGUAGE

    def __call__(self, key: str, language: str = BASE_LANGUAGE, /, **fields: object) -> str:
        """The template ``key`` in ``language`` (:meth:`template`), filled with ``fields``: the
        fields as given, so a quoted question or file name keeps its own characters.

        Raises:
            KeyError: an unknown ``key``, or a field the template names that is not given.
        """
        return self.template(key, language).format(**fields)


def template_fields(template: str) -> set[str]:
    """The field names of a :meth:`str.format` template, e.g. ``{"mention", "hours"}``."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
