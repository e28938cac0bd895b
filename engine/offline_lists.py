"""How the offline model finds the items of a question that lists things, for one sub-question each.

"A, B and C" is one sub-question per item, in the words around the list (:func:`listed_topics`),
whatever joins the last item: "and", "or", "and/or", "as well as", German "und", "oder", "sowie",
French "et", "ou", Spanish "y", "e", "o", "u", Italian "e", "ed", "o", "oppure", Portuguese "e",
"ou", Dutch "en", "of" (:data:`JOINS`, :data:`OWN_JOINS`), Chinese "、", "和", "与", "及", "或",
"还是" and Japanese "と", "や", "または" (:data:`engine.offline_lists_cjk._CJK_AND`). An alternative
question is a list like any other: "Is it better to rent or buy?" is researched as "Is it better to
rent" and "Is it better to buy", each alternative on its own, so the report sets out what the
sources say of each; a question that asks which of its items is something asks it of each ("Which
is cheaper to run, gas or a heat pump?", "What is cheaper, …?": "Is gas cheaper to run";
"Which one lasts longer, …?": "Do batteries last longer": :mod:`engine.offline_choices`).

What only looks like a list is not split: quoted text, code and anything in brackets (:data:`_SPAN`,
:data:`_CODE_SPAN`), set phrases ("one or more", "more or less": :data:`SET_PHRASES`), words that
share a part of a compound ("Vor- und Nachteile": :data:`SUSPENDED`), the first of two lists ("the
pros and cons of heat pumps and gas boilers": one sub-question per item of the second, "What are the
pros and cons of heat pumps", :func:`_first_of_two_lists`), two
capitalised words joined by "and" that the brief does not ask to compare ("Romeo and Juliet",
"Procter and Gamble": :data:`_NAME_PAIR`; German nouns are capitalised, so "Solarmodule und
Batterien" are two), and clauses of their own ("cancel tasks and handle
timeouts": items must be parallel). Where and how a clause writes its list, and each item's words,
are found by :func:`engine.offline_list_items.items_listed`. A clause that opens with a preposition
qualifies the one before it (:data:`QUALIFIER_OPENERS`). Symbols and emoji written apart are no
words: they are taken out while the brief is split and put back with their item's words
(:func:`engine.offline_list_symbols.without_symbols`).
A split gives every item with the whole frame around the list, or the question is researched whole;
:func:`listed_frames` gives each item's frame ("How much noise do … make"), what a sentence quoted
under the item must name besides it.
A question asked after another, after "and" or a comma or in a sentence of its own ("…? How loud
are they?"), is one of its own, written without the "and", "but" or "also" that joined it
(:data:`engine.offline_list_words.OPENERS`), opening with a capital letter, its pronoun written as
the first question's subject ("How loud are heat pumps": :mod:`engine.offline_list_pronouns`).
"""

from __future__ import annotations

import functools
import re

from engine.language import _CODE
from engine.language import _INTERROGATIVES as _ASKING
from engine.offline_choices import asked_of_each, asks_which_of_them, choice_as_clause, chooses
from engine.offline_list_items import HOLE, items_listed
from engine.offline_list_pronouns import capitalised, pronoun_item, resolved, subject_as_written
from engine.offline_list_symbols import with_symbols as _with_symbols
from engine.offline_list_symbols import without_symbols as _without_symbols
from engine.offline_list_words import (
    ARTICLES,
    COMPARING,
    GENITIVES,
    JOINS,
    LIST_COMMA,
    NUMBER,
    OPENERS,
    OWN_JOINS,
    PRONOUNS,
    QUALIFIER_OPENERS,
    RELATING,
    SET_PHRASES,
    SUBJECTS,
    SUSPENDED,
    TOGETHER,
    opens_verb,
    together,
)
from engine.offline_list_words import function_word as _function
from engine.offline_lists_cjk import cjk_items as _cjk_items
from engine.offline_lists_cjk import korean_clauses
from engine.offline_numerals import numeral
from engine.offline_text import _AUXILIARIES, _ENDS, _INTERROGATIVES, STOPWORDS, content_words, stripped
from engine.segments import has_segmented_script, words


