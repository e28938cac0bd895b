"""Where and how a list is written in one question's clauses, for :func:`engine.offline_lists.listed_topics`.

:func:`items_listed` takes a question's clauses ("What are the costs", "risks", "benefits of solar
panels") and finds its listed items: where the first one starts in the first clause
(:func:`engine.offline_list_bounds.first_item_start`), how many words each one is (:func:`_listed_at`, :func:`_two_items`),
whether the words after the last one are asked of every item (:func:`engine.offline_list_bounds.shares_tail`); which words
next to the list each item owns is told by :mod:`engine.offline_item_words` (a noun the first one
leaves out, an article, a verb and its subject before the list, a later plural noun's own words);
each item is then written in the words around the list, an English auxiliary in the singular for a
singular item (:func:`engine.offline_item_words.agreeing`), as written when the item's noun comes after the list
("ground-source and air-source | heat pumps").
Items need not be as long as each other: the last one goes on to the verb the items share ("typing
protocols | work together") or as far as the earlier items' shape goes ("SQL Server", "guinea pigs",
"große Windräder": :func:`engine.offline_list_bounds.last_item_size`); a frame that only asks how the items relate ("How do …
interact", "… work together") gives each item alone (:func:`asks_only_to_compare`).
A two-item list that only asks how its items relate gives the first one all its words ("solar
panels", not "solar" shared: :func:`_items_whole`). Clauses of their own ("cancel tasks and handle
timeouts") give no items, nor a frame when they follow a subject of one word or an article and its
words (:func:`_verb_phrases`: "How does the event loop"). Adjectives listed before one noun share it
("small and large companies", "a good or bad idea": :func:`engine.offline_item_words.sharing_the_noun`).
A yes-or-no question that compares the items it opens with or follows a verb with ("Is | Python or
Java | faster") is asked of each item by :mod:`engine.offline_choice_order`; a Romance preposition
written as one word with an article ("del", "du") is joined to each item's own article by
:mod:`engine.offline_contractions`.
Quoted text and code stand as one word each while a brief is split (:data:`engine.offline_item_words.HOLE`).
"""

from __future__ import annotations

from engine.offline_choice_order import asked_yes_or_no, before_comparative, comparative_at, opens_with_items
from engine.offline_contractions import ELIDED_ARTICLE, contracted
from engine.offline_item_words import (  # noqa: F401 (HOLE is engine.offline_lists')
    COPULAS,
    DO,
    ELIDED,
    HOLE,
    MODALS,
    NOUN_ELLIPSIS,
    VERB_AFTER_SUBJECT,
    adjectives_of_one_noun,
    agreeing,
    article_is_the_first_items,
    article_item_start,
    first_item_reach,
    is_plural,
    modal_subject_end,
    ones_written,
    opener_in_small_letters,
    opens_noun_phrase,
    opens_tail,
    sharing_the_noun,
    verb_items,
    with_shared_noun,
)
from engine.offline_list_bounds import compound_tail, first_item_start, last_item_size, shares_tail
from engine.offline_list_words import (
    ADJECTIVES,
    ARTICLES,
    BEFORE_VERB,
    COMPARING,
    CORRELATIVES,
    GENITIVES,
    PREPOSITIONS,
    PRONOUNS,
    RANKING,
    REFLEXIVES,
    RELATING,
    TOGETHER,
    TOGETHER_VERBS,
    adverb,
    asks_how,
    opens_verb,
    together,
    together_verb,
)
from engine.offline_list_words import function_word as _function
from engine.offline_numerals import one_with_its_noun, sharing_the_unit
from engine.offline_subject_items import POSSESSIVES, shared_around
from engine.offline_text import content_words
from engine.segments import word_tokens


