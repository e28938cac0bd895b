"""Simplified and Traditional Chinese: telling a question's script, and writing the Traditional text
of the catalogues' Simplified ("zh") entries with OpenCC, so no catalogue keeps a second copy."""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Mapping, MutableMapping
from typing import TypeVar

#: The language code of Chinese written in Traditional characters (BCP 47 script subtag ``Hant``, as
#: CLDR names the locale ``zh_Hant``); plain ``zh`` is Chinese in Simplified characters.
TRADITIONAL = "zh-Hant"
#: The script subtags and regions whose Chinese is written in Traditional characters (CLDR's
#: likely subtags: zh-TW, zh-HK and zh-MO are zh-Hant-*; zh-CN, zh-SG and zh-MY are zh-Hans-*).
_TRADITIONAL_TAGS = frozenset({"hant", "tw", "hk", "mo"})
#: The OpenCC configuration that writes Traditional text from Simplified: ``s2tw``, characters only,
#: in the forms Taiwan prints (為, 裡, 線). Not ``s2t``: its forms are OpenCC's own standard (爲, 裏)
#: that neither Taiwan nor Hong Kong prints; and not ``s2twp``: it also swaps words for Taiwan's
#: (软件 → 軟體, 信息 → 資訊, 网络 → 網路), which read as foreign in Hong Kong and could change a term
#: the catalogue chose. Hong Kong readers read Taiwan's character forms without effort.
TO_TRADITIONAL = "s2tw"
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_LOCK = threading.Lock()
_Value = TypeVar("_Value", str, tuple)


@functools.cache
def _converter(config: str):
    """One OpenCC converter per configuration (``s2tw``, ``t2s``...), loaded once (about 50 ms)."""
    import opencc

    return opencc.OpenCC(config)


def _convert(config: str, text: str) -> str:
    """``text`` through the OpenCC configuration ``config`` (a converter is not shared by two threads at once)."""
    converter = _converter(config)
    with _LOCK:
        return converter.convert(text)


def is_chinese(language: str) -> bool:
    """True for a Chinese language code in either script: ``zh``, ``zh-Hant`` (or any ``zh-*`` tag)."""
    return language == "zh" or language.lower().startswith(("zh-", "zh_"))


def chinese_variant(tag: str) -> str:
    """The catalogue language of a Chinese BCP 47 tag: :data:`TRADITIONAL` for a Traditional script or
    region (``zh-Hant``, ``zh-TW``, ``zh-Hant-HK``, ``zh_HK``), ``zh`` for any other (``zh``,
    ``zh-CN``, ``zh-Hans-SG``); ``tag`` itself when it is not Chinese."""
    if not is_chinese(tag):
        return tag
    parts = tag.lower().replace("_", "-").split("-")[1:]
    return TRADITIONAL if any(p in _TRADITIONAL_TAGS for p in parts) else "zh"


def base_language(language: str) -> str:
    """The language whose catalogue text ``language`` is written from: ``zh`` for :data:`TRADITIONAL`
    (its text is :func:`traditional` of the ``zh`` text), ``language`` itself otherwise."""
    return "zh" if language == TRADITIONAL else language


def has_han(text: str) -> bool:
    """Whether ``text`` has a Han character (CJK Unified Ideographs, Extension A, Compatibility
    Ideographs): the characters :func:`traditional` may write otherwise."""
    return _HAN.search(text) is not None


@functools.lru_cache(maxsize=4096)
def traditional(text: str) -> str:
    """``text`` with its Simplified characters written in Traditional ones (OpenCC
    :data:`TO_TRADITIONAL`), cached; :meth:`str.format` fields (``{n}``) and non-Han text stay as
    they are."""
    return _convert(TO_TRADITIONAL, text) if _HAN.search(text) else text


def localized(value: _Value, language: str) -> _Value:
    """A catalogue's text (a template, or a tuple of them: singular and plural) in ``language``: the
    text itself, or :func:`traditional` of it for :data:`TRADITIONAL` (``value`` then is the ``zh``
    text)."""
    if language != TRADITIONAL:
        return value
    if isinstance(value, tuple):
        return tuple(traditional(v) for v in value)
    return traditional(value)