@functools.cache
def _clause(language: str) -> re.Pattern[str]:
    """Where a brief in ``language`` splits into clauses and items (:data:`JOINS`, and
    :data:`OWN_JOINS` of ``language``), the longest join first ("and/or" before "and"), and after a
    question or exclamation mark that ends a sentence ("…? How loud are they?"), never inside
    brackets or parentheses ("the interval [0, 1]"), nor at a comma inside a number (:data:`LIST_COMMA`:
    "12,000", "0,35")."""
    joins = sorted({*JOINS, *OWN_JOINS.get(language, ())}, key=len, reverse=True)
    alternatives = [LIST_COMMA if join == "," else re.escape(join) for join in joins]
    return re.compile(rf"({'|'.join(alternatives)}|[?!](?=\s))(?![^\[\](){{}}]*[\])}}])")


#: Quoted text and code in a brief, each kept whole when it is split: "…", '…', `…`, “…”, „…“, ”…”, «…»,
#: ‹…›, 「…」, 『…』 (an apostrophe inside a word, "doesn't", "l'énergie", opens none).
_SPAN = re.compile(
    r"(`+).+?\1|\"[^\"]*\"|“[^”]*”|„[^“”]*[“”]|”[^”]*”|«[^»]*»|‹[^›]*›|「[^」]*」|『[^』]*』|(?<!\w)'[^']+'(?!\w)"
)
#: A group in brackets or parentheses, one level of nesting inside ("(a, b)", "[0, 1]", "([a, b], axis=0)").
_GROUP = r"[(\[{][^()\[\]{}]*(?:[(\[{][^()\[\]{}]*[)\]}][^()\[\]{}]*)*[)\]}]"
#: Code in a brief, kept whole like quoted text: an identifier (:data:`engine.language._CODE`:
#: "os.path.join", "snake_case") with the group that follows it, and any name or nothing followed by a
#: group ("f(x, y)", "dict[str, int]", "(a, b)"). A number (:data:`NUMBER`: "12.000", "1,000.10") is
#: matched first, as the ``number`` group, and is no code: it stays a number, "000.10" of it no identifier.
_CODE_SPAN = re.compile(rf"(?P<number>(?>{NUMBER.pattern}))(?![\w(\[{{])|(?:{_CODE.pattern})(?:{_GROUP})?|\w*{_GROUP}",
                        re.DOTALL)


def listed_topics(text: str, language: str = "en") -> list[str]:
    """The sub-questions of ``text`` (one brief, the thread's talk already cut off) when it asks
    about several things: one per clause or listed item (:func:`_questions`, :func:`_group_topics`;
    :func:`_cjk_items` in Chinese or Japanese), quoted text and code restored whole, each once, in
    order; fewer than two when it asks about one thing."""
    return [topic for topic, _ in _listed(text, language)]


def listed_frames(text: str, language: str = "en") -> dict[str, str]:
    """The frame of each sub-question of ``text`` (:func:`listed_topics`) made from a listed item: the
    part of the question every item shares, the item's words left out ("How much noise do … make" of
    "How much noise do heat pumps make", from "How much noise do heat pumps, wind turbines and solar
    panels make?"; :func:`engine.offline_list_items.items_listed`). "" for a clause of its own, an
    item alone (a question that only compares its items or asks which to choose) and an item of a
    Chinese or Japanese list."""
    return dict(_listed(text, language))


