"""How each item of a list question gets its words, for :func:`engine.offline_list_items.items_listed`.

Rules stated here, each with the example it was made for:

- Adjectives listed before one noun share it ("small and large companies": "small companies",
  "large companies"; :func:`sharing_the_noun`, :func:`adjectives_of_one_noun` outside English); a
  later item that is a noun of its own, a plural ("batteries", "boilers"), shares nothing with the
  first one: the first item's leading words are its own ("How much noise do | heat pumps, batteries
  and solar panels | make", "What are the costs of | solar panels and batteries":
  :func:`first_item_reach`), never "heat batteries" or "solar batteries"; a name that is no English
  word is every item's ("asyncio tasks, threads": "asyncio threads"). An English article before the
  adjectives is every item's ("Is it a good or bad idea": "a bad idea").
- An English "a" or "an" before the first item is that item's when a later item is a plural without
  one ("the cost of | a wind turbine versus solar panels": "the cost of solar panels", never "of a
  solar panels"; :func:`article_is_the_first_items`).
- A first item without the article a later item opens with starts after the verb of a subject
  pronoun or "to" ("Should I buy | solar panels, a battery, or a wind turbine": "Should I buy a
  battery"; "Would you recommend buying |", "Is it better to buy |") or
  at the last preposition before it ("Can I run a heat pump with | solar panels and a battery":
  "Can I run a heat pump with a battery"; :func:`article_item_start`).
- Romance lists leave out a noun a later item shares ("la energía solar, la eólica": "la energía
  eólica", :func:`with_shared_noun`); a noun phrase of its own keeps its words
  (:func:`opens_noun_phrase`).
- The last item opens with an article and takes the words after it that are no function words
  when they are not shared ("Should we use Redis, Kafka, or | a message queue":
  :func:`engine.offline_list_items._listed_at`).
- An English auxiliary agrees with its item ("How does Kafka work", :func:`agreeing`, :func:`is_plural`).
- A later English item that is a verb of its own ("Should I rent an apartment or | buy", "… or buy
  one", "… or take the bus") or a second verb in "-ing" ("Is it worth buying a used car or | leasing a
  new one") is asked with the words before the first item's verb, never with that verb or its
  article (:func:`verb_items`, :data:`CHOICE_VERBS`); a "one" after the first item is its noun
  ("leasing a new car", "buy a car": :func:`ones_written`).

Quoted text and code stand as one word each while a brief is split (:data:`HOLE`).
"""

from __future__ import annotations

import re

from engine.offline_contractions import ELIDED_ARTICLE
from engine.offline_list_words import (
    ADJECTIVE_ENDINGS,
    ARTICLES,
    COMPARING,
    GENITIVES,
    NOUN_ENDINGS,
    PREPOSITIONS,
    RELATING,
    TOGETHER,
    adjective,
    asks_how,
)
from engine.offline_list_words import function_word as _function
from engine.offline_subject_items import verb_evidence

#: What stands for the n-th quoted or code span of a brief while it is split
#: (:func:`engine.offline_lists.listed_topics` writes it): one word, no separator.
HOLE = re.compile(r"qqspan(\d+)qq")

#: English auxiliaries whose subject a bare verb follows ("How does asyncio | cancel tasks", "How can
#: I | handle timeouts"), not a noun or an adjective as after "are".
VERB_AFTER_SUBJECT = frozenset("do does did can could should would will shall may might must".split())
#: English forms of "be": the words after one up to a listed item are its subject's ("What are solar |
#: panels and batteries made of").
COPULAS = frozenset("is are was were".split())

