"""How the offline model finds the items of a question that lists things, for one sub-question each.

"A, B and C" is one sub-question per item, in the words around the list (:func:`listed_topics`),
whatever joins the last item: "and", "or", "and/or", "as well as", German "und", "oder", "sowie",
French "et", "ou", Spanish "y", "e", "o", "u", Italian "e", "ed", "o", "oppure", Portuguese "e",
"ou", Dutch "en", "of" (:data:`JOINS`, :data:`OWN_JOINS`), Chinese "、", "和", "与", "及", "或",
"还是" and Japanese "と", "や", "または" (:data:`_CJK_AND`). An alternative question is a list like
any other: "Is it better to rent or buy?" is researched as "Is it better to rent" and "Is it better
to buy", each alternative on its own, so the report sets out what the sources say of each.

What only looks like a list is not split: quoted text, code and anything in brackets (:data:`_SPAN`,
:data:`_CODE_SPAN`), set phrases ("one or more", "more or less": :data:`SET_PHRASES`), two
capitalised words joined by "and" that the brief does not ask to compare ("Romeo and Juliet",
"Procter and Gamble": :data:`_NAME_PAIR`), and clauses of their own ("cancel tasks and handle
timeouts": items must be parallel, :func:`_items_listed`). A later item that leaves out the first
one's noun gets it back (:func:`_with_shared_noun`); a clause that opens with a preposition qualifies
the one before it (:data:`QUALIFIER_OPENERS`). Symbols and emoji written apart are no words: they
are taken out while the brief is split and put back with their item's words (:func:`engine.offline_list_symbols.without_symbols`).
A split gives every item with the whole frame around the list, or the question is researched whole.
"""

from __future__ import annotations

import functools
import re

from engine.language import _CODE, has_segmented_script, word_tokens, words
from engine.language import _INTERROGATIVES as _ASKING
from engine.offline_list_symbols import with_symbols as _with_symbols
from engine.offline_list_symbols import without_symbols as _without_symbols
from engine.offline_list_words import (
    ARTICLES,
    BARE,
    BEFORE_VERB,
    CHOOSING,
    COMPARING,
    CORRELATIVES,
    GENITIVES,
    JOINS,
    NOUN_ENDINGS,
    NUMBERS,
    OWN_JOINS,
    PREPOSITIONS,
    PRONOUNS,
    QUALIFIER_OPENERS,
    REFLEXIVES,
    SET_PHRASES,
    SUBJECTS,
)
from engine.offline_list_words import function_word as _function
from engine.offline_lists_cjk import cjk_items as _cjk_items
from engine.offline_lists_cjk import korean_clauses
from engine.offline_text import _AUXILIARIES, _ENDS, _INTERROGATIVES, STOPWORDS, content_words


@functools.cache
def _clause(language: str) -> re.Pattern[str]:
    """Where a brief in ``language`` splits into clauses and items (:data:`JOINS`, and
    :data:`OWN_JOINS` of ``language``), the longest join first ("and/or" before "and"), never inside
    brackets or parentheses ("the interval [0, 1]")."""
    joins = sorted({*JOINS, *OWN_JOINS.get(language, ())}, key=len, reverse=True)
    return re.compile(rf"({'|'.join(map(re.escape, joins))})(?![^\[\](){{}}]*[\])}}])")


#: Quoted text and code in a brief, each kept whole when it is split: "…", '…', `…`, “…”, „…“, ”…”, «…»,
#: ‹…›, 「…」, 『…』 (an apostrophe inside a word, "doesn't", "l'énergie", opens none).
_SPAN = re.compile(
    r"(`+).+?\1|\"[^\"]*\"|“[^”]*”|„[^“”]*[“”]|”[^”]*”|«[^»]*»|‹[^›]*›|「[^」]*」|『[^』]*』|(?<!\w)'[^']+'(?!\w)"
)
#: A group in brackets or parentheses, one level of nesting inside ("(a, b)", "[0, 1]", "([a, b], axis=0)").
_GROUP = r"[(\[{][^()\[\]{}]*(?:[(\[{][^()\[\]{}]*[)\]}][^()\[\]{}]*)*[)\]}]"
#: Code in a brief, kept whole like quoted text: an identifier (:data:`engine.language._CODE`:
#: "os.path.join", "snake_case") with the group that follows it, and any name or nothing followed by a
#: group ("f(x, y)", "dict[str, int]", "(a, b)").
_CODE_SPAN = re.compile(rf"(?:{_CODE.pattern})(?:{_GROUP})?|\w*{_GROUP}", re.DOTALL)
#: What stands for the n-th span of :data:`_SPAN` while a brief is split: one word, no separator.
_HOLE = re.compile(r"qqspan(\d+)qq")


