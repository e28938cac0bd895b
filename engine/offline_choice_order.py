"""A yes-or-no question that compares its listed items, and how it is asked of each item, for
:func:`engine.offline_list_items.items_listed`.

"Is | a heat pump or a gas boiler | more efficient?", "Ist | der Zug oder das Flugzeug | schneller?"
and "Est-ce que | le train ou l'avion | est plus rapide ?" open with a verb before the items; "Il treno
o l'aereo | è più veloce?", "Une pompe à chaleur ou une chaudière | est-elle moins chère ?" and
"Python or Java | is faster?" open with the items (:func:`opens_with_items`). Either way a comparative
follows the last item, and it and the words after it are every item's: :func:`before_comparative`
tells where the last item ends (:func:`comparative_at` for English). Each item is then asked as its
language asks yes or no (:func:`asked_yes_or_no`): the verb first ("Is Python faster", "Ist der Zug
schneller"), French with "est-ce que" (:func:`engine.offline_choices.french_asked`), Italian,
Portuguese and Spanish in the question's own order ("Il treno è più veloce").
"""

from __future__ import annotations

from engine.offline_choices import comparative_in
from engine.offline_choices_french import french_asked
from engine.offline_contractions import ELIDED_ARTICLE
from engine.offline_item_words import COPULAS
from engine.offline_list_pronouns import INVERTED
from engine.offline_list_words import ARTICLES, opens_comparative
from engine.offline_list_words import function_word as _function
from engine.offline_text import _AUXILIARIES

#: Languages whose yes-or-no question may keep the order of a statement, its subject first ("Il treno
#: è più veloce?"): the items that open such a question are asked in its order (:func:`asked_yes_or_no`).
_ITEM_FIRST = frozenset({"it", "pt", "es"})


def asked_yes_or_no(item: list[str], tail: list[str], language: str) -> tuple[str, str]:
    """``(topic, frame)`` of ``item``, one of the items a yes-or-no question opens with, asked what its
    verb and comparative (``tail``) ask of every item, as ``language`` asks yes or no
    (:data:`_ITEM_FIRST`): Italian, Portuguese and Spanish in the question's own order ("Il treno è più
    veloce", "L'aereo è più veloce"; "È il treno più veloce" would read as "it is the fastest train"),
    French with "est-ce que" and the verb without its pronoun, which may not be the item's gender ("Le
    train ou l'avion est-il plus rapide": "Est-ce que le train est plus rapide"), other languages with
    the verb first ("Ist der Zug schneller", "Is Python faster"), the first item's first word already
    in small letters when only the sentence capitalised it
    (:func:`engine.offline_item_words.opener_in_small_letters`). ``item`` and ``tail`` are lists of
    words as written::

        asked_yes_or_no(["Python"], ["is", "faster"], "en") == ("Is Python faster", "Is … faster")
        asked_yes_or_no(["il", "treno"], ["è", "più", "veloce"], "it") == ("Il treno è più veloce", "… è più veloce")
    """
    rest = tail[1:]
    if language in _ITEM_FIRST:
        topic = " ".join([*item, *tail])
        frame = " ".join(["…", *tail])
        return topic[:1].upper() + topic[1:], frame
    verb = _verb_of(tail[0])
    if language == "fr":  # "Est-ce que le train est plus rapide", "Est-ce qu'une pompe à chaleur est …"
        return french_asked(item, verb, rest)
    head = verb[:1].upper() + verb[1:]
    return " ".join([head, *item, *rest]), " ".join([head, "…", *rest])


def comparative_at(words: list[str], k: int) -> bool:
    """True when an English comparative opens at ``words[k]`` (``words`` a list of words as written),
    or after an article there ("more efficient", "cheaper to run", "a better first language":
    :func:`engine.offline_list_words.opens_comparative`)::

        comparative_at(["a", "heat", "pump", "more", "efficient"], 3) is True
        comparative_at(["a", "better", "first", "language"], 0) is True
    """
    if k < len(words) - 1 and words[k].lower() in ARTICLES["en"]:
        k += 1
    return opens_comparative(words[k:])