def sharing_the_noun(items: list[list[str]], language: str) -> list[list[str]]:
    """``items`` with the noun of the last one given to the earlier ones when each of those is one
    adjective (:func:`engine.offline_list_words.adjective`) and the last one a word before its noun,
    an adjective or a noun in small letters: "small and large companies" are "small companies" and
    "large companies", "electric and gas heaters" "electric heaters" and "gas heaters", "kleine und
    große Unternehmen" "kleine Unternehmen" and "große Unternehmen". A noun first ("cats and guinea
    pigs") and a last item that ends in an adjective keep their words. An English article before the
    first adjective is every item's ("Is it a good or bad idea": "a good idea", "a bad idea"; "an"
    before a vowel: "an old or new car": "a new car")."""
    articles = ARTICLES["en"]
    if language == "en" and len(items[0]) == 2 and items[0][0].lower() in articles:
        bare = [i[1:] if len(i) > 1 and i[0].lower() in articles else i for i in items]
        shared = sharing_the_noun(bare, language)
        if shared == bare:
            return items
        article = items[0][0]
        if article.lower() in _INDEFINITE:
            return [["an" if s[0][:1].lower() in "aeiou" else "a", *s] for s in shared]
        return [[article, *s] for s in shared]
    *earlier, last = items
    if (
        len(last) < 2
        or not last[0][:1].islower()
        or _function(last[0].lower(), language)
        or adjective(last[-1], language)
        or HOLE.search(" ".join(last))
        or any(len(i) != 1 or not adjective(i[0], language) for i in earlier)
    ):
        return items
    return [*([i[0], *last[1:]] for i in earlier), last]

#: Prepositions inside a Romance noun written in words ("pompes à chaleur", "bombas de calor").
_NOUN_LINKERS = frozenset("à de di da do".split())


def adjectives_of_one_noun(
    first: list[str], later: list[list[str]], language: str
) -> tuple[list[str], list[list[str]], list[str]] | None:
    """``(prefix, items, tail)`` of a list of adjectives before one noun outside English (whose
    lists :func:`sharing_the_noun` reads): the first clause (``first``) ends in an adjective, each
    middle clause is one, and the last one opens with one and then the noun
    (:func:`engine.offline_list_words.adjective`). The noun is the adjectives' up to its first
    capitalised word in German ("kleine und große | Unternehmen | Wärmepumpen"), else one word and a
    preposition inside the noun with its word ("petites et grandes | pompes à chaleur"). Each
    adjective gets the noun; the words before the first adjective (an article too: "les") and after
    the noun are every item's. None when the clauses are no such list."""
    last = later[-1]
    if (
        language == "en"
        or len(first) < 2
        or len(last) < 2
        or not adjective(first[-1], language)
        or not adjective(last[0], language)
        or any(len(m) != 1 or not adjective(m[0], language) for m in later[:-1])
    ):
        return None
    if language == "de":
        end = next((k for k in range(1, len(last)) if last[k][:1].isupper()), None)
        if end is None or not all(adjective(w, language) for w in last[1:end]):
            return None
        end += 1
    else:
        if _function(last[1].lower(), language) or adjective(last[1], language):
            return None
        end = 2
        if len(last) > 3 and last[2].lower() in _NOUN_LINKERS and not _function(last[3].lower(), language):
            end = 4
    noun = last[1:end]
    items = [[first[-1], *noun], *([m[0], *noun] for m in later[:-1]), last[:end]]
    return first[:-1], items, last[end:]

#: Languages whose lists leave out the noun an item shares with the first one ("la energía solar, la
#: eólica": "la energía eólica"), an adjective following its noun.
NOUN_ELLIPSIS = frozenset("es fr it pt ca".split())
#: A word that opens with an elided article or preposition ("l'espresso", "d'eau", "dell'acqua").
ELIDED = re.compile(r"(\w+)['’]\w")


def opens_noun_phrase(item: list[str], language: str = "en") -> bool:
    """True when ``item`` (its words) is a noun phrase of its own: an article or other function word
    (:func:`_function` of ``language``) and then a word that is none ("le café filtre"), or a word with
    an elided article ("l'espresso")."""
    elided = ELIDED.match(item[0])
    if elided:
        return _function(elided.group(1).lower(), language)
    lead = next((k for k, w in enumerate(item) if not _function(w.lower(), language)), len(item))
    return 1 <= lead < len(item)  # "le café filtre", "de los tiempos"