def listed_topics(text: str, language: str = "en") -> list[str]:
    """The sub-questions of ``text`` (one brief, the thread's talk already cut off) when it asks
    about several things: one per clause or listed item (:func:`_questions`, :func:`_group_topics`;
    :func:`_cjk_items` in Chinese or Japanese), quoted text and code restored whole, each once, in
    order; fewer than two when it asks about one thing."""
    spans: list[str] = []

    def hole(m: re.Match) -> str:
        spans.append(m.group(0))
        return f"qqspan{len(spans) - 1}qq"

    text, symbols = _without_symbols(text, language)
    quoted = _SPAN.sub(hole, text).replace(" and/or ", " and ")  # "and/or" is no code (:data:`_CODE`)
    masked = SET_PHRASES.sub(hole, _CODE_SPAN.sub(hole, quoted))
    if not COMPARING.intersection(words(masked)):
        masked = _NAME_PAIR.sub(hole, masked)
    found = _cjk_items(masked) if has_segmented_script(masked) else None
    if found is None:
        grouped = [_group_topics(group, language) for group in _questions(masked, language)]
        if any(topics is None for topics in grouped):
            return []  # a question whose items cannot be told apart is researched whole
        found = [t for topics in grouped for t in topics]
    if len(found) < 2:
        return found
    restored = [_HOLE.sub(lambda m: spans[int(m.group(1))], t) for t in found]
    return list(dict.fromkeys(_with_symbols(restored, symbols)))


def _questions(text: str, language: str = "en") -> list[list[str]]:
    """The clauses of ``text`` (:func:`_clause`), grouped into the questions it asks: a clause after a
    semicolon or a line break, or one that opens with a question word (:data:`_INTERROGATIVES`, and
    those of ``language``: :data:`engine.language._INTERROGATIVES`), or a yes-or-no question (:func:`_asks_yes_or_no`), starts a question; the others
    continue the one before (its list, or its head)."""
    asking = _INTERROGATIVES | set(_ASKING.get(language, "").split())
    pieces = _clause(language).split(_choice_as_clause(text))
    groups: list[list[str]] = []
    new = True
    for i, piece in enumerate(pieces):
        if i % 2:  # a separator
            new = new or piece in (";", "\n")
            continue
        part = piece.strip(_ENDS)
        if not part or not _names_something(part, language):
            continue
        opener = part.split()[0].lower()
        if groups and not new and _asks_which_of_them(part):
            continue  # "Postgres or MySQL, which is better": the things to choose among
        if groups and opener in QUALIFIER_OPENERS and not new:
            groups[-1][-1] = f"{groups[-1][-1]}, {part}"
            continue
        if new or not groups or opener in asking or _asks_yes_or_no(part):
            groups.append([part])
        else:
            groups[-1].append(part)
        new = False
    return groups


#: A colon or dash next to a clause that asks which to choose ("A or B: which is better", "Which is
#: better – A or B"), which parts it from the items as a comma does.
_CHOICE_MARK = re.compile(r"\s*(?::|\s[-–—])\s+")


def _choice_as_clause(text: str) -> str:
    """``text`` with a colon or dash (:data:`_CHOICE_MARK`) before or after a clause that only asks
    which of the listed items to choose (:func:`_asks_which_of_them`) written as a comma: "Postgres or
    MySQL: which is better" reads as "Postgres or MySQL, which is better"."""
    parts = _CHOICE_MARK.split(text)
    if len(parts) != 2:
        return text
    before, after = parts
    if _asks_which_of_them(after.strip(_ENDS)) or _asks_which_of_them(before.strip(_ENDS)):
        return f"{before}, {after}"
    return text