def before_comparative(prefix: list[str], last: list[str], lead: int, language: str) -> int:
    """How many of ``last`` (the last clause's words) are the last listed item when the question opens
    with an English form of "be" (``prefix``, the words before the first item, is that one word) and a
    comparative follows the item (:func:`comparative_at`): the words up to it, the comparative and
    what follows it every item's ("Is | a heat pump or a gas boiler | more efficient", "Are | heat
    pumps or gas boilers | cheaper to run", "Is | Python or Java | a better first language"); 0 otherwise.
    Outside English the same after an auxiliary ("Ist | der Zug oder das Flugzeug | schneller") or
    "est-ce que", and, with no ``prefix``, up to the verb before a comparative ("Il treno o | l'aereo
    è più veloce"). ``lead`` is how many of ``last``'s first words are function words, which the item
    holds at least one word past. ``prefix`` and ``last`` are lists of words as written::

        before_comparative(["Is"], ["a", "gas", "boiler", "more", "efficient"], 1, "en") == 3
        before_comparative([], ["l'aereo", "è", "più", "veloce"], 0, "it") == 1
    """
    if not prefix:
        # "Il treno o l'aereo | è più veloce", "Python or Java | is faster": the question opens with the items
        return next(
            (
                k
                for k in range(lead + 1, len(last) - 1)
                if _verb_of(last[k]) in _AUXILIARIES and comparative_in(last[k + 1 :], language)
            ),
            0,
        )
    if language == "en":
        if len(prefix) != 1 or prefix[0].lower() not in COPULAS:
            return 0
        return next((k for k in range(lead + 1, len(last)) if comparative_at(last, k)), 0)
    if [w.lower() for w in prefix] in (["est-ce", "que"], ["est-ce", "qu'"], ["est-ce", "qu’"]):
        # "Est-ce que | le train ou l'avion | est plus rapide": the verb and its comparative are every item's
        return next(
            (
                k
                for k in range(lead + 1, len(last) - 1)
                if last[k].lower() in _AUXILIARIES and comparative_in(last[k + 1 :], language)
            ),
            0,
        )
    if len(prefix) != 1 or prefix[0].lower() not in _AUXILIARIES:
        return 0  # "Ist | der Zug oder das Flugzeug | schneller", "Is | de trein of het vliegtuig | sneller"
    return next((k for k in range(lead + 1, len(last)) if comparative_in(last[k:], language)), 0)


def opens_with_items(first: list[str], later: list[list[str]], lead: int, language: str) -> bool:
    """True when a question opens with its listed items and asks yes or no with a verb and a
    comparative after the last one (:func:`before_comparative`): its first clause (``first``, a list
    of words) opens with an article, or holds no function word, and holds no auxiliary ("A heat pump
    or a gas boiler | is cheaper", "Une pompe à chaleur ou une chaudière | est-elle moins chère",
    "Heat pumps or gas boilers | are cheaper to run"), the first item all of it. ``later`` holds the
    words of each later clause, ``lead`` is as for :func:`before_comparative`::

        opens_with_items(["A", "heat", "pump"], [["a", "gas", "boiler", "is", "cheaper"]], 1, "en") is True
        opens_with_items(["Is", "a", "heat", "pump"], [["a", "gas", "boiler", "cheaper"]], 1, "en") is False
    """
    opener = first[0].lower()
    return (
        (
            opener in ARTICLES.get(language, ())
            or bool(ELIDED_ARTICLE.match(opener))
            or not any(_function(w.lower(), language) for w in first)
        )
        and not any(_verb_of(w) in _AUXILIARIES - ARTICLES.get(language, frozenset()) for w in first)
        and before_comparative([], later[-1], lead, language) > 0
    )


def _verb_of(word: str) -> str:
    """``word`` in small letters, a French verb without the pronoun after it ("est-il": "est")."""
    low = word.lower()
    found = INVERTED.fullmatch(low)
    # INVERTED ignores case, which also reads a dotless "ı" as "i" and a long "ſ" as "s": in small
    # letters, only a pronoun written in plain letters ("il", not "ıl") is one
    return found.group(1) if found and found.group(2).isascii() else low