def items_listed(parts: list[str], language: str = "en") -> list[tuple[str, str]] | None:
    """``(question, frame)`` for each item of a question that lists items: whole questions ("What are the costs, risks and benefits of
    solar panels": each item in the first clause's place, with the phrase the last one carries when
    it is shared (:func:`engine.offline_list_bounds.shares_tail`)); each item alone when the question only asks to compare them
    (:func:`asks_only_to_compare`). An item is as long as the middle ones; with two items, one word
    after the articles the second one opens with ("les threads et les processus"; "l'espresso" for
    "le"), or the whole second clause when that one word's phrase is not shared and the clause has no
    function word ("heat pumps and solar panels") or items that open after an auxiliary
    (:func:`_two_items`). The items' words are found by :func:`_listed_at`.
    None when the later clauses are not items of a list (they are clauses of their own: "cancel
    tasks and handle timeouts", "read a file and write it back"); [] when they are, but the question's
    own words would be taken into an item (:func:`_takes_the_frame`). An item's frame is its question
    with the item's words left out ("How much noise do … make"): what is asked of every item; "" for
    an item alone."""
    first = parts[0].split()
    later = [p.split() for p in parts[1:]]
    lead = next((i for i, w in enumerate(later[0]) if _names(w, language)), len(later[0]))
    if lead == 1 and len(later[0]) > 1 and later[0][0][:1].isupper() and later[0][1][:1].isupper():
        lead = 0  # "Los Ángeles", "La Spezia", "Den Haag": an article in a name is the name's
    sizes = {len(m) for m in later[:-1]}
    if len(sizes) > 1 and not lead and all(_names(w, language) for m in later[:-1] for w in m):
        sizes = {min(sizes)}  # "inflation, interest rates, wages and …": nouns of their own, each whole
    # "Should I hire a designer or | do it myself": a verb phrase of function words names nothing; another
    # language's verb phrases before the adjectives of one noun ("Sollten wir | … migrieren oder unsere VMs behalten")
    verbs = shared_around(first, later[0], language) if len(later) == 1 else None  # "Can Python | read or write | …"
    if verbs is None and len(later) == 1 and (lead == len(later[0]) or language != "en"):
        verbs = verb_items(first, later[0], language)
    if (len(sizes) > 1 or lead == len(later[0])) and verbs is None:
        return None
    found = verbs or adjectives_of_one_noun(first, later, language)  # "kleine und große Unternehmen"
    if found is None and len(later) == 1:
        found = verb_items(first, later[0], language)  # "Should I | rent an apartment or buy"
    if found is None:
        found = _listed_at(first, later, sizes.pop() if sizes else lead + 1, lead, language)
        if found is None and len(later) == 1:
            found = _two_items(first, later[0], lead, language)
        if found is None:
            return None
        found = _items_whole(first, later, found, lead, language) or found
    prefix, items, tail = found
    items = sharing_the_noun(items, language)  # "small and large companies": "small companies"
    prefix, items = sharing_the_unit(prefix, items, language)  # "2.5 or 3.5 inch": "2.5 inch"
    items = ones_written(items, language)  # "lease a car or buy one": "buy a car"
    items, tail = one_with_its_noun(items, tail, language)  # "1 or 2 | cats": "1 cat", "2 cats"
    # a participle lists with participles ("compressed and encrypted"), not nouns; a name is none ("Memcached")
    if len({i[-1].lower().endswith("ed") and (i[-1][:1].islower() or i[-1] == parts[0].split()[0])
            for i in items}) > 1:
        return None
    # a German noun is capitalised: "Tasks ab" and "behandelt Timeouts" are clauses, not items
    if language == "de" and not verbs and len({
        i[-1][:1].isupper() or _function(i[0].lower(), language) or bool(HOLE.fullmatch(i[-1])) for i in items
    }) > 1:  # code ("wait_for", :data:`HOLE`) is a name, as a capitalised noun is; "große Windräder" ends in its noun
        return None
    if _takes_the_frame(items, language):
        return []  # a list, but where its items end cannot be told
    if asks_only_to_compare(" ".join([*prefix, "…", *tail])):  # "…": the items' place
        return [(" ".join(i), "") for i in items]
    own = _verb_phrases(prefix, tail, language, items)  # "How does asyncio | cancel tasks": clauses, no frame
    if not prefix and before_comparative(prefix, [*items[-1], *tail], len(items[-1]) - 1, language):
        words_ = opener_in_small_letters([w for i in items for w in i], language)  # "Der Zug": "Ist der Zug"
        return [asked_yes_or_no(i, tail, language) for i in [[words_[0], *items[0][1:]], *items[1:]]]  # "Il treno o l'aereo | è più veloce"
    joined = [contracted(prefix, i, language) for i in items]  # "del | el paracetamol": "del paracetamol"
    return [(" ".join([*agreeing(p, i, tail, language), *i, *tail]),
             "" if own else " ".join([*agreeing(p, i, tail, language), "…", *tail])) for p, i in joined]