def _names_something(part: str, language: str = "en") -> bool:
    """True when ``part`` (a clause or listed item) names something: a content word
    (:func:`engine.offline_text.content_words`), or a word with a letter that is no function word
    ("C++", "C#") or one capital letter ("C", "R"), names whose words are too short to count."""
    return bool(content_words(part)) or any(
        any(ch.isalpha() for ch in token)
        and (not _function(token.lower(), language) or (len(token) == 1 and token.isupper()))
        for token in part.split()
    )


def _asks_which_of_them(clause: str) -> bool:
    """True when ``clause``, after a list, only asks which of its items to choose: it opens with a
    word of :data:`CHOOSING` and names at most one thing besides "one" ("which is better", "which
    one is faster"), not a question of its own ("which has better replication")."""
    tokens = clause.lower().split()
    return bool(tokens) and tokens[0] in CHOOSING and len([w for w in content_words(clause) if w != "one"]) <= 1


def _asks_yes_or_no(clause: str) -> bool:
    """True when ``clause`` opens with an auxiliary and a pronoun ("are they safe", "does it scale",
    :data:`engine.offline_list_words.SUBJECTS`): a question of its own after "and", not an item of
    the list before it."""
    opening = clause.lower().split()[:2]
    return len(opening) == 2 and opening[0] in _AUXILIARIES and opening[1] in PRONOUNS | SUBJECTS


def _group_topics(parts: list[str], language: str = "en") -> list[str] | None:
    """The topics of one question's clauses: one per listed item (:func:`_items_listed`; the items
    alone after a question that asks to choose among them, :data:`CHOOSING`), else each clause, a
    short later one continuing the first one's head (:func:`_question_head`). None when the items of
    a list cannot be told apart (:func:`_takes_the_frame`: "What do the main thread and daemon
    threads do at exit"), or they are compared (:data:`COMPARING`) but not as a list, or a later clause that gives no listed item opens with an article
    (:data:`ARTICLES`): a noun phrase whose verb the items share ("How do daemon threads and the
    main thread behave"); the question is then researched whole."""
    if len(parts) < 2:
        return parts
    parts = korean_clauses(parts)  # "작업을 취소하고, 타임아웃을 처리합니까": whole clauses, or None
    if parts is None:
        return None
    opening = parts[0].lower().split()
    choosing = opening[0] in CHOOSING and (opening[1:2] and opening[1] in _AUXILIARIES or _asks_which_of_them(parts[0]))
    if len(parts) > 2 and len(opening) > 1 and choosing and not _continues_first(parts, language):
        return parts[1:]  # "Which is faster, Python or Java": the things to choose among
    listed = _items_listed(parts, language)
    if listed is not None:
        return listed or None
    if COMPARING.intersection(w.lower() for w in parts[0].split()):
        return None  # "Waarom verschillen warmtepompen en cv-ketels zo sterk": one comparison, not two clauses
    articles = ARTICLES.get(language, ARTICLES["en"])
    if any(p.split()[0].lower() in articles for p in parts[1:]):
        return None
    short = [p for p in parts[1:] if len(content_words(p)) < 3]
    if any(not _PLAIN_WORD.fullmatch(p.split()[0]) or not content_words(p.split()[0]) for p in short):
        return None  # "What does $VAR, \cmd, #tag and 50% mean": no verb of its own to continue the head with

    def continued(p: str) -> str:  # "handle timeouts" -> "How does asyncio handle timeouts"
        return _continued(parts[0], p, language)

    return [p if len(content_words(p)) >= 3 or i == 0 else continued(p) for i, p in enumerate(parts)]


#: A word of letters alone (a hyphen or an apostrophe inside), which a clause's verb is: "\cmd", "#tag",
#: "$VAR" and "50%" are none.
_PLAIN_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")


def _continues_first(parts: list[str], language: str = "en") -> bool:
    """True when the later ``parts`` (a question's clauses) each open with a function word the first
    one has or a preposition that says whose ("dei"), its first item's opening ("Which are the advantages of TaskGroup, of wait_for and of
    timeouts", "Cuáles son las ventajas de TaskGroup, de wait_for y de…"): items of a list that starts
    in the first clause, not things to choose among after it ("Which is faster, Python or Java")."""
    first = {w.lower() for w in parts[0].split()[1:]}
    openers = [p.split()[0].lower() for p in parts[1:]]
    return all(_function(w, language) and (w in first or w in GENITIVES) for w in openers)