class _Pending:
    """A :data:`TRADITIONAL` entry of a :class:`TraditionalTable` not written yet: the ``zh`` text it is written from."""

    __slots__ = ("zh",)

    def __init__(self, zh) -> None:
        self.zh = zh


class TraditionalTable(MutableMapping):
    """A catalogue table (``{language: text}``, a text being a template or a tuple of them) whose
    :data:`TRADITIONAL` entry is :func:`localized` from its ``zh`` one when first read, not when the
    table is made: loading OpenCC's converter (:func:`_converter`, tens of milliseconds) is left to
    a process that reads a Traditional Chinese text.

    It reads as the ``dict`` :func:`with_traditional` would otherwise make: the same keys in the
    same order (:data:`TRADITIONAL` among them from the start), ``len``, ``in``, ``get``,
    ``values``, ``items``, ``==``, and ``dict(table)`` or ``{**table}`` for a copy; setting or
    deleting an entry (the :data:`TRADITIONAL` one too) is as on a ``dict``. The ``zh`` text is the
    one the table was made with: changing ``zh`` later does not change :data:`TRADITIONAL`.
    """

    def __init__(self, table: Mapping[str, _Value]) -> None:
        self._data: dict = dict(table)
        if "zh" in self._data and TRADITIONAL not in self._data:
            self._data[TRADITIONAL] = _Pending(self._data["zh"])

    def __getitem__(self, language: str) -> _Value:
        value = self._data[language]
        if isinstance(value, _Pending):
            # two threads may both write it: the same text (localized is cached and pure)
            value = self._data[language] = localized(value.zh, TRADITIONAL)
        return value

    def __setitem__(self, language: str, value: _Value) -> None:
        self._data[language] = value

    def __delitem__(self, language: str) -> None:
        del self._data[language]

    def __contains__(self, language: object) -> bool:
        return language in self._data  # not by reading the entry, as Mapping's would

    def __iter__(self):
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict(self)!r})"


class TraditionalTexts(Mapping):
    """The :data:`TRADITIONAL` counterpart of a ``{key: text}`` catalogue written in Simplified
    Chinese (``zh``): each value is :func:`traditional` of the ``zh`` text, written when first read,
    so that a process that reads no Traditional Chinese text never loads OpenCC. Same keys, in the
    same order, as ``zh``; read-only (``dict(texts)`` for a copy).

    Raises:
        KeyError: reading a key ``zh`` lacks.
    """

    def __init__(self, zh: Mapping[str, str]) -> None:
        self._zh = zh

    def __getitem__(self, key: str) -> str:
        return traditional(self._zh[key])

    def __contains__(self, key: object) -> bool:
        return key in self._zh  # not by converting the text, as Mapping's would

    def __iter__(self):
        return iter(self._zh)

    def __len__(self) -> int:
        return len(self._zh)


def with_traditional(table: Mapping[str, _Value]) -> TraditionalTable:
    """``table`` (``{language: text}``) with a :data:`TRADITIONAL` entry written from its ``zh`` one
    (:func:`localized`) when it has one and lacks that; for tables other modules read as a whole.
    The entry is written when first read (:class:`TraditionalTable`), so that a process that reads
    no Traditional Chinese text never loads OpenCC."""
    return TraditionalTable(table)


def _changed(text: str, config: str) -> int:
    """How many characters OpenCC's ``config`` writes otherwise in ``text`` (its conversions keep the length)."""
    converted = _convert(config, text)
    return sum(a != b for a, b in zip(text, converted, strict=False)) + abs(len(text) - len(converted))


def is_traditional(text: str) -> bool:
    """True when the Han characters of ``text`` are written in Traditional Chinese: OpenCC's ``t2s``
    (Traditional to Simplified) changes at least one of them, and at least twice as many as the
    Simplified-to-Traditional conversions (``s2t``, ``s2tw``, ``s2hk``: the least of the three, so
    that Taiwan's 台 and 裡 and Hong Kong's 裏 count as Traditional) do. Text that both change
    alike (mixed scripts, "電动车"), or neither (characters the two scripts share: "山水"), is not."""
    han = "".join(_HAN.findall(text))
    if not han:
        return False
    to_simplified = _changed(han, "t2s")
    if not to_simplified:
        return False
    return to_simplified >= 2 * min(_changed(han, config) for config in ("s2t", "s2tw", "s2hk"))