def with_shared_noun(items: list[list[str]], language: str) -> list[list[str]]:
    """``items`` with the noun of the first item given back to a later one that leaves it out, in a
    language whose adjectives follow their noun (:data:`NOUN_ELLIPSIS`): after "la energía solar"
    (article, noun, one word), "la eólica" (the same article, an adjective: :data:`ADJECTIVE_ENDINGS`)
    is "la energía eólica"; "les batteries" after "les panneaux solaires", a word with no adjective's
    ending, and "los aerogeneradores", one with a noun's ending (:data:`NOUN_ENDINGS`), stay as
    written."""
    first = [w.lower() for w in items[0]]
    if (
        language not in NOUN_ELLIPSIS
        or len(first) != 3
        or not opens_noun_phrase(items[0], language)
        or _function(first[2], language)
    ):
        return items
    return [
        [i[0], items[0][1], i[1]]
        if len(i) == 2
        and i[0].lower() == first[0]
        and not _function(i[1].lower(), language)
        and not NOUN_ENDINGS.search(i[1].lower())
        and bool(ADJECTIVE_ENDINGS.search(i[1].lower()))
        else i
        for i in items
    ]


def is_plural(item: list[str]) -> bool:
    """True when the English noun phrase ``item`` (its words) is plural by its last word (see :func:`agreeing`):
    a word in capitals and "s" ("GPUs"), a capitalised last word of several ("Solar Panels"), a word in
    small letters that English writes as a plural (:func:`engine.word_forms.known_plural`: "heat pumps",
    not "postgres")."""
    last = re.sub(r"\W+$", "", item[-1]) or item[-1]  # '"double quotes"': quotes
    if re.fullmatch(r"[A-Z0-9]+s", last):  # "GPUs", "LLMs"
        return True
    if not last.lower().endswith("s") or last.lower().endswith(("ss", "us", "is")):
        return False
    if last[:1].isupper() or any(ch.isdigit() for ch in last):
        return len(item) > 1  # "Solar Panels", where "Kubernetes" is a name
    from engine.word_forms import known_plural

    return known_plural(last)  # "pumps", not "postgres" nor "emacs"


#: An English auxiliary a list's items shared in the plural, and its singular ("How do Kafka and
#: RabbitMQ work": "How does Kafka work").
_SINGULAR = {"do": "does", "are": "is", "have": "has", "were": "was"}


def agreeing(prefix: list[str], item: list[str], tail: list[str], language: str) -> list[str]:
    """``prefix`` (the words before a listed item) with its last word, an English plural auxiliary
    (:data:`_SINGULAR`), in the singular when the item's noun is singular: the item alone is its
    noun (:func:`_noun_after`) and a name (capitalised, in capitals or with a digit: "Kafka", "RAG",
    "Kubernetes") or a last word without a plural "-s" ("coffee", "glass", "analysis"). Capitals with
    a plural "s" ("GPUs", "LLMs") and a name of several words ending in one ("Solar Panels") are
    plural, as is an item whose noun the words after the list (``tail``) write ("ground-source and
    air-source | heat pumps"), or "I", "we", "you", "they" ("Do we"). Other languages' are as written."""
    if language != "en" or not prefix or prefix[-1].lower() not in _SINGULAR or not item or HOLE.search(item[-1]):
        return prefix  # a quoted or code span (:data:`HOLE`) is left with the verb as asked
    if is_plural(item) or _noun_after(prefix[-1], tail, language) or " ".join(item).lower() in ("i", "we", "you", "they"):
        return prefix
    singular = _SINGULAR[prefix[-1].lower()]
    return [*prefix[:-1], singular.capitalize() if prefix[-1][:1].isupper() else singular]


def _noun_after(auxiliary: str, tail: list[str], language: str) -> bool:
    """True when the words after a list (``tail``) go on with its items' noun phrase to a plural noun:
    one of its first two words, all before it no function word nor a verb that asks how
    (:func:`opens_tail`), is plural (:func:`is_plural`), and after a form of "do" or "have"
    (``auxiliary``) a word that is no function word follows it, the question's verb ("What do solar
    and wind | farms cost"; "How do coffee and tea | cause headaches" ends in its object). After "are"
    or "were" it may end the question ("How efficient are ground-source and air-source | heat
    pumps")."""
    for k, word in enumerate(tail[:2]):
        if _function(word.lower(), language) or opens_tail(tail, k) or HOLE.fullmatch(word):
            return False
        if is_plural([word]) and word[:1].islower():
            if auxiliary.lower() in COPULAS:
                return True
            return k + 1 < len(tail) and not _function(tail[k + 1].lower(), language)
    return False


