"""Symbols written apart in a brief (emoji "🐍", signs "⚠️"), taken out while it is split into listed
sub-questions (:func:`engine.offline_lists.listed_topics`) and put back with their item's words: they
are no words, and change neither where a list's items start nor its frame."""

from __future__ import annotations

import re
import unicodedata

from engine.offline_list_words import JOINS, OWN_JOINS, function_word
from engine.offline_text import _ENDS

#: The Unicode categories of a symbol that is no word (emoji "🐍", "⚠️", "^"): other and modifier
#: symbols, with the joiners, variation selectors and keycap marks an emoji is written with.
_SYMBOL_CATEGORIES = frozenset({"So", "Sk", "Cf", "Mn", "Me"})


def is_symbol(token: str) -> bool:
    """True when ``token`` (no space) is symbols alone (:data:`_SYMBOL_CATEGORIES`), an emoji's or a sign's."""
    return any(unicodedata.category(ch) in ("So", "Sk") for ch in token) and all(
        unicodedata.category(ch) in _SYMBOL_CATEGORIES for ch in token
    )


def without_symbols(text: str, language: str) -> tuple[str, list[tuple[str, list[tuple[str, bool]]]]]:
    """``text`` without the symbols written apart (:func:`is_symbol`: "🐍 asyncio tasks", "risks ⚠️
    and"), which are no words: they change neither where a list's items start nor its frame. Each
    comes with the words it may go with, to be put back (:func:`with_symbols`): up to two words after
    it ("🐍 asyncio tasks"), and up to two before it after a word that names something or at the end
    ("risks ⚠️"), never across punctuation (but at the end) or a word that joins a list; each with
    True when the symbol goes before them."""
    joins = {j.strip() for j in (*JOINS, *OWN_JOINS.get(language, ())) if j.strip()}
    tokens = text.split()
    kept: list[str] = []
    symbols: list[tuple[str, list[tuple[str, bool]]]] = []
    for k, token in enumerate(tokens):
        if not is_symbol(token):
            kept.append(token)
            continue
        before = []
        for word in reversed(kept[-2:]):
            bare = word.strip(_ENDS + ",;:")
            if bare != word.lstrip(_ENDS) and not (k == len(tokens) - 1 and not before) or not bare:
                break  # no symbol goes back across punctuation, but the one that ends the brief
            if bare.lower() in joins:
                break
            before.insert(0, bare)
            if bare != word:
                break
        after = []
        for word in tokens[k + 1 : k + 3]:
            bare = word.strip(_ENDS + ",;:")
            if is_symbol(word) or not bare or bare.lower() in joins:
                break
            after.append(bare)
            if bare != word.lstrip(_ENDS):
                break
        named = bool(before) and not function_word(before[-1].lower(), language)
        sides = []
        if after:
            sides.append((" ".join(after), True))
        if before and (named or not after):
            sides.append((" ".join(before), False))
        if sides:
            symbols.append((token, sides))
    return " ".join(kept), symbols


def with_symbols(topics: list[str], symbols: list[tuple[str, list[tuple[str, bool]]]]) -> list[str]:
    """``topics`` with each symbol :func:`without_symbols` took out put back next to its words, on
    the side whose words fewer topics have (an item's emoji goes with that item's sub-question only:
    "timeouts 🚀 work" with "timeouts"), the words after it when both are as many."""
    topics = list(topics)

    def where(near: str) -> list[int]:
        return [i for i, t in enumerate(topics) if re.search(rf"(?<!\w){re.escape(near)}(?!\w)", t)]

    for symbol, sides in symbols:
        found = [(len(where(near)), k, near, ahead) for k, (near, ahead) in enumerate(sides) if where(near)]
        if not found:
            continue
        _, _, near, ahead = min(found)
        for i in where(near):
            m = re.search(rf"(?<!\w){re.escape(near)}(?!\w)", topics[i])
            at = m.start() if ahead else m.end()
            t = topics[i]
            topics[i] = f"{t[:at]}{symbol} {t[at:]}" if ahead else f"{t[:at]} {symbol}{t[at:]}"
    return topics
