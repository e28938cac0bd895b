"""Where the first and the last item of a list begin and end in the words of its clauses, for
:func:`engine.offline_list_items._listed_at`: "How much noise do | heat pumps, wind turbines and solar
panels | make" (:func:`first_item_start`, :func:`last_item_size`), and whether the words after the
list are every item's (:func:`shares_tail`, :func:`compound_tail`)."""

from __future__ import annotations

from engine.offline_contractions import CONTRACTIONS, ELIDED_ARTICLE, ELIDED_GENITIVE, PARTED
from engine.offline_item_words import ELIDED, HOLE, NOUN_ELLIPSIS, is_plural, opens_tail
from engine.offline_list_words import (
    ARTICLES,
    BARE,
    BEFORE_VERB,
    GENITIVES,
    PREPOSITIONS,
    REFLEXIVES,
    TOGETHER,
    asks_how,
    opens_verb,
)
from engine.offline_list_words import function_word as _function
from engine.offline_numerals import numeral
from engine.offline_text import _AUXILIARIES


def last_item_size(
    last: list[str], size: int, earlier: list[list[str]], start: int, subject: bool, language: str
) -> int:
    """How many of ``last`` (the last clause's words) are the last listed item: ``size`` (the middle
    items' length, or the first one's) unless the item ends sooner or goes on.

    It ends at a verb that asks how after its first word (:func:`opens_tail`, :func:`asks_how`:
    "batteries | work together" after "solar panels"). It goes on to that verb when the words before
    it are no function words ("typing protocols | work together", "frozen sets | differ in memory
    use"); with no such verb, as far as the earlier items' shape goes, up to the item's first
    function word: to the first plural after plural ones ("guinea pigs | eat", "long term benefits |
    of solar panels"), through capitalised words after names ("SQL Server | store indexes"), or to
    the first capitalised word after a word that is not, a German noun after its adjective ("große
    Windräder"). ``earlier`` are the items before it, the first one from ``start`` in its clause
    (its shape not counted when it opens the clause, capitalised as a sentence is). With one
    earlier item, ``size`` is a guess, kept unless ``subject`` (the items right after an auxiliary or
    a pronoun: "What do | cats and guinea pigs | eat"); the shape goes on from no verb that asks how
    ("cancel tasks and | handle timeouts": a clause of its own)."""
    if size < 1 or len(earlier) < 2 and not subject:
        return size  # "How do solar | panels and wind turbines work": the items' length is a guess
    opener = next((k for k in range(1, len(last)) if opens_tail(last, k)), None)
    if opener is not None and opener < size:  # "… and batteries | work together" after two-word items
        return opener if asks_how(last, opener) else size
    if size >= len(last):
        return size
    if opener is not None:
        plain = opener > size and not any(_function(w.lower(), language) for w in last[size:opener])
        return opener if plain else size
    shaped = earlier[1:] if start == 0 else earlier
    if not shaped or asks_how(last, size - 1):
        return size  # "cancel tasks and | handle timeouts": a clause of its own
    own = [
        k for k in range(size, len(last)) if _function(last[k].lower(), language) or HOLE.fullmatch(last[k])
    ]
    reach = own[0] if own else len(last)  # an item's own words go on to its first function word

    def capital(word: str) -> bool:
        return word[:1].isupper()

    if language == "en" and all(is_plural(i[-1:]) for i in shaped) and not is_plural(last[size - 1 : size]):
        # to the first plural, which may come before ``size`` ("solar panels | made of" after "wind turbine blades")
        return next((k + 1 for k in range(reach) if is_plural(last[k : k + 1])), size)
    if all(capital(i[-1]) for i in shaped):
        if not capital(last[size - 1]):
            return next((k + 1 for k in range(size, reach) if capital(last[k])), size)
        return next((k for k in range(size, reach) if not capital(last[k])), reach)
    return size


def compound_tail(tail: list[str], language: str) -> bool:
    """True when ``tail`` (the words after a list's last item) is the last item's own compound in a
    language whose nouns take one (:data:`NOUN_ELLIPSIS`): a bare "de" or "di" and a word that is no
    function word ("los tiempos | de espera", "le pompe | di calore"), where a shared phrase has an
    article ("de los paneles", "dei pannelli")."""
    return (
        language in NOUN_ELLIPSIS
        and len(tail) >= 2
        and tail[0].lower() in ("de", "di")
        and not _function(tail[1].lower(), language)
    )