def opens_tail(words: list[str], k: int) -> bool:
    """True when ``words[k]`` opens a phrase asked of every listed item before it: a verb that asks
    how (:func:`engine.offline_list_words.asks_how`) or an adverb of :data:`TOGETHER`; a preposition
    does not tell, since a participle may come before it ("towers | made of")."""
    return asks_how(words, k) or words[k].lower() in TOGETHER


#: English subject pronouns a verb follows ("Should I | buy", "Should we | use").
_SUBJECT_PRONOUNS = frozenset("i we you they".split())
#: English indefinite articles, which one thing takes and a plural never does.
_INDEFINITE = frozenset({"a", "an"})


def article_item_start(first: list[str], start: int, later: list[list[str]], language: str) -> int:
    """Where the first item of an English list starts in its clause (``first``, ``start`` as guessed
    from the article the next item (``later``) opens with): after a subject pronoun or "to" and its
    verb, and the verbs in "-ing" after it, when the guess is the pronoun ("Should I buy | solar
    panels, a battery, or a wind turbine": the verb and its subject are every item's, never "Should |
    a battery"; "Would you recommend buying |", "Is it worth installing |", "Is it better to buy |"),
    and at the last preposition after
    the guess's article when no later item has a phrase of its own ("Can I run a heat pump with |
    solar panels and a battery": "Can I run a heat pump with a battery", never "Can I run a
    battery"); an "of" phrase belongs to its noun ("a cup of tea and a coffee")."""
    if language != "en" or not 0 <= start < len(first) - 1:
        return start
    if first[start].lower() in _SUBJECT_PRONOUNS | {"it", "to"} and start + 2 < len(first):
        start += 2  # the pronoun or "to", then its verb (or "worth")
        while start + 1 < len(first) and first[start].lower().endswith("ing"):
            start += 1  # "recommend | buying", "worth | installing"
        return start
    opener = later[0][0].lower()
    own = PREPOSITIONS - GENITIVES - ARTICLES["en"]
    if first[start].lower() == opener and not any(w.lower() in PREPOSITIONS for m in later for w in m):
        at = [k for k in range(start + 1, len(first) - 1) if first[k].lower() in own]
        return at[-1] if at else start
    return start


def article_is_the_first_items(prefix: list[str], later: list[list[str]], language: str) -> bool:
    """True when the English "a" or "an" that ends ``prefix`` (the words before a list's first item) is
    that item's alone: a later clause (``later``) opens, without an article, with a plural ("What is
    the cost of a | wind turbine versus solar panels": "What is the cost of solar panels", never "of
    a solar panels"; "How much do a heat pump, solar panels and a battery cost"). Adjectives of one
    noun keep it shared ("Is it a good or bad idea")."""
    if language != "en" or not prefix or prefix[-1].lower() not in _INDEFINITE:
        return False
    return any(
        m[0].lower() not in ARTICLES["en"] and any(is_plural(m[: k + 1]) and m[k][:1].islower() for k in range(min(2, len(m))))
        for m in later
    )


