"""How the offline model asks a French choice of each of its items, for
:func:`engine.offline_choices.asked_of_each`: with "est-ce que", the adjective of its comparative in
the item's gender ("Quel est le moins cher, le train ou l'avion": "Est-ce que le train est le moins
cher"; "… une pompe à chaleur": "Est-ce qu'une pompe à chaleur est la moins chère")."""

from __future__ import annotations


def french_asked(item: list[str], verb: str, rest: list[str]) -> tuple[str, str]:
    """``(topic, frame)`` of ``item`` asked with "est-ce que", its ``verb`` and the words after it
    (``rest``): "Est-ce que le train est plus rapide", frame "Est-ce que … est plus rapide"; the
    adjective of a comparative in ``rest`` in the item's gender (:func:`_agreeing_in_french`)."""
    asked = " ".join([verb, *_agreeing_in_french(item, rest)])
    return f"Est-ce {_que(item[0])}{' '.join(item)} {asked}", f"Est-ce que … {asked}"


#: French words before a noun in the singular that tell its gender ("une pompe", "le train").
_FEMININE = frozenset("une la cette ma ta sa".split())
_MASCULINE = frozenset("un le ce cet".split())

#: French adjectives whose feminine is not the masculine and "-e", nor of a regular ending
#: (:func:`_feminine`), and the other way round.
_FEMININE_OF = {
    "cher": "chère",
    "bon": "bonne",
    "meilleur": "meilleure",
    "long": "longue",
    "gros": "grosse",
    "bas": "basse",
    "épais": "épaisse",
    "frais": "fraîche",
    "blanc": "blanche",
    "sec": "sèche",
    "public": "publique",
    "nouveau": "nouvelle",
    "beau": "belle",
    "vieux": "vieille",
    "doux": "douce",
    "faux": "fausse",
    "gentil": "gentille",
    "fou": "folle",
    "favori": "favorite",
}
_MASCULINE_OF = {feminine: masculine for masculine, feminine in _FEMININE_OF.items()}
#: Regular endings of French adjectives in the masculine and the feminine, tried in order; "-et" is
#: "-ette" or "-ète" as French writes the word ("nette", "complète").
_FEMININE_ENDINGS = (
    ("eux", "euse"),
    ("er", "ère"),
    ("if", "ive"),
    ("el", "elle"),
    ("eil", "eille"),
    ("en", "enne"),
    ("on", "onne"),
    ("et", "ette"),
    ("et", "ète"),
)
#: How often on the Zipf scale (wordfreq) French writes a form of an adjective made by these rules
#: before it is written so: "polluante" (2.7) is, "rapidee" is not.
MIN_FRENCH_FORM_ZIPF = 2.0


def _agreeing_in_french(item: list[str], rest: list[str]) -> list[str]:
    """``rest`` (the words after "est" that a choice asks of each item) with the adjective of its
    comparative or superlative, and the article before it, in the gender of ``item`` that its first
    word tells (:data:`_FEMININE`, :data:`_MASCULINE`): "moins cher" after "une pompe" is "moins chère",
    "le meilleur" after "la tisane" "la meilleure", "la moins chère" after "un poêle" "le moins
    cher". The adjective is the word after "plus" or "moins", or "meilleur"; "meilleur marché" and
    "bon marché" never change. A form is written only when French writes it (:func:`_feminine`,
    :func:`_masculine`); an item after "l'", in the plural or without an article is left as asked."""
    first = item[0].lower() if item else ""
    feminine = first in _FEMININE
    if not (feminine or first in _MASCULINE) or not rest:
        return rest
    words_ = list(rest)
    k = 0
    if words_[0].lower() in ("le", "la") and len(words_) > 1:
        k = 1
    at = k + 1 if words_[k].lower() in ("plus", "moins") else k
    if at >= len(words_) or not words_[at].isalpha() or not words_[at].islower():
        return rest
    if at + 1 < len(words_) and words_[at + 1].lower() == "marché":
        return rest  # "meilleur marché": the same for every noun
    if at == k and words_[at] not in ("meilleur", "meilleure"):
        return rest  # no comparative: "est le moteur", "est utile"
    word = _feminine(words_[at]) if feminine else _masculine(words_[at])
    if word is None:
        return rest
    words_[at] = word
    if k:
        words_[0] = "la" if feminine else "le"
    return words_


def _written_in_french(word: str) -> bool:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "fr") >= MIN_FRENCH_FORM_ZIPF


def _feminine(word: str) -> str | None:
    """The feminine of the French adjective ``word``: as written when it ends in "-e" or is one of
    :data:`_MASCULINE_OF`'s feminines ("rapide", "chère"), of :data:`_FEMININE_OF` ("cher": "chère"),
    of a regular ending (:data:`_FEMININE_ENDINGS`: "coûteux": "coûteuse"), else with "-e" ("lent":
    "lente", "élevé": "élevée"); None when French does not write the form (:data:`MIN_FRENCH_FORM_ZIPF`)."""
    if word in _FEMININE_OF:
        return _FEMININE_OF[word]
    if word.endswith("e") or word in _MASCULINE_OF:
        return word
    for masculine, feminine in _FEMININE_ENDINGS:
        if word.endswith(masculine) and _written_in_french(formed := word[: -len(masculine)] + feminine):
            return formed
    formed = f"{word}e"
    return formed if _written_in_french(formed) else None


def _masculine(word: str) -> str | None:
    """The masculine of the French adjective ``word`` when it is a feminine of :data:`_FEMININE_OF`, of
    a regular ending (:data:`_FEMININE_ENDINGS`) or of one that is the masculine and "-e"
    (:data:`_PLAIN_FEMININE_ENDINGS`): "chère": "cher", "coûteuse": "coûteux", "lente": "lent";
    ``word`` itself when it is no such feminine ("rapide", "cher"); None when French does not write
    the form."""
    if word in _MASCULINE_OF:
        return _MASCULINE_OF[word]
    if word in _FEMININE_OF or not word.endswith("e"):
        return word
    for masculine, feminine in _FEMININE_ENDINGS:
        if word.endswith(feminine):
            formed = word[: -len(feminine)] + masculine
            return formed if _written_in_french(formed) else None
    if word.endswith(_PLAIN_FEMININE_ENDINGS) and _written_in_french(word[:-1]):
        return word[:-1]  # "lente": "lent", "grande": "grand", "élevée": "élevé"; not "rapide": "rapid"
    return word


#: Endings of a French feminine that is the masculine and "-e" ("lente", "élevée", "forte"), where an
#: adjective in "-ide" or "-ite" is the same in both ("rapide", "insolite").
_PLAIN_FEMININE_ENDINGS = ("ante", "ente", "ée", "ande", "arde", "aude", "erte", "orte")


def _que(item: str) -> str:
    """French "que " before ``item``, or "qu'" before a vowel ("qu'une pompe", "qu'Airbus")."""
    return "qu'" if item[:1].lower() in "aeiouyàâéèêëîïôûœ" else "que "