def _listed(text: str, language: str) -> list[tuple[str, str]]:
    """``(sub-question, frame)`` of :func:`listed_topics` and :func:`listed_frames`, in order."""
    spans: list[str] = []

    def hole(m: re.Match) -> str:
        spans.append(m.group(0))
        return f"qqspan{len(spans) - 1}qq"

    text, symbols = _without_symbols(text, language)
    quoted = _SPAN.sub(hole, text).replace(" and/or ", " and ")  # "and/or" is no code (:data:`_CODE`)
    code = _CODE_SPAN.sub(lambda m: m.group(0) if m.group("number") else hole(m), quoted)
    masked = SUSPENDED.sub(hole, SET_PHRASES.sub(hole, code))
    if not (COMPARING | RELATING | TOGETHER).intersection(words(together(masked))):
        pair = _NAME_PAIR_CAPITALISED if language in _CAPITALISED_NOUNS else _NAME_PAIR
        masked = pair.sub(lambda m: m.group(0) if _ends_a_list(masked, m.start()) else hole(m), masked)
        # "Romeo and Juliet"; "How do Python and Java interact" is two; "São Paulo, Rio de Janeiro e Belo
        # Horizonte" ends a list
    if first_list := _first_of_two_lists(masked, language):  # "the pros and cons | of heat pumps and gas boilers"
        begin, end = first_list
        spans.append(masked[begin:end])
        masked = f"{masked[:begin]}qqspan{len(spans) - 1}qq{masked[end:]}"
    cjk = _cjk_items(masked) if has_segmented_script(masked) else None
    if cjk is not None:
        found = [(t, "") for t in cjk]
    else:
        grouped = [_group_topics(group, language) for group in _questions(masked, language)]
        if any(topics is None for topics in grouped):
            return []  # a question whose items cannot be told apart is researched whole
        found = _resolved(grouped, language)

    def restored(t: str) -> str:
        return HOLE.sub(lambda m: spans[int(m.group(1))], t)

    topics = [restored(t) for t, _ in found]
    frames = [restored(f) for _, f in found]
    if len(topics) < 2:
        return list(zip(topics, frames, strict=True))
    pairs: dict[str, str] = {}
    for topic, frame in zip(_with_symbols(topics, symbols), frames, strict=True):
        pairs.setdefault(topic, frame)
    return list(pairs.items())


def _ends_a_list(text: str, at: int) -> bool:
    """True when the words at ``at`` in ``text`` (two capitalised words joined by "and":
    :data:`_NAME_PAIR`) come after a comma in their sentence: the last two items of a list ("São Paulo,
    Rio de Janeiro e Belo Horizonte"), not one name."""
    return re.search(LIST_COMMA, re.split(r"[.?!;:\n]", text[:at])[-1]) is not None


def _resolved(grouped: list[list[tuple[str, str]]], language: str) -> list[tuple[str, str]]:
    """The ``(topic, frame)`` pairs of each question (``grouped``), in order, a later question's pronoun
    written as the first question's subject when that one asks of one thing
    (:func:`engine.offline_list_pronouns.resolved`: "How loud are they" after "Which heat pumps are
    cheapest to run" is "How loud are heat pumps"), each later question opening with a capital letter
    ("Was kosten Wärmepumpen"); the frames as they are."""
    first = grouped[0] if grouped else []
    subject = subject_as_written(first[0][0], language) if len(first) == 1 else ""
    acting = subject_as_written(first[0][0], language, keep_verb=True) if subject else ""
    later = [(capitalised(resolved(t, subject, language, acting), language), frame)
             for topics in grouped[1:] for t, frame in topics]
    return [*first, *later]


def _questions(text: str, language: str = "en") -> list[list[str]]:
    """The clauses of ``text`` (:func:`_clause`), grouped into the questions it asks: a clause after a
    semicolon or a line break, or one that opens with a question word (:data:`_INTERROGATIVES`, and
    those of ``language``: :data:`engine.language._INTERROGATIVES`; after a function word too:
    :func:`_opens_question`), or a yes-or-no question (:func:`_asks_yes_or_no`), starts a question,
    with or without a comma before its "and" ("Wie effizient ist eine Wärmepumpe und welche Förderung
    gibt es"); the others continue the one before (its list, or its head). A clause that only asks
    which to choose (:func:`asks_which_of_them`) after two or more clauses (the things to choose
    among: "Postgres or MySQL, which is better") is left out; after one clause it is a question of
    its own ("¿Por qué es eficiente una bomba de calor y cuáles son sus límites?"). A clause that names
    nothing is left out, but for an English auxiliary and a subject pronoun before another subject
    ("Should we | or they pay": :func:`engine.offline_list_pronouns.pronoun_item`)."""
    asking = _INTERROGATIVES | set(_ASKING.get(language, "").split())
    pieces = _clause(language).split(choice_as_clause(text, _clause(language), language))
    groups: list[list[str]] = []
    new = True
    mark = ""
    for i, piece in enumerate(pieces):
        if i % 2:  # a separator
            new = new or piece in (";", "\n")
            mark = piece if piece in ("?", "!") else ""
            continue
        part = stripped(piece).rstrip(" —–")
        if not part or not _names_something(part, language):
            parted = i + 2 >= len(pieces) or pieces[i + 1] in ("?", "!", ";", "\n")
            if parted or language != "en" or not pronoun_item(part, stripped(pieces[i + 2])):
                continue  # "Should we | or they pay": a subject listed, kept
        asks = _opens_question(part, asking, language)
        if mark and groups and not (asks or _asks_yes_or_no(part) or piece.rstrip().endswith("?")):
            groups[-1][-1] = f"{groups[-1][-1]}{mark} {piece.strip()}".strip(_ENDS)  # "…? Explain it.": no question
            continue
        new = new or bool(mark)
        if asks or _asks_yes_or_no(part):  # "and also how loud are they": as asked, without "also"
            part = _without_openers(part, asking, language)
        if groups and not new and len(groups[-1]) > 1 and asks_which_of_them(part):
            continue  # "Postgres or MySQL, which is better": the things to choose among
        if groups and not new and not asks and part.split()[0].lower() in QUALIFIER_OPENERS:
            groups[-1][-1] = f"{groups[-1][-1]}, {part}"
            continue
        if new or not groups or asks or _asks_yes_or_no(part):
            groups.append([part])
        else:
            groups[-1].append(part)
        new = False
    return groups