def first_item_reach(prefix: list[str], item: list[str], later: list[list[str]], language: str) -> int:
    """How many of the last words of ``prefix`` (the words before a list's first item as guessed,
    ``item``) are the first item's own, when a later item is one English plural noun of its own (a
    middle clause of one word, or the only later clause: ``later``; up to its first function word,
    "batteries in Germany", unless that one says whose: "the long-term costs and risks of heat pumps"
    are "the long-term risks of heat pumps"), which shares none of them: those
    after the last function word, verb or question word when the item ends in a plural ("How much
    noise do | heat pumps, batteries and solar panels make", "What are the costs of | solar panels and
    batteries": "batteries", never "heat batteries" or "solar batteries"; not a name, which is every
    item's: "asyncio tasks, threads"; nor a subject and its verb: "How does asyncio cancel | tasks,
    futures and threads"; "Can the kernel schedule | threads or processes": :func:`modal_subject_end`),
    and an "a" or "an" with
    them, which no plural takes ("the weight of | an electric bike vs scooters": "the weight of
    scooters"). Adjectives of one noun share it instead ("small and large companies": the first item
    is no plural). 0 otherwise."""
    from engine.language_evidence import used_in_english
    from engine.offline_terms import QUESTION_VERBS

    if language != "en" or not prefix or not item or not item[-1][:1].islower():
        return 0
    ones = later[:-1] if len(later) > 1 else later
    heads = []
    for m in ones:  # "batteries" of "batteries in Germany"; not "risks" of "risks of heat pumps", whose words
        end = next((k for k, w in enumerate(m) if _function(w.lower(), language)), len(m))  # are every item's
        heads.append(m if end < len(m) and m[end].lower() in GENITIVES else m[:end])
    if not any(len(h) == 1 and h[0][:1].islower() and is_plural(h) for h in heads):
        return 0
    framing = QUESTION_VERBS | COMPARING | RELATING | TOGETHER | PREPOSITIONS  # "the difference between | …"
    k = len(prefix)
    while k > 1:  # the clause's first word asks the question
        word = prefix[k - 1]
        if (_function(word.lower(), language) or HOLE.fullmatch(word) or word.lower() in framing
                or not word[:1].islower() or is_plural([word]) or not used_in_english(word.lower())
                or prefix[k - 2].lower() in _SUBJECT_PRONOUNS | {"to"}
                or k > 2 and prefix[k - 3].lower() in VERB_AFTER_SUBJECT):
            break  # "asyncio | tasks, threads": a name, every item's; "How does asyncio cancel | tasks": a verb
        k -= 1
    verb = modal_subject_end([*prefix, *item], MODALS | DO)  # "Can the kernel schedule | threads": its verb
    k = max(k, verb + 1) if verb else k
    if k > 1 and prefix[k - 1].lower() in _INDEFINITE and not is_plural(item[-1:]):
        return len(prefix) - k + 1  # "an electric | bike": the article and its words are the item's
    return len(prefix) - k if is_plural(item[-1:]) else 0


#: English verbs a choice offers after another verb and its object, alone ("Should I rent an apartment
#: or | buy", "Is it better to pay off debt or | invest"): no noun an article before the first item
#: would share ("Should I buy a car or | bike": "a bike").
CHOICE_VERBS = frozenset(
    """buy rent lease sell repair replace fix keep save invest build wait borrow hire move stay quit
    upgrade renovate refinance switch rebuild restore walk drive fly cook leave rest retire resign""".split())
#: English object pronouns after a verb that make two words a verb phrase ("buy one", "replace it",
#: "represent myself").
_OBJECT_PRONOUNS = frozenset("one it them myself yourself ourselves themselves himself herself".split())
#: English words before a noun, never before a verb in "-ing" ("a building", "my savings").
_BEFORE_A_NOUN = frozenset("a an the my your our their his her its this that these those".split())