#: Two capitalised words joined by "and" inside a sentence ("Romeo and Juliet", "Procter and Gamble"):
#: most often one name, kept whole unless the brief asks to compare (:data:`COMPARING`: "How do
#: Python and Java compare"). Not after a comma (the end of a longer list) nor at the start.
_NAME_PAIR = re.compile(r"(?<=[^\W\d_] )(?<![A-Z]\w )[A-Z][a-z]+ (?:and|und|et|y|e|en|&) [A-Z][a-z]+(?!\w)")


def _asks_only_to_compare(frame: str) -> bool:
    """True when the words around a list (``frame``) name nothing but the asking to compare ("How do …
    compare", "What is the difference between …", "Wie unterscheiden sich …", "…有什么区别": words
    of :data:`COMPARING`), or there is no frame: each listed item is then a topic on its own. A verb
    that asks how ("How do … work", "Come funzionano …", "Wie funktionieren …") or what to do with
    each ("How do I use …") is asked of each item, as is a frame of function words alone ("Is this
    … or …")."""
    named = [w for w in content_words(frame) if not _HOLE.fullmatch(w)]
    if [w for w in named if w not in COMPARING and w not in REFLEXIVES]:  # "zich" is the verb's
        return False
    return bool(named) or not [w for w in word_tokens(frame) if any(ch.isalpha() for ch in w)]


def _opens_verb(word: str, before: frozenset[str]) -> bool:
    """True when a verb or subject follows ``word`` as written: English "I", or a word of ``before``
    (:data:`PRONOUNS`, :data:`BEFORE_VERB`) in any case."""
    return word == "I" or word.lower() in before


#: Languages whose lists leave out the noun an item shares with the first one ("la energía solar, la
#: eólica": "la energía eólica"), an adjective following its noun.
_NOUN_ELLIPSIS = frozenset("es fr it pt ca".split())
#: A word that opens with an elided article or preposition ("l'espresso", "d'eau", "dell'acqua").
_ELIDED = re.compile(r"(\w+)['’]\w")


def _opens_noun_phrase(item: list[str], language: str = "en") -> bool:
    """True when ``item`` (its words) is a noun phrase of its own: an article or other function word
    (:func:`_function` of ``language``) and then a word that is none ("le café filtre"), or a word with
    an elided article ("l'espresso")."""
    elided = _ELIDED.match(item[0])
    if elided:
        return _function(elided.group(1).lower(), language)
    lead = next((k for k, w in enumerate(item) if not _function(w.lower(), language)), len(item))
    return 1 <= lead < len(item)  # "le café filtre", "de los tiempos"


def _with_shared_noun(items: list[list[str]], language: str) -> list[list[str]]:
    """``items`` with the noun of the first item given back to a later one that leaves it out, in a
    language whose adjectives follow their noun (:data:`_NOUN_ELLIPSIS`): after "la energía solar"
    (article, noun, one word), "la eólica" (the same article, one word) is "la energía eólica"; "los
    aerogeneradores", a word with a noun's ending (:data:`NOUN_ENDINGS`), stays as written."""
    first = [w.lower() for w in items[0]]
    if (
        language not in _NOUN_ELLIPSIS
        or len(first) != 3
        or not _opens_noun_phrase(items[0], language)
        or _function(first[2], language)
    ):
        return items
    return [
        [i[0], items[0][1], i[1]]
        if len(i) == 2
        and i[0].lower() == first[0]
        and not _function(i[1].lower(), language)
        and not NOUN_ENDINGS.search(i[1].lower())
        else i
        for i in items
    ]