def _auxiliary_before(prefix: list[str], language: str) -> int:
    """The index in ``prefix`` (the words before a list's first item) of its last English auxiliary
    (:data:`VERB_AFTER_SUBJECT`, :data:`COPULAS`), -1 when it has none or ``language`` is not English."""
    if language != "en":
        return -1
    return next((k for k in range(len(prefix) - 1, -1, -1)
                 if prefix[k].lower() in VERB_AFTER_SUBJECT | COPULAS), -1)


def _verb_phrases(prefix: list[str], tail: list[str], language: str, items: list[list[str]] | None = None) -> bool:
    """True when a list's items (no words after the last one, ``tail``) come right after the subject
    of an English auxiliary a verb follows (``prefix``): the items are verb phrases of that subject
    ("cancel tasks", "handle timeouts"), each a question of its own, which asks nothing of the
    others' frame. The subject is one word ("How does asyncio", "How can I"), or an article and
    words that are neither function words nor verbs that ask how ("How does the event loop", "How
    does the garbage collector"; not "the event loop handle": :data:`engine.offline_terms.QUESTION_VERBS`)
    before ``items`` of two words or more each, a verb and its object, not an adjective and its noun
    ("the event loop schedule | small tasks": :data:`engine.offline_list_words.ADJECTIVES`)."""
    from engine.offline_terms import QUESTION_VERBS

    aux = _auxiliary_before(prefix, language)
    if tail or aux < 0 or prefix[aux].lower() not in VERB_AFTER_SUBJECT:
        return False
    subject = prefix[aux + 1 :]
    if len(subject) == 1:
        return not _function(subject[0].lower(), language) or opens_verb(subject[0], PRONOUNS)
    return (
        len(subject) > 1
        and subject[0].lower() in ARTICLES["en"]
        and not any(_function(w.lower(), language) or w.lower() in QUESTION_VERBS or HOLE.fullmatch(w)
                    for w in subject[1:])
        and bool(items)
        and all(len(i) > 1 and not _function(i[0].lower(), language) and i[0].lower() not in ADJECTIVES["en"]
                for i in items or [])
    )