def verb_items(first: list[str], second: list[str], language: str) -> tuple[list[str], list[list[str]], list[str]] | None:
    """``(prefix, items, [])`` of a choice between two English verb phrases, the second of which the
    words around the first would misread as a noun: the first one opens with the verb of a subject
    pronoun or "to" and has an object, and the second is a verb alone (:data:`CHOICE_VERBS`), a
    word and an object pronoun (:data:`_OBJECT_PRONOUNS`) or a word and its object, which opens with
    an article or a possessive ("… or take the bus", "… or hire a developer"): "Should I | rent an apartment or buy",
    "Should we | lease a car or buy one", "Is it better to | rent a flat or buy", never "rent an buy"
    or "lease buy one"; or both open with a verb in "-ing" after a word that is no article, the first
    one with an object ("Is it worth | buying a used car or leasing a new one"), the second one's
    words whatever they are. The words before the first item's verb are every item's, and so is a
    phrase the second "-ing" item ends with that opens with a preposition, when the first one has
    none ("Is it worth | taking the train or flying | from Paris to Rome": :func:`_phrase_shared`).
    After a modal, its subject may be a noun phrase or a name (:func:`modal_subject_end`: "Should the
    city | build a new stadium or renovate the old one"). Another language's choice is read by
    :func:`engine.offline_verb_choices.infinitive_items`. None otherwise."""
    if language != "en":
        from engine.offline_verb_choices import infinitive_items

        return infinitive_items(first, second, language)  # "¿Debería la ciudad | construir … o renovar …"
    if len(second) < 1 or not second[0][:1].islower():
        return None
    if _function(second[0].lower(), language) and not (second[0].lower() == "do" and len(second) > 1):
        return None  # "… or do it myself": "do" and its object
    bare = len(second) == 1 and second[0].lower() in CHOICE_VERBS
    own = len(second) >= 2 and second[1].lower() in _OBJECT_PRONOUNS  # "buy one", "do it myself"
    objected = len(second) > 2 and (second[1].lower() in _BEFORE_A_NOUN  # "take | the bus"
                                    or second[0].lower() in CHOICE_VERBS and second[1].lower() in PREPOSITIONS)
    if (bare or own or objected) and not _in_ing(second[0]):
        after = next((k for k in range(len(first) - 2, 0, -1)
                      if first[k - 1] == "I" or first[k - 1].lower() in _SUBJECT_PRONOUNS | {"to"}), 0)
        after = after or modal_subject_end(first)  # "Should the city | build a new stadium"
        if after and first[after][:1].islower() and not _function(first[after].lower(), language):
            return _phrase_shared(first[:after], first[after:], second)
    if _in_ing(second[0]):
        at = next((k for k in range(len(first) - 2, 0, -1) if _in_ing(first[k])), 0)
        if at and first[at - 1].lower() not in _BEFORE_A_NOUN:
            if len(second) == 1 and any(w.lower() in PREPOSITIONS for w in first[at + 1 :]):
                return None  # "running in the morning or | evening": a noun of the phrase
            return _phrase_shared(first[:at], first[at:], second)
    return None


#: English modal verbs that open a question before its subject ("Should the city build …").
MODALS = frozenset("should could would can will must shall may might".split())
#: The forms of English "do" that open a question before its subject, as a modal does ("Does the kernel …").
DO = frozenset("do does did".split())
#: English determiners that open a subject of a few words after a modal ("the city", "my team").
_SUBJECT_DETERMINERS = frozenset("the my our your their his her its this that".split())


def modal_subject_end(words: list[str], auxiliaries: frozenset[str] = MODALS) -> int:
    """Where the verb after a modal and its subject is in an English question (``words``), 0 when it
    opens otherwise: after a modal (:data:`MODALS`), a determiner (:data:`_SUBJECT_DETERMINERS`) and
    its noun, or a name ("Should Apple"), the verb that an object's article, a pronoun or a
    preposition follows ("Should the city council | build a new stadium"), else the word after one
    noun ("Should my team | adopt TypeScript"): 3 in "Should the city build a new stadium", 2 in
    "Could Apple buy Intel"; the verb has an object after it (the words do not end with it). Of two
    words after a determiner's noun, the one English writes more often in "-ing" is the verb
    (:func:`engine.offline_subject_items.verb_evidence`: "Does the event loop | schedule tasks").
    ``auxiliaries``: the words that may open the question in a modal's place ("Does the kernel | schedule")."""
    low = [w.lower() for w in words]
    if len(low) < 4 or low[0] not in auxiliaries:
        return 0
    if words[1][:1].isupper() and words[1] != "I" and low[1] not in _SUBJECT_DETERMINERS:
        start = 2  # "Could Apple | buy Intel"
    elif low[1] in _SUBJECT_DETERMINERS:
        opening = _BEFORE_A_NOUN | _OBJECT_PRONOUNS | PREPOSITIONS
        start = next((k for k in range(3, len(low) - 1) if low[k + 1] in opening), 0)
        if start > 4:
            start = 3  # a subject of one or two nouns, no more
        if not start:  # "Does the event loop | schedule tasks": "scheduling" is written more than "looping"
            start = 4 if len(low) > 5 and verb_evidence(low[4]) > verb_evidence(low[3]) and words[4][:1].islower() else 3
    else:
        return 0
    word = words[start] if start < len(words) - 1 else ""
    return start if word[:1].islower() and not _function(word.lower(), "en") else 0