def _items_listed(parts: list[str], language: str = "en") -> list[str] | None:
    """Whole questions for a question that lists items ("What are the costs, risks and benefits of
    solar panels": each item in the first clause's place, with the phrase the last one carries when
    it is shared (:func:`_shares_tail`)); each item alone when the question only asks to compare them
    (:func:`_asks_only_to_compare`). An item is as long as the middle ones; with two items, one word
    after the articles the second one opens with ("les threads et les processus"; "l'espresso" for
    "le"), or the whole second clause when that one word's phrase is not shared and the clause has no
    function word ("heat pumps and solar panels") or items that open after an auxiliary
    (:func:`_two_items`). The items' words are found by :func:`_listed_at`.
    None when the later clauses are not items of a list (they are clauses of their own: "cancel
    tasks and handle timeouts", "read a file and write it back"); [] when they are, but the question's
    own words would be taken into an item (:func:`_takes_the_frame`)."""
    first = parts[0].split()
    later = [p.split() for p in parts[1:]]
    lead = next((i for i, w in enumerate(later[0]) if not _function(w.lower(), language)), len(later[0]))
    sizes = {len(m) for m in later[:-1]}
    if len(sizes) > 1 or lead == len(later[0]):
        return None
    found = _listed_at(first, later, sizes.pop() if sizes else lead + 1, lead, language)
    if found is None and len(later) == 1:
        found = _two_items(first, later[0], lead, language)
    if found is None:
        return None
    prefix, items, tail = found
    # a participle lists with participles ("compressed and encrypted"), not nouns
    if len({i[-1].lower().endswith("ed") for i in items}) > 1:
        return None
    # a German noun is capitalised: "Tasks ab" and "behandelt Timeouts" are clauses, not items
    if language == "de" and len({
        i[0][:1].isupper() or _function(i[0].lower(), language) or bool(_HOLE.fullmatch(i[0])) for i in items
    }) > 1:  # code ("wait_for", :data:`_HOLE`) is a name, as a capitalised noun is
        return None
    if _takes_the_frame(items, language):
        return []  # a list, but where its items end cannot be told
    if _asks_only_to_compare(" ".join(prefix + tail)):
        return [" ".join(i) for i in items]
    return [" ".join([*_agreeing(prefix, i, language), *i, *tail]) for i in items]


def _plural(item: list[str]) -> bool:
    """True when the English noun phrase ``item`` (its words) is plural by its last word (see :func:`_agreeing`)."""
    last = re.sub(r"\W+$", "", item[-1]) or item[-1]  # '"double quotes"': quotes
    if re.fullmatch(r"[A-Z0-9]+s", last):  # "GPUs", "LLMs"
        return True
    if not last.lower().endswith("s") or last.lower().endswith(("ss", "us", "is")):
        return False
    return not (last[:1].isupper() or any(ch.isdigit() for ch in last)) or len(item) > 1


#: An English auxiliary a list's items shared in the plural, and its singular ("How do Kafka and
#: RabbitMQ work": "How does Kafka work").
_SINGULAR = {"do": "does", "are": "is", "have": "has", "were": "was"}


def _agreeing(prefix: list[str], item: list[str], language: str) -> list[str]:
    """``prefix`` (the words before a listed item) with its last word, an English plural auxiliary
    (:data:`_SINGULAR`), in the singular when ``item`` alone is singular: a name (capitalised, in
    capitals or with a digit: "Kafka", "RAG", "Kubernetes") or a last word without a plural "-s"
    ("coffee", "glass", "analysis"). Capitals with a plural "s" ("GPUs", "LLMs") and a name of
    several words ending in one ("Solar Panels") are plural. Other languages' verbs are left as written."""
    if language != "en" or not prefix or prefix[-1].lower() not in _SINGULAR or not item or _HOLE.search(item[-1]):
        return prefix  # a quoted or code span (:data:`_HOLE`) is left with the verb as asked
    if _plural(item):
        return prefix
    singular = _SINGULAR[prefix[-1].lower()]
    return [*prefix[:-1], singular.capitalize() if prefix[-1][:1].isupper() else singular]


def _takes_the_frame(items: list[list[str]], language: str) -> bool:
    """True when the first of ``items`` (each a list of words) opens with a word a verb or subject
    follows (:data:`BEFORE_VERB`: "do", "are", "to") that the next item does not open with, or an
    item ends with one: the question's own words taken into an item, where the items are of
    different lengths ("How | do daemon threads and the main thread | behave", "What do | the main
    thread and daemon threads do | at exit")."""
    first, second = items[0][0].lower(), items[1][0].lower()
    return (first in BEFORE_VERB and first != second) or any(i[-1].lower() in BEFORE_VERB for i in items)