def _items_whole(
    first: list[str], later: list[list[str]], found: tuple[list[str], list[list[str]], list[str]], lead: int,
    language: str,
) -> tuple[list[str], list[list[str]], list[str]] | None:
    """``(prefix, items, tail)`` of a two-item list whose first item ``found`` (:func:`_listed_at`, the
    items' length a guess) cut short, leaving its first words (no function words) in the words before
    it, which would then be read as every item's. When the question only asks how the items relate or
    to compare them (:func:`asks_only_to_compare` of the words around them, those words left out, and
    they name a word of :data:`COMPARING`, :data:`RELATING` or :data:`TOGETHER`), the first item goes
    back to the last function word or verb of the frame ("work", "hängen": :data:`TOGETHER_VERBS`,
    :data:`engine.offline_terms.QUESTION_VERBS`, an English subject pronoun's verb: "Should I buy |
    solar panels and a battery together") before it: "How do | solar panels and batteries |
    work together", "What is the difference between | solar panels and batteries" give "solar panels"
    and "batteries", not "solar batteries"; nor after a name when those words hold the verb after an
    auxiliary and its subject ("Does the library | lend books or DVDs":
    :func:`engine.offline_item_words.modal_subject_end`). In English after a form of "be", both items are read again
    from the word after it (:func:`_listed_at`) when the guess cut the second one's noun off into the
    words after it, a plural, and a preposition ends them ("What are | wind turbine blades and solar
    panels | made of", not "solar | panels made of"). A frame that asks something of each item shares
    those words ("What are wind turbine blades and towers made of": "wind turbine towers"), as a list
    of three or more does, whose middle items tell where the first one starts ("How do asyncio tasks,
    threads and worker processes differ"). A first item in small letters after "do" or a modal and
    a second of one word keep their words apart ("How do | interest rates and inflation | affect
    house prices": :func:`_compound_before_a_noun`). None otherwise."""
    from engine.offline_terms import QUESTION_VERBS

    prefix, items, tail = found
    if len(later) != 1:
        return None  # the middle items' length tells where the first one starts
    framing = COMPARING | RELATING | TOGETHER | TOGETHER_VERBS | QUESTION_VERBS | REFLEXIVES
    start = next((k + 1 for k in range(len(prefix) - 1, -1, -1) if _function(prefix[k].lower(), language)
                  or prefix[k].lower() in framing or HOLE.fullmatch(prefix[k])
                  or language == "en" and k and opens_verb(prefix[k - 1], PRONOUNS)), 0)  # "Should I buy |"
    if not 0 < start < len(prefix):
        return None
    frame = " ".join([*prefix[:start], *tail])
    asks = {w.lower() for w in content_words(together(frame))} & (COMPARING | RELATING | TOGETHER)
    if asks and asks_only_to_compare(frame):  # "Hoe gedragen | … zich": "gedragen" is the frame's verb
        return prefix[:start], [[*prefix[start:], *items[0]], *items[1:]], tail
    if (language == "en" and _a_name_after_a_common_noun(items)  # "SQL injection and XSS": not "SQL XSS"
            and not start <= modal_subject_end([*prefix, *items[0]], MODALS | DO) < len(prefix)):
        return prefix[:start], [[*prefix[start:], *items[0]], *items[1:]], tail
    if language == "en" and _compound_before_a_noun(prefix, start, items, tail):  # "interest rates and inflation"
        return prefix[:start], [[*prefix[start:], *items[0]], *items[1:]], tail
    cut = (
        prefix[start - 1].lower() in COPULAS
        and _auxiliary_before(prefix, language) == start - 1
        and len(tail) > 1
        and tail[-1].lower() in PREPOSITIONS
        and tail[0][:1].islower()
        and is_plural(tail[:1])
    )
    return _listed_at(first, later, len(first) - start, lead, language) if cut else None


def _compound_before_a_noun(prefix: list[str], start: int, items: list[list[str]], tail: list[str]) -> bool:
    """True when two English ``items`` come right after an auxiliary a verb follows (``prefix[start -
    1]``: "How do | interest rates and inflation | affect house prices") and the second one is one
    word in small letters, and a verb follows them (``tail``): the first one's words before it
    (``prefix[start:]``, English words in small letters too) are its own compound ("interest
    rates", "exchange rates"), not every item's; a capitalised word or a name may be ("SQL queries
    and indexes": "SQL indexes"; "asyncio tasks and timeouts": "asyncio timeouts"), and a subject
    and its verb are ("Can dogs eat | grapes and raisins")."""
    from engine.language_evidence import used_in_english

    return (
        len(items) == 2
        and len(items[1]) == 1
        and prefix[start - 1].lower() in VERB_AFTER_SUBJECT
        and bool(tail)
        and not _function(tail[0].lower(), "en")
        and all(w[:1].islower() and used_in_english(w.lower()) for w in [*prefix[start:], *items[0], *items[1]])
    )