def _without_openers(clause: str, asking: frozenset[str] | set[str], language: str) -> str:
    """``clause`` (a question of its own) without the conjunctions and adverbs that joined it to the
    one before (:data:`engine.offline_list_words.OPENERS`: "but how loud are they", "also how…",
    Spanish "Y cuánto ruido hacen"), when the question word or a yes-or-no question follows them."""
    tokens = clause.split()
    k = 0
    while k < len(tokens) - 1 and tokens[k].lower() in OPENERS:
        k += 1
    rest = " ".join(tokens[k:])
    if k and (_opens_question(rest, asking, language) or _asks_yes_or_no(rest)):
        return rest
    return clause


def _opens_question(clause: str, asking: frozenset[str] | set[str], language: str) -> bool:
    """True when ``clause`` opens with a question word of ``asking``, or with a function word and
    then one (a preposition, an article or a particle: Spanish "por qué", "para qué", Portuguese "o
    que", "por que", French "à quoi", Italian "a cosa", "che cosa", German "in welchem", English "for
    what"): a question of its own after "and" or a comma."""
    tokens = clause.lower().split()
    return bool(tokens) and (tokens[0] in asking or (
        len(tokens) > 1 and tokens[1] in asking and _function(tokens[0], language)))



def _names_something(part: str, language: str = "en") -> bool:
    """True when ``part`` (a clause or listed item) names something: a content word
    (:func:`engine.offline_text.content_words`), or a word with a letter that is no function word
    ("C++", "C#") or a word in capitals ("C", "R", "IT": a name, no pronoun), names whose words are too
    short to count, or a number (:func:`engine.offline_numerals.numeral`: "2", "1,5", "12,000", ".5",
    "5%", "$5": "Is 1, 2 or 3 enough" lists three)."""
    return bool(content_words(part)) or any(
        (numeral(token, language) or any(ch.isalpha() for ch in token))
        and (not _function(token.lower(), language) or token.isupper())
        for token in part.split()
    )



def _asks_yes_or_no(clause: str) -> bool:
    """True when ``clause`` opens with an auxiliary and a pronoun ("are they safe", "does it scale",
    :data:`engine.offline_list_words.SUBJECTS`) or with a French verb and its pronoun (:data:`_INVERTED`:
    "sont-elles bruyantes"): a question of its own after "and", not an item of the list before it.
    English "do" before "it", "he" or "she" is a verb and its object ("or do it myself"), no question."""
    opening = clause.lower().split()[:2]
    if opening and _INVERTED.fullmatch(opening[0]):  # "sont-elles bruyantes", "est-ce qu'elle…"
        return True
    if opening[:1] == ["do"] and opening[1:] in (["it"], ["he"], ["she"]):
        return False  # "… or do it myself": a verb and its object, where a question asks "does it"
    return len(opening) == 2 and opening[0] in _AUXILIARIES and opening[1] in PRONOUNS | SUBJECTS