def _two_items(
    first: list[str], second: list[str], lead: int, language: str
) -> tuple[list[str], list[list[str]], list[str]] | None:
    """:func:`_listed_at` for two items whose words a one-word item leaves unshared: items that open
    right after an auxiliary, a subject pronoun or "to" (:data:`BEFORE_VERB`), as long as the first
    clause's words from there, the second clause at least as long ("Do | heat pumps or gas boilers
    cost more", "How do | solar panels and wind turbines work", "Should I | rent an apartment or buy
    a house in Berlin"), else the whole second clause when it has no function word ("heat pumps and
    solar panels")."""
    after = next((k for k in range(len(first) - 1, 0, -1) if _opens_verb(first[k - 1], BEFORE_VERB)), 0)
    found = None
    if after and len(first) - after <= len(second):
        found = _listed_at(first, [second], len(first) - after, lead, language)
    if found is None and not any(_function(w.lower(), language) for w in second):
        return _listed_at(first, [second], len(second), lead, language)
    return found


def _listed_at(
    first: list[str], later: list[list[str]], size: int, lead: int, language: str
) -> tuple[list[str], list[list[str]], list[str]] | None:
    """``(prefix, items, tail)`` of a list whose items are ``size`` words long (the second one's
    first ``lead`` words function words): the first clause's words (``first``) before its item, each
    item's words, and the words after the last item. A first item with a phrase of its own ("des
    pompes à chaleur") shares none, nor does a last one when every item is a noun phrase of its own
    (:func:`_opens_noun_phrase`: "le café infusé à froid") and its words neither open with "of" or
    the like (:data:`GENITIVES`), nor end with a preposition, nor open with a verb that asks how. An
    item that leaves out the first one's noun gets it back (:func:`_with_shared_noun`); "either" and
    "both" before the first item are left out (:data:`CORRELATIVES`). None when ``tail`` is not
    shared (:func:`_shares_tail`) or an item has no letter nor digit ("50%" is an item, "+" none)."""
    from engine.offline_select import QUESTION_VERBS

    start = _first_item_start(first, later[0][0].lower() if lead else "", size, language)
    if start < 0:
        return None
    if len(first) - start > 1 and first[start].lower() in REFLEXIVES:  # "sich | Wärmepumpen": the verb's
        start += 1
        size = min(size, len(first) - start)
    prefix, item = first[:start], first[start:]
    own_phrase = any(w.lower() in PREPOSITIONS for w in item[1:])
    # a last item that opens with more function words than the others is as much longer ("de | los tiempos")
    last_lead = next((k for k, w in enumerate(later[-1]) if not _function(w.lower(), language)), 0)
    size_last = size + max(0, last_lead - lead) if len(later) > 1 else size
    last = later[-1] if own_phrase else later[-1][:size_last]
    tail = [] if own_phrase else later[-1][size_last:]
    items = [item, *later[:-1], last]
    if (
        tail
        and (tail[0].lower() not in GENITIVES or _compound(tail, language))
        and tail[-1].lower() not in PREPOSITIONS
        and tail[0].lower() not in QUESTION_VERBS
        and all(_opens_noun_phrase(i, language) for i in items)
    ):
        items[-1], tail = later[-1], []  # "le café infusé à froid": the last item's own words
    items = _with_shared_noun(items, language)
    if prefix and prefix[-1].lower() in CORRELATIVES:  # "either A or B": "A", "B"
        prefix = prefix[:-1]
    if not _shares_tail(prefix, tail, items) or not all(
        any(ch.isalnum() for ch in " ".join(i)) for i in items
    ):
        return None
    return prefix, items, tail


def _compound(tail: list[str], language: str) -> bool:
    """True when ``tail`` (the words after a list's last item) is the last item's own compound in a
    language whose nouns take one (:data:`_NOUN_ELLIPSIS`): a bare "de" or "di" and a word that is no
    function word ("los tiempos | de espera", "le pompe | di calore"), where a shared phrase has an
    article ("de los paneles", "dei pannelli")."""
    return (
        language in _NOUN_ELLIPSIS
        and len(tail) >= 2
        and tail[0].lower() in ("de", "di")
        and not _function(tail[1].lower(), language)
    )