def first_item_start(first: list[str], opener: str, size: int, language: str) -> int:
    """The index in ``first`` (the first clause's words) where the first listed item starts: at the
    last word that is the later item's opening function word ``opener`` ("les threads et les
    processus"), at an elided article that ends it ("l'espresso" for "le"), at the last function word
    that is no bare preposition (:data:`BARE`: "delle pompe di calore e dei pannelli", "da energia
    solar e do vento", "i pannelli solari e le turbine"), else ``size`` words from the end (negative when
    ``first`` is shorter). In a question that asks what something of each item is ("Cuáles son los
    efectos secundarios del | ibuprofeno, el paracetamol"), an article of a later item starts the
    first one after a contraction (:data:`engine.offline_contractions.CONTRACTIONS`) or "de" and an article; a later item that
    holds its own preposition ("du paracétamol", "del paracetamolo") starts it at the first one's
    ("de l'ibuprofène", "dell'ibuprofene")."""
    if opener and language in CONTRACTIONS:
        contracted_words = set(PARTED[language])
        if (
            opener in ARTICLES.get(language, ())
            and opener not in contracted_words | GENITIVES
            and len(first) > 3
            and first[1].lower() in _AUXILIARIES
        ):
            # "Cuáles son los efectos del | ibuprofeno, el paracetamol", "… de | la gripe, el resfriado": a
            # question that asks what something of each item is; the article a contraction holds is the item's
            at = next(
                (
                    i
                    for i in range(len(first) - 2, 2, -1)
                    if first[i].lower() in contracted_words
                    or first[i].lower() in BARE & GENITIVES
                    and first[i + 1].lower() in ARTICLES[language]
                ),
                None,
            )
            if at is not None and not any(_function(w.lower(), language) for w in first[at + 2 :]):
                return at + 1
        if (
            opener in contracted_words | GENITIVES
        ):  # "dell'ibuprofene, del paracetamolo", "de l'ibuprofène, du …"
            if ELIDED_GENITIVE.match(first[-1].lower()):
                return len(first) - 1
            if len(first) > 2 and first[-2].lower() in GENITIVES and ELIDED_ARTICLE.match(first[-1].lower()):
                return len(first) - 2
    if opener:
        same = [i for i in range(len(first) - 1, 0, -1) if first[i].lower() == opener]
        elided = ELIDED.match(first[-1])
        # an item that opens with an article lists with one that does ("la cancellazione dei task e
        # i timeout"), not with a phrase in it that opens with a preposition ("dei task"); an article
        # of the language is one, whatever it is elsewhere (Portuguese "as")
        article = (
            language in NOUN_ELLIPSIS
            and opener in ARTICLES.get(language, ())
            and opener not in GENITIVES | PREPOSITIONS
        )
        kin = [
            i
            for i in range(len(first) - 1, 0, -1)
            if _function(first[i].lower(), language)
            and first[i].lower() not in BARE
            and not (article and first[i].lower() in GENITIVES | (PREPOSITIONS - ARTICLES[language]))
            or article
            and (m := ELIDED.match(first[i]))
            and m.group(1).lower() in ARTICLES.get(language, set()) | {"l"}
        ]
        # an article after a preposition opens the phrase in an item ("la cancelación de | las tareas"),
        # not the item, when an article before it can
        whole = [i for i in kin if not (article and first[i - 1].lower() in GENITIVES | PREPOSITIONS | BARE)]
        if same:
            return same[0]
        if elided and _function(elided.group(1).lower(), language):
            return len(first) - 1
        if kin:
            return (whole or kin)[0]
    return len(first) - size


def shares_tail(prefix: list[str], tail: list[str], items: list[list[str]]) -> bool:
    """True when the words after the last listed item (``tail``) are asked of every item: none, a
    phrase that opens or ends with a preposition ("… in winter", "… made of", :data:`PREPOSITIONS`) or
    opens with the verb's reflexive pronoun ("… zich in de winter", :data:`REFLEXIVES`),
    one that opens with a verb that asks how ("… compare"), or any when the items come right after
    an auxiliary, a subject pronoun or "to" (``prefix``, the words before the first item, ends with
    one of :data:`BEFORE_VERB`: "Should I rent or buy a house", "What do cats and dogs eat"), or
    when the items are numbers (:func:`engine.offline_numerals.numeral`: "siete u ocho horas", "1,5 oder 2,5 kW", ",5"); otherwise the later clause is a clause of its own ("cancel tasks and handle timeouts")."""
    if not tail:
        return True
    return (
        tail[0].lower() in PREPOSITIONS | REFLEXIVES | TOGETHER
        or tail[-1].lower() in PREPOSITIONS
        or asks_how(tail, 0)
        or bool(prefix)
        and opens_verb(prefix[-1], BEFORE_VERB)
        or all(len(i) == 1 and numeral(i[0]) for i in items)
    )
