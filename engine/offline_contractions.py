"""Romance prepositions written as one word with an article, and articles elided before a vowel, for
the items of a list question (:func:`engine.offline_list_items.items_listed`).

Spanish, Portuguese, Italian and French write a preposition and the article after it as one word
("de" and "el": "del", "di" and "il": "del", "de" and "le": "du": :data:`CONTRACTIONS`), and an
article before a vowel as "l'" ("l'avion", "l’aereo": :data:`ELIDED_ARTICLE`), which Italian joins to
its preposition ("dell'aspirina", "nell'acqua"). When a list's first item holds such a word and a
later item has an article of its own ("…secundarios del | ibuprofeno, el paracetamol"), each item is
written with the preposition joined to its own article (:func:`contracted`: "…secundarios del
paracetamol", "…secundarios de la aspirina").
"""

from __future__ import annotations

import re

from engine.offline_list_words import ARTICLES

# fmt: off
#: A preposition and an article that a Romance language writes as one word ("de" and "el": "del"), by
#: language: ``{language: {(preposition, article): contraction}}``; :func:`contracted` joins and parts them.
CONTRACTIONS = {
    "es": {("de", "el"): "del", ("a", "el"): "al"},
    "pt": {("de", "o"): "do", ("de", "a"): "da", ("de", "os"): "dos", ("de", "as"): "das", ("em", "o"): "no",
           ("em", "a"): "na", ("em", "os"): "nos", ("em", "as"): "nas"},
    "it": {("di", "il"): "del", ("di", "lo"): "dello", ("di", "la"): "della", ("di", "i"): "dei",
           ("di", "gli"): "degli", ("di", "le"): "delle", ("in", "il"): "nel", ("in", "la"): "nella"},
    "fr": {("de", "le"): "du", ("de", "les"): "des", ("à", "le"): "au", ("à", "les"): "aux"},
}
# fmt: on
#: :data:`CONTRACTIONS` the other way round, each contraction parted into its preposition and article:
#: ``{language: {contraction: (preposition, article)}}`` ("es": {"del": ("de", "el"), "al": ("a", "el")}).
PARTED = {language: {c: pair for pair, c in table.items()} for language, table in CONTRACTIONS.items()}

#: An article elided before a vowel, at the start of a word in small letters ("l'avion", "l’aereo";
#: not "d'eau"): ``ELIDED_ARTICLE.match(word.lower())``.
ELIDED_ARTICLE = re.compile(r"l['’]\w")
#: A preposition, or an Italian one joined to its article, elided before a vowel, at the start of a
#: word in small letters ("d'eau", "dell'ibuprofene", "dall'Italia"): a word that holds its own
#: preposition.
ELIDED_GENITIVE = re.compile(r"(?:d|dell|dall|dal)['’]\w")
#: An Italian preposition joined to an elided article ("dell'", "nell'").
_ELIDING = {"di": "dell", "in": "nell"}


def contracted(prefix: list[str], item: list[str], language: str) -> tuple[list[str], list[str]]:
    """``(prefix, item)`` of a listed item with the preposition the first item's contraction holds
    (:data:`CONTRACTIONS`) joined to the item's own article: "…secundarios del" and "el paracetamol"
    read "…secundarios del paracetamol", with "la aspirina" "…secundarios de la aspirina"; a bare
    preposition before an item that holds its own is left out ("de" and "du paracétamol": "du
    paracétamol"). ``prefix`` is the words before the list, ``item`` the item's words, each a list of
    words as written::

        contracted(["efectos", "del"], ["la", "aspirina"], "es") == (["efectos", "de la"], ["aspirina"])
        contracted(["effetti", "del"], ["l'aspirina"], "it") == (["effetti"], ["dell'aspirina"])
        contracted(["effets", "de"], ["du", "paracétamol"], "fr") == (["effets"], ["du", "paracétamol"])

    Both as given for a language without contractions or an item that does not open with an article."""
    parted = PARTED.get(language)
    if not parted or not prefix or not item:
        return prefix, item
    last, opener = prefix[-1].lower(), item[0].lower()
    if last in parted and (
        opener in ARTICLES.get(language, ()) and len(item) > 1 or ELIDED_ARTICLE.match(opener)
    ):
        preposition = parted[last][0]
        # "del" and "l'aspirina": "dell'aspirina"; "du" and "l'eau": "de l'eau"
        if ELIDED_ARTICLE.match(opener):
            own = (
                f"{_ELIDING[preposition]}{item[0][1:]}"
                if preposition in _ELIDING
                else f"{preposition} {item[0]}"
            )
            return prefix[:-1], [own, *item[1:]]
        word = CONTRACTIONS[language].get((preposition, opener), f"{preposition} {item[0]}")
        return [*prefix[:-1], word], item[1:]
    bare = {p for p, _ in parted.values()}
    if (
        last in bare
        and opener in ARTICLES.get(language, ())
        and (last, opener) in CONTRACTIONS[language]
        and len(item) > 1
    ):
        # "de | el resfriado": "del resfriado"
        return [*prefix[:-1], CONTRACTIONS[language][last, opener]], item[1:]
    if last in bare | set(parted) and (opener in parted or opener == last or ELIDED_GENITIVE.match(opener)):
        return prefix[:-1], item  # "de | du paracétamol", "de | de Carthage", "del | dell'ibuprofene"
    return prefix, item
