"""Two items before a verb they share outside English, for
:func:`engine.offline_subject_items.shared_around`.

A French, Italian, Spanish or Portuguese question may open with two subjects of one modal verb
("La ville ou l'État doit payer ?", "Il comune o lo Stato deve pagare?"), or French "est-ce que"
before two subjects of one verb ("Est-ce que 5 % ou 10 % suffit ?"): the verb and the words after it
are every item's (:func:`subjects_before_verb`). A German question that opens with a modal verb ends
with its infinitive, after the items ("Kann der Kernel Threads oder Prozesse planen?"), which is
every item's too (:func:`german_verb_final`).
"""

from __future__ import annotations

import re

from engine.offline_list_words import ARTICLES, GENITIVES, JOINS, OWN_JOINS
from engine.offline_numerals import numeral

#: A word that holds an elided article or preposition before its noun ("l'État", "l'aereo", "dell'acqua"):
#: two words of an item in one.
_ELIDED = re.compile(r"\w+['’]\w+")
#: Languages whose questions may open with the subjects before their verb.
_SUBJECT_FIRST = frozenset({"fr", "it", "es", "pt"})
#: The forms of "be" after two subjects, which a predicate follows ("La ville ou l'État | est responsable").
_COPULAS = {
    "fr": frozenset("est sont était étaient".split()),
    "it": frozenset("è sono era erano".split()),
    "es": frozenset("es son era eran está están".split()),
    "pt": frozenset("é são era eram está estão".split()),
}
#: How many words a subject listed before its verb may hold.
_MAX_SUBJECT = 4


def _units(words: list[str]) -> int:
    """How many words ``words`` are, a word with an elided article ("l'État") counted as two."""
    return sum(2 if _ELIDED.fullmatch(w) else 1 for w in words)


def _opens_like(first: list[str], second: list[str], language: str) -> bool:
    """True when two items open alike: each with an article (an elided one too), or each with a
    number (:func:`engine.offline_numerals.numeral`), or each with a capitalised name."""
    articles = ARTICLES.get(language, frozenset())

    def kind(item: list[str]) -> str:
        word = item[0]
        if word.lower() in articles or _ELIDED.fullmatch(word):
            return "article"
        if numeral(word, language):
            return "number"
        return "name" if word[:1].isupper() else "other"

    return kind(first) == kind(second) != "other"


def subjects_before_verb(
    first: list[str], second: list[str], language: str
) -> tuple[list[str], list[list[str]], list[str]] | None:
    """``(prefix, items, tail)`` of a French, Italian, Spanish or Portuguese question whose two items
    (``first``: the words up to "or", ``second``: those after it) are subjects before one verb, that
    verb and its words every item's: after French "est-ce que", any verb ("Est-ce que | le chat ou le
    chien | dort ?"); at the question's start, a modal verb and its infinitive (:data:`MODALS_IN`: "La
    ville ou l'État | doit payer ?") or a form of "be" and no comparative (:data:`_COPULAS`: "… | est
    responsable ?"; "Il treno o l'aereo è più veloce?" is asked as a comparison), the second item then opening with a capital letter ("L'État
    doit payer"). The second item goes up to a modal verb or a form of "be" ("Est-ce que les pompes à
    chaleur ou | les chaudières | sont plus efficaces ?"), or else is as long as the first (a word with
    an elided article counts as two: "la ville", "l'État"), and both open alike (:func:`_opens_like`). None for any other list."""
    from engine.offline_choices import comparative_in
    from engine.offline_verb_choices import _INFINITIVE, MODALS_IN

    if language not in _SUBJECT_FIRST or len(second) < 2:
        return None
    asks = language == "fr" and len(first) > 2 and [w.lower() for w in first[:2]] == ["est-ce", "que"]
    prefix, item = (first[:2], first[2:]) if asks else ([], first)
    if not 1 <= len(item) <= _MAX_SUBJECT or (not asks and item[0].lower() not in ARTICLES[language]):
        return None
    known = MODALS_IN[language] | _COPULAS[language]  # "… ou les chaudières | sont plus efficaces"
    size = next((k for k in range(1, min(len(second), _MAX_SUBJECT + 1)) if second[k].lower() in known), 0)
    if not size:
        size = next((k for k in range(1, len(second)) if _units(second[:k]) >= _units(item)), 0)
        size = size if _units(second[:size]) == _units(item) else 0
    other, tail = second[:size], second[size:]
    if not size or not tail or not _opens_like(item, other, language):
        return None
    verb = tail[0].lower()
    joins = {*JOINS, *OWN_JOINS.get(language, ())}
    if asks:
        if not verb.isalpha() or not tail[0].islower() or verb in ARTICLES[language] | GENITIVES | joins:
            return None
        return prefix, [item, other], tail
    infinitive = _INFINITIVE[language]
    modal = verb in MODALS_IN[language] and len(tail) > 1 and bool(infinitive.fullmatch(tail[1].lower()))
    if not modal and not (
        verb in _COPULAS[language] and len(tail) > 1 and not comparative_in(tail[1:], language)
    ):
        return None  # "Il treno o l'aereo | è più veloce": a comparison, asked otherwise
    return prefix, [item, [other[0][:1].upper() + other[0][1:], *other[1:]]], tail


def german_verb_final(
    first: list[str], second: list[str], modals: frozenset[str]
) -> tuple[list[str], list[list[str]], list[str]] | None:
    """``(prefix, items, tail)`` of a German question that opens with a modal verb (``modals``) and its
    subject and ends with an infinitive after two items of one object: the infinitive, and any words
    in small letters before it, are every item's ("Kann der Kernel | Threads oder Prozesse | planen?":
    "Kann der Kernel Threads planen"; "… Prozesse | gleichzeitig planen"). The first item is as many
    words as the second, each ending in a capitalised noun, but for an article the second opens with
    and the first lacks: the word before the first item is then every item's ("Soll ich mit | Gas
    oder einer Wärmepumpe | heizen": "Soll ich mit einer Wärmepumpe heizen"); the modal and a subject
    of at least one word are left before them, and no article, which would be the first item's own.
    None for any other list."""
    from engine.offline_verb_choices import _INFINITIVE

    end = next((k + 1 for k in range(len(second) - 2, -1, -1) if second[k][:1].isupper()), 0)
    other, tail = second[:end], second[end:]
    if (
        not other
        or first[0].lower() not in modals
        or len(first) - len(other) < 2
        or not all(w.isalpha() and w.islower() for w in tail)
        or not _INFINITIVE["de"].fullmatch(tail[-1])
    ):
        return None
    articles = ARTICLES["de"]
    item = first[-len(other) :]
    if other[0].lower() in articles and item[0].lower() not in articles:
        item = item[1:]  # "mit | Gas oder einer Wärmepumpe": the preposition is every item's
    prefix = first[: len(first) - len(item)]
    if not item or not item[-1][:1].isupper() or len(prefix) < 2 or prefix[-1].lower() in articles:
        return None  # "einen | Thread oder Prozesse": the article is the first item's own
    return prefix, [item, other], tail