def _a_name_after_a_common_noun(items: list[list[str]]) -> bool:
    """True when the second of two English ``items`` is one capitalised word, a name ("XSS",
    "GraphQL"), after a first one whose last word is not ("injection"): a name takes no word of the
    first item ("SQL injection and XSS", "dependency injection and GraphQL"), as a common noun may
    ("SQL queries and indexes": "SQL indexes")."""
    return (
        len(items) == 2
        and len(items[1]) == 1
        and items[1][0][:1].isupper()
        and items[1][0] != "I"
        and not HOLE.fullmatch(items[1][0])
        and items[0][-1][:1].islower()
    )


def _names(word: str, language: str) -> bool:
    """True when ``word`` names something in a list: no function word, or one capital letter other
    than English "I" ("X, Y and Z", where Spanish "y" is one)."""
    return not _function(word.lower(), language) or (len(word) == 1 and word.isupper() and word != "I")


def asks_only_to_compare(frame: str) -> bool:
    """True when the words around a list (``frame``) name nothing but the asking to compare ("How do …
    compare", "What is the difference between …", "Wie unterscheiden sich …", "…有什么区别": words
    of :data:`COMPARING`) or how the items relate ("How do … interact", "How do … work together",
    "Wie hängen … zusammen", "Can … run together": :data:`RELATING`, :data:`TOGETHER` and the verb
    beside it, :func:`engine.offline_list_words.together_verb`), or there is
    no frame: each listed item is then a topic on its own. A verb
    that asks how ("How do … work", "Come funzionano …", "Wie funktionieren …") or what to do with
    each ("How do I use …") is asked of each item, as is a frame of function words alone ("Is this
    … or …")."""
    from engine.offline_terms import QUESTION_VERBS

    named = [w for w in content_words(together(frame)) if not HOLE.fullmatch(w)]
    if TOGETHER.intersection(named):  # "work together", "hängen zusammen": the verb asks how they relate
        tokens = [t for t in together(frame).lower().split() if t != "…"]  # "run … together": the items between
        verbs = {w for k, w in enumerate(tokens) if together_verb(w) and asks_how(tokens, k)}  # "run (well) together"
        named = [w for w in named if w not in TOGETHER_VERBS | QUESTION_VERBS | verbs and (not adverb(w) or w in TOGETHER)]
    if COMPARING.intersection(w.lower() for w in named):  # "the main differences between": ranked, still compared
        named = [w for w in named if w.lower() not in RANKING]
    if [w for w in named if w not in COMPARING | RELATING | TOGETHER and w not in REFLEXIVES]:  # "zich" is the verb's
        return False
    return bool(named) or not [w for w in word_tokens(frame) if any(ch.isalpha() for ch in w)]


def _takes_the_frame(items: list[list[str]], language: str) -> bool:
    """True when the first of ``items`` (each a list of words) opens with a word a verb or subject
    follows (:data:`BEFORE_VERB`: "do", "are", "to") that the next item does not open with, or an
    item ends with one: the question's own words taken into an item, where the items are of
    different lengths ("How | do daemon threads and the main thread | behave", "What do | the main
    thread and daemon threads do | at exit"). A word in capitals is a name, no such word ("the EU or
    the US": not Portuguese "eu", nor "us"), and a subject pronoun before another subject is an item
    ("Should | we or they | pay", "Do | you or your partner | pay")."""
    first, second = items[0][0].lower(), items[1][0].lower()
    name = len(items[0]) > 1 and all(w[:1].isupper() for w in items[0]) or len(items[0][0]) > 1 and items[0][0].isupper()
    if language == "en" and len(items[0]) == 1 and first in PRONOUNS and (
            second in PRONOUNS | {"i"} or second in POSSESSIVES):
        return False  # "we or they", "you or your partner": subjects listed
    # "São Paulo": no verb "são"; a word in capitals is a name too ("the EU": no pronoun "eu", "US" no "us")
    return (first in BEFORE_VERB and first != second and not name) or any(
        i[-1].lower() in BEFORE_VERB and not (len(i[-1]) > 1 and i[-1].isupper()) for i in items)