#: A French verb with its subject pronoun after it, as a question writes it ("sont-elles", "coûte-t-il",
#: "peut-on"), in small letters. Not :data:`engine.offline_list_pronouns.INVERTED` on purpose: any
#: subject pronoun, "on", "je", "nous" too ("peut-on", "dois-je"), opens a question of its own, where
#: that one takes only the third-person pronouns that may stand for a listed thing.
_INVERTED = re.compile(r"[^\W\d_]+-(?:t-)?(?:il|elle|ils|elles|on|je|tu|nous|vous)")


def _group_topics(parts: list[str], language: str = "en") -> list[tuple[str, str]] | None:
    """``(topic, frame)`` of one question's clauses, the frame "" but for a listed item's
    (:func:`listed_frames`): one topic per listed item (:func:`engine.offline_list_items.items_listed`; the items
    alone, or each asked what the choice asks, after a question that asks to choose among them:
    :func:`engine.offline_choices.asked_of_each`), else each clause, a
    short later one continuing the first one's head (:func:`_question_head`). None when the items of
    a list cannot be told apart (:func:`engine.offline_list_items._takes_the_frame`: "What do the main thread and daemon
    threads do at exit"), or they are compared (:data:`COMPARING`) but not as a list, or they are two
    lists that :func:`_first_of_two_lists` left apart (:func:`_two_lists`), or a later clause that
    gives no listed item opens with an article (:data:`ARTICLES`): a noun phrase whose verb the items share ("How do daemon threads and the
    main thread behave"); the question is then researched whole."""
    if len(parts) < 2:
        return [(p, "") for p in parts]
    parts = korean_clauses(parts)  # "작업을 취소하고, 타임아웃을 처리합니까": whole clauses, or None
    if parts is None:
        return None
    compares = COMPARING.intersection(w.lower() for w in parts[0].split())  # "¿Cuál es la diferencia entre | React, …"
    if len(parts) > 2 and not compares and chooses(parts[0], language) and not _continues_first(parts, language):
        return asked_of_each(parts[0], parts[1:], language)  # "Which is faster, Python or Java"
    listed = items_listed(parts, language)
    if listed is not None:
        return listed or None
    if compares:
        return None  # "Waarom verschillen warmtepompen en cv-ketels zo sterk": one comparison, not two clauses
    if _two_lists(parts):
        return None
    articles = ARTICLES.get(language, ARTICLES["en"])
    if any(p.split()[0].lower() in articles for p in parts[1:]):
        return None
    short = [p for p in parts[1:] if len(content_words(p)) < 3]
    if any(not _PLAIN_WORD.fullmatch(p.split()[0]) or not content_words(p.split()[0]) for p in short):
        return None  # "What does $VAR, \cmd, #tag and 50% mean": no verb of its own to continue the head with

    def continued(p: str) -> str:  # "handle timeouts" -> "How does asyncio handle timeouts"
        return _continued(parts[0], p, language)

    return [(p if len(content_words(p)) >= 3 or i == 0 else continued(p), "") for i, p in enumerate(parts)]


#: Prepositions that say whose between two lists only before an article ("desventajas de | las bombas
#: de calor"): without one they are inside a noun written in words ("pompe di calore", "bombas de calor").
_IN_A_NOUN = frozenset("de di".split())