def _phrase_shared(prefix: list[str], item: list[str], second: list[str]) -> tuple[list[str], list[list[str]], list[str]]:
    """``(prefix, items, tail)`` of two English verb phrases (``item``, ``second``): a phrase that ends
    the second one and opens with a preposition other than "to", which a verb's place or infinitive
    may open ("going to the beach"), is every item's when the first has none ("rent an apartment or
    buy a house | in Berlin", "taking the train or flying | from Paris to Rome"); each keeps its own
    otherwise ("drive to work or take the bus"), as does a verb not in "-ing" whose phrase follows it
    ("adopt TypeScript or stay with JavaScript")."""
    first = 1 if _in_ing(second[0]) else 2  # "stay | with JavaScript": the verb's own phrase
    phrase = next((k for k in range(first, len(second)) if second[k].lower() in PREPOSITIONS - {"to"}), len(second))
    if any(w.lower() in PREPOSITIONS for w in item[1:]):
        phrase = len(second)
    return prefix, [item, second[:phrase]], second[phrase:]


def _in_ing(word: str) -> bool:
    """True when ``word`` reads as an English verb in "-ing": small letters, a vowel before the
    ending ("buying", "using"; not "king", "thing", "spring")."""
    low = word.lower()
    return (word[:1].islower() and low.endswith("ing") and any(ch in "aeiouy" for ch in low[:-3])
            and not _function(low, "en"))


def ones_written(items: list[list[str]], language: str) -> list[list[str]]:
    """``items`` with an English "one" after the first one written as the first item's noun: after an
    article and words ("buy a new one" after "repair my old laptop": "buy a new laptop"), its last
    word; right after a verb ("buy one" after "lease a car"), its words from its "a" or "an" ("buy a
    car"). A plural first item keeps "one", as does an item with no such noun."""
    if language != "en" or len(items) < 2:
        return items
    first = items[0]
    noun = first[-1]
    if len(first) < 2 or _function(noun.lower(), language) or is_plural([noun]) or HOLE.search(noun):
        return items
    article = next((k for k, w in enumerate(first) if w.lower() in _INDEFINITE), None)
    written = [items[0]]
    for item in items[1:]:
        if len(item) >= 2 and item[-1].lower() == "one":
            if any(w.lower() in _INDEFINITE for w in item[:-1]):
                item = [*item[:-1], noun]
            elif len(item) == 2 and article is not None:
                item = [item[0], *first[article:]]
        written.append(item)
    return written


def opener_in_small_letters(words: list[str], language: str) -> list[str]:
    """``words``, a list of items that opened a question and now follow a verb ("Der Zug oder das
    Flugzeug" after "Ist"), with the first word in small letters when only the start of the sentence
    capitalised it: an article ("der Zug", "the train", "l'avion"), or, outside German, a word in a
    capital and small letters when no later word but a function word opens with a capital ("coffee or
    tea", "solar panels or a battery"; "Python or Java" and "Rust or Go" keep theirs)."""
    if not words:
        return words
    first = words[0]
    low = first.lower()
    common = (language != "de" and first[:1].isupper() and first[1:].islower() and first.isalpha()
              and not any(w[:1].isupper() and not _function(w.lower(), language) for w in words[1:]))
    if low in ARTICLES.get(language, ARTICLES["en"]) or ELIDED_ARTICLE.match(low) or common:
        return [first[:1].lower() + first[1:], *words[1:]]
    return words