def _two_items(
    first: list[str], second: list[str], lead: int, language: str
) -> tuple[list[str], list[list[str]], list[str]] | None:
    """:func:`_listed_at` for two items whose words a one-word item leaves unshared: items that open
    right after an auxiliary, a subject pronoun or "to" (:data:`BEFORE_VERB`), as long as the first
    clause's words from there, the second clause at least as long ("Do | heat pumps or gas boilers
    cost more", "How do | solar panels and wind turbines work", "Should I | rent an apartment or buy
    a house in Berlin"; when the second item would take an English preposition, both are as long as
    the second one's words before it: "Should I buy | a battery or solar panels | for my house"), else the
    whole second clause when it has no function word ("heat pumps and solar panels")."""
    after = next((k for k in range(len(first) - 1, 0, -1) if opens_verb(first[k - 1], BEFORE_VERB)), 0)
    found = None
    if after and len(first) - after <= len(second):
        found = _listed_at(first, [second], len(first) - after, lead, language)
    def preposition(word: str) -> bool:  # English: "do" is Portuguese's preposition, English's auxiliary
        return word.lower() in PREPOSITIONS and word.lower() not in VERB_AFTER_SUBJECT | COPULAS

    if language == "en" and found is not None and any(preposition(w) for w in found[1][-1][1:]):
        # "Should I | buy a battery or solar panels for | my house": the second item ends before its
        # phrase, and the first is as long ("a battery", "solar panels")
        noun = next((k for k, w in enumerate(second) if preposition(w)), 0)
        found = _listed_at(first, [second], noun, lead, language) if noun > lead else None
    if found is not None and after and language == "en" and len(found[0]) == after and opens_verb(first[after - 1], PRONOUNS | {"i"}):
        found = _verb_shared(found)
    if found is None and not any(_function(w.lower(), language) for w in second):
        return _listed_at(first, [second], len(second), lead, language)
    if found is None and language == "en":
        # "a heat pump and | solar panels in Germany", "electric cars and | petrol cars in the UK": the
        # second item ends before its preposition, the phrase every item's, the first is as long
        noun = next((k for k, w in enumerate(second) if preposition(w)), 0)
        if noun > lead + 1 and not any(_function(w.lower(), language) for w in second[lead:noun]):
            found = _listed_at(first, [second], noun, lead, language)
        if found is not None and not (found[0] and (found[0][-1].islower() and _function(found[0][-1], language)
                                                    or found[1][0][0].lower() in ARTICLES["en"])):
            found = None  # the first item opens no noun phrase ("ctypes provides C compatible | data types")
    return found


def _verb_shared(
    found: tuple[list[str], list[list[str]], list[str]],
) -> tuple[list[str], list[list[str]], list[str]]:
    """``found`` (``(prefix, items, tail)`` of two English items right after a subject pronoun, the
    first one opening with its verb: "How do I | make pancakes and waffles quickly") with that verb
    every item's when the second item opens with a plural noun, which no verb after "I", "we" or
    "they" is ("waffles"), or is words that are no function words, more than one and fewer than the
    first item's ("fix memory leaks and | race conditions"), its adverbs at the end every item's too
    ("How do I make | pancakes and waffles | quickly"); as it is otherwise ("Should I | rent an
    apartment or buy a house")."""
    prefix, items, tail = found
    first, last = items[0], items[-1]
    end = len(last)
    while end > 1 and adverb(last[end - 1]):
        end -= 1
    nouns = 1 < end < len(first) and not any(_function(w.lower(), "en") or HOLE.fullmatch(w) for w in last[:end])
    if len(first) < 2 or len(items) != 2 or not (is_plural(last[:1]) or nouns):
        return found
    return [*prefix, first[0]], [first[1:], last[:end]], [*last[end:], *tail]