def _first_of_two_lists(text: str, language: str) -> tuple[int, int] | None:
    """Where in ``text`` the first of two lists in one question is, which :func:`_listed` writes as
    one word, as it does a set phrase: one of what is asked and one of what it is asked of, a later clause holding the
    preposition that says whose (:data:`GENITIVES`) after its first word, which the clauses before it
    lack, and an item of the second list after it ("What are the pros and cons of heat pumps and gas
    boilers", "the advantages and disadvantages of solar panels and batteries", "Vorteile und
    Nachteile von Wärmepumpen und Solaranlagen", "las ventajas y desventajas de las bombas de calor y
    las calderas de gas"). The first list, from the last word of its first clause to that preposition
    ("pros and cons"), is then one thing asked of each item of the second ("What are the pros and cons
    of heat pumps", "… of gas boilers"), as "Vor- und Nachteile" is (:data:`SUSPENDED`). A Romance
    "de" or "di" without an article after it is inside a noun (:data:`_IN_A_NOUN`: "le pompe di
    calore e le turbine eoliche" is one list). A clause that
    opens a question of its own (:func:`_opens_question`) or follows a semicolon, a line break or a
    question mark starts another question, whose lists are another's. None when there is none."""
    asking = _INTERROGATIVES | set(_ASKING.get(language, "").split())
    clauses: list[tuple[str, int, bool]] = []  # (clause, where it starts, whether it opens a question)
    offset, parted = 0, True
    for i, piece in enumerate(_clause(language).split(text)):
        if i % 2:
            parted = parted or piece in (";", "\n", "?", "!")
        elif stripped(piece):
            part = stripped(piece)
            opens = parted or _opens_question(part, asking, language) or _asks_yes_or_no(part)
            clauses.append((piece, offset, opens))
            parted = False
        offset += len(piece)

    articles = ARTICLES.get(language, frozenset())

    def whose(clause: str) -> re.Match | None:  # the words before a preposition saying whose, not first
        m = re.match(r"\s*\S+(?:\s+\S+)*?(?=\s+(?:{})(?!\S))".format("|".join(GENITIVES)), clause, re.I)
        after = clause[m.end():].split()[1:2] if m else []
        if m and clause[m.end():].split()[0].lower() in _IN_A_NOUN and not (after and after[0].lower() in articles):
            return None  # "le pompe di calore", "las bombas de calor": a noun written in words
        if (m and after and after[0][:1].isupper() and m.group(0).split()[-1][:1].isupper()
                and language not in _CAPITALISED_NOUNS):
            return None  # "Rio de Janeiro", "Santiago de Chile": a name (German capitalises every noun)
        return m

    start = 0
    for k in range(1, len(clauses) - 1):
        clause, at, opens = clauses[k]
        if opens:
            start = k
            continue
        head = whose(clause)
        if not head or any(whose(c) for c, _, _ in clauses[start:k]) or clauses[k + 1][2]:
            continue
        if not _names_something(stripped(clauses[k + 1][0]), language):
            continue
        first, first_at, _ = clauses[start]
        last_word = re.search(r"\S+\s*$", first)
        return first_at + last_word.start(), at + head.end()
    return None


def _two_lists(parts: list[str]) -> bool:
    """True when a question's clauses (``parts``) are two lists, one of what is asked and one of what
    it is asked of: a middle clause holds the phrase that parts them, opening with a preposition that
    says whose (:data:`GENITIVES`) after its first word, which the first clause lacks ("Pros | cons of
    heat pumps | solar panels"): each list's items are not the other's. Such a question's first list
    is most often one word by then (:func:`_first_of_two_lists`: "What are the pros and cons of heat
    pumps", "… of solar panels"); one it left apart is researched whole."""
    def whose(part: str) -> bool:
        return any(w.lower() in GENITIVES for w in part.split()[1:])

    return not whose(parts[0]) and any(whose(p) for p in parts[1:-1])


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
#: Python and Java compare") or how they relate (:data:`RELATING`, :data:`TOGETHER`: "How do Python
#: and Java work together", "Wie hängen Solarmodule und Batterien zusammen"). Not after a comma (the
#: end of a longer list) nor at the start. In a language that capitalises every noun
#: (:data:`_CAPITALISED_NOUNS`) the capitals tell no name: two words joined by its own "and" ("Was
#: kosten Solarmodule und Batterien") are two items; "&" and English "and" still join a name there.
_NAME_PAIR = re.compile(r"(?<=[^\W\d_] )(?<![A-Z]\w )[A-Z][a-z]+ (?:and|und|et|y|e|en|&) [A-Z][a-z]+(?!\w)")
_NAME_PAIR_CAPITALISED = re.compile(r"(?<=[^\W\d_] )(?<![A-Z]\w )[A-Z][a-z]+ (?:and|&) [A-Z][a-z]+(?!\w)")
#: Languages whose nouns are all written with a capital letter: German.
_CAPITALISED_NOUNS = frozenset({"de"})


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
            if i > 1 and opens_verb(tokens[i - 1], PRONOUNS):  # "How do I" of "How do I read a file"
                return " ".join(tokens[:i])
            return " ".join(tokens[: i + 1]) if i else ""
    return ""