def _first_item_start(first: list[str], opener: str, size: int, language: str) -> int:
    """The index in ``first`` (the first clause's words) where the first listed item starts: at the
    last word that is the later item's opening function word ``opener`` ("les threads et les
    processus"), at an elided article that ends it ("l'espresso" for "le"), at the last function word
    that is no bare preposition (:data:`BARE`: "delle pompe di calore e dei pannelli", "da energia
    solar e do vento", "i pannelli solari e le turbine"), else ``size`` words from the end (negative when
    ``first`` is shorter)."""
    if opener:
        same = [i for i in range(len(first) - 1, 0, -1) if first[i].lower() == opener]
        elided = _ELIDED.match(first[-1])
        # an item that opens with an article lists with one that does ("la cancellazione dei task e
        # i timeout"), not with a phrase in it that opens with a preposition ("dei task"); an article
        # of the language is one, whatever it is elsewhere (Portuguese "as")
        article = (
            language in _NOUN_ELLIPSIS and opener in ARTICLES.get(language, ()) and opener not in GENITIVES | PREPOSITIONS
        )
        kin = [
            i
            for i in range(len(first) - 1, 0, -1)
            if _function(first[i].lower(), language)
            and first[i].lower() not in BARE
            and not (article and first[i].lower() in GENITIVES | (PREPOSITIONS - ARTICLES[language]))
            or article
            and (m := _ELIDED.match(first[i]))
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


def _shares_tail(prefix: list[str], tail: list[str], items: list[list[str]]) -> bool:
    """True when the words after the last listed item (``tail``) are asked of every item: none, a
    phrase that opens or ends with a preposition ("… in winter", "… made of", :data:`PREPOSITIONS`) or
    opens with the verb's reflexive pronoun ("… zich in de winter", :data:`REFLEXIVES`),
    one that opens with a verb that asks how ("… compare"), or any when the items come right after
    an auxiliary, a subject pronoun or "to" (``prefix``, the words before the first item, ends with
    one of :data:`BEFORE_VERB`: "Should I rent or buy a house", "What do cats and dogs eat"), or
    when the items are numbers (:data:`NUMBERS`: "siete u ocho horas"); otherwise the later clause is a clause of its own ("cancel tasks and handle timeouts")."""
    from engine.offline_select import QUESTION_VERBS

    if not tail:
        return True
    return (
        tail[0].lower() in PREPOSITIONS | REFLEXIVES
        or tail[-1].lower() in PREPOSITIONS
        or tail[0].lower() in QUESTION_VERBS
        or bool(prefix)
        and _opens_verb(prefix[-1], BEFORE_VERB)
        or all(len(i) == 1 and (i[0].isdigit() or i[0].lower() in NUMBERS) for i in items)
    )


def _continued(first: str, clause: str, language: str) -> str:
    """``clause`` (a later clause of a question, opening with its verb: "handle timeouts") continuing
    the question's head (:func:`_question_head` of ``first``): "How does asyncio handle timeouts".
    When the first clause's verb comes right after its question word, without an auxiliary, the
    verb is not shared: in English the question word is the subject ("What causes inflation" and
    "affects wages": "What affects wages"); elsewhere the verb comes before the subject, and the
    later one takes its place ("Wie bricht asyncio Tasks ab" and "behandelt Timeouts": "Wie behandelt
    asyncio Timeouts"). ``clause`` as written when there is no head."""
    head = _question_head(first)
    tokens, words_ = head.split(), clause.split()
    if len(tokens) != 2 or content_words(tokens[0]):
        return f"{head} {clause}" if head else clause
    if language == "en":
        return f"{tokens[0]} {clause}"
    rest = first.split()[2:]
    subject = rest[:2] if len(rest) > 2 and _function(rest[0].lower(), language) else rest[:1]
    if not subject or not content_words(subject[-1]):
        return clause
    return " ".join([tokens[0], words_[0], *subject, *words_[1:]])


def _question_head(clause: str) -> str:
    """The words of a question up to its subject ("How does asyncio" of "How does asyncio cancel
    tasks", "How do I" of "How do I read a file": a pronoun, :data:`PRONOUNS`), which a later clause
    of the same question ("handle timeouts", "write it back") continues; "" when
    ``clause`` does not start with function words followed by its subject."""
    tokens = clause.split()
    if len(tokens) < 3 or tokens[0].lower() not in STOPWORDS:
        return ""
    for i, token in enumerate(tokens):
        if content_words(token):
            if i > 1 and _opens_verb(tokens[i - 1], PRONOUNS):  # "How do I" of "How do I read a file"
                return " ".join(tokens[:i])
            return " ".join(tokens[: i + 1]) if i else ""
    return ""