def _listed_at(
    first: list[str], later: list[list[str]], size: int, lead: int, language: str
) -> tuple[list[str], list[list[str]], list[str]] | None:
    """``(prefix, items, tail)`` of a list whose items are ``size`` words long (the second one's
    first ``lead`` words function words): the first clause's words (``first``) before its item, each
    item's words, and the words after the last item. A first item with a phrase of its own ("des
    pompes à chaleur") shares none, nor does a last one when every item is a noun phrase of its own
    (:func:`opens_noun_phrase`: "le café infusé à froid") and its words neither open with "of" or
    the like (:data:`GENITIVES`), nor end with a preposition, nor open with a verb that asks how; a
    last item that opens with an English article takes the words after it when they are no function
    words and not shared ("or | a message queue", "a battery first"). An item that leaves out the
    first one's noun gets it back (:func:`engine.offline_item_words.with_shared_noun`); "either" and "both" before
    the first item are left out (:data:`CORRELATIVES`). Before a later item that opens with an English
    article, the first one starts after a subject pronoun and its verb, or at a preposition after the
    article ("Should I buy | solar panels", "a heat pump with | solar panels":
    :func:`engine.offline_item_words.article_item_start`); an "a" before the first item is its own when a later one
    is a plural (:func:`engine.offline_item_words.article_is_the_first_items`), and so are the words before it that a
    later plural noun does not share ("heat | pumps, batteries": :func:`engine.offline_item_words.first_item_reach`).
    After an English "is" or "are" that opens the question, the last item ends before a comparative
    (:func:`engine.offline_choice_order.before_comparative`: "Is | a heat pump or a gas boiler | more efficient"). None when ``tail`` is not
    shared (:func:`engine.offline_list_bounds.shares_tail`) or an item has no letter nor digit ("50%" is an item, "+" none)."""
    start = first_item_start(first, later[0][0].lower() if lead else "", size, language)
    nouns = all(_names(w, language) for m in later[:-1] for w in m)
    if nouns and not lead and 0 <= start < len(first) - 1 and opens_verb(first[start], BEFORE_VERB - PRONOUNS):
        start += 1  # "How do | inflation, interest rates and …": the auxiliary is no item's
    if start < 0:
        return None
    if (0 < start < len(first) and ELIDED_ARTICLE.match(later[0][0].lower())
            and first[start - 1].lower() in ARTICLES.get(language, ())):
        start -= 1  # "le | train ou l'avion": the article is the first item's as the elided one is the second's
    if lead and later[0][0].lower() in ARTICLES["en"]:
        start = article_item_start(first, start, later, language)  # "Should I buy | solar panels, a battery"
    if (language == "en" and lead and later[0][0].lower() in ARTICLES["en"] and start < len(first) - 1
            and first[start].lower() in VERB_AFTER_SUBJECT | COPULAS):
        start += 1  # "How do | daemon threads and the main thread behave": the auxiliary is every item's
    if len(first) - start > 1 and first[start].lower() in REFLEXIVES:  # "sich | Wärmepumpen": the verb's
        start += 1
        size = min(size, len(first) - start)
    prefix, item = first[:start], first[start:]
    own = PREPOSITIONS - ARTICLES.get(language, frozenset())
    if len(item) > 1 and item[0].lower() in own - BEFORE_VERB and all(m[0].lower() not in own for m in later):
        # "heat with | gas or a heat pump", "mit | Gas oder einer Wärmepumpe": the verb's, asked of every
        # item; not where a later item has its own ("delle pompe e dei pannelli"), nor "to", which may
        # open an infinitive (a verb after the list would be read as every item's)
        prefix, item = [*prefix, item[0]], item[1:]
    if article_is_the_first_items(prefix, later, language):  # "of a | wind turbine versus solar panels"
        prefix, item = prefix[:-1], [prefix[-1], *item]
    if reach := first_item_reach(prefix, item, later, language):  # "do | heat pumps, batteries and …"
        prefix, item = prefix[:-reach], [*prefix[-reach:], *item]
    if prefix and opens_with_items(first, later, lead, language):  # "A heat pump or a gas boiler | is cheaper"
        prefix, item = [], first
    own_phrase = any(w.lower() in PREPOSITIONS for w in item[1:]) and not (
        not prefix and before_comparative(prefix, later[-1], lead, language))  # "Une pompe à chaleur ou …"
    # a last item that opens with more function words than the others is as much longer ("de | los tiempos")
    last_lead = next((k for k, w in enumerate(later[-1]) if not _function(w.lower(), language)), 0)
    size_last = size + max(0, last_lead - lead) if len(later) > 1 else size
    if not own_phrase:
        subject = bool(prefix) and opens_verb(prefix[-1], BEFORE_VERB)
        size_last = last_item_size(later[-1], size_last, [item, *later[:-1]], start, subject, language)
        if size_last >= len(later[-1]) > 1 and language == "en" and prefix[-1:] and prefix[-1].lower() in VERB_AFTER_SUBJECT:
            size_last = len(later[-1]) - 1  # "How much do | solar panels and batteries | cost": the verb is every item's
        size_last = before_comparative(prefix, later[-1], lead, language) or size_last
    last = later[-1] if own_phrase else later[-1][:size_last]
    tail = [] if own_phrase else later[-1][size_last:]
    items = [item, *later[:-1], last]
    if (
        tail
        and (tail[0].lower() not in GENITIVES or compound_tail(tail, language))
        and tail[-1].lower() not in PREPOSITIONS
        and not asks_how(tail, 0)
        and tail[0].lower() not in TOGETHER
        and all(opens_noun_phrase(i, language) for i in items)
        and not (language == "en" and comparative_at(tail, 0))
        and not ((language != "en" or not prefix) and before_comparative(prefix, later[-1], lead, language))
        and not (language == "en" and prefix and (prefix[-1].lower() in VERB_AFTER_SUBJECT
                                                  or prefix == first[:1] and prefix[0].lower() in COPULAS))
    ):  # "Should | the city or the state | pay for it", "Is | … responsible": subjects share what follows
        items[-1], tail = later[-1], []  # "le café infusé à froid": the last item's own words
    items = with_shared_noun(items, language)
    if prefix and prefix[-1].lower() in CORRELATIVES:  # "either A or B": "A", "B"
        prefix = prefix[:-1]
    if (tail and language == "en" and items[-1][0].lower() in ARTICLES["en"]
            and not any(_function(w.lower(), language) for w in tail) and not shares_tail(prefix, tail, items)):
        items[-1], tail = later[-1], []  # "or | a message queue", "a battery first": the item's own words
    if (language == "en" and tail and prefix and prefix[-1].lower() in PREPOSITIONS - ARTICLES["en"]
            and not any(_function(w.lower(), language) or HOLE.fullmatch(w) for w in tail)
            and not shares_tail(prefix, tail, items)):
        items[-1], tail = later[-1], []  # "of coffee, tea and energy | drinks": a preposition's objects share no
        # verb; a German one after them ("mit Gas oder einer Wärmepumpe | heizen") is every item's
    compared = ((language != "en" or not prefix) and bool(tail)
                and before_comparative(prefix, later[-1], lead, language) > 0)
    if not (shares_tail(prefix, tail, items) or compared) or not all(
        any(ch.isalnum() for ch in " ".join(i)) for i in items
    ):
        return None
    return prefix, items, tail
