"""How the offline model reads a question that asks which of its listed items to choose, for
:func:`engine.offline_lists.listed_topics`.

"Which is cheaper to run, gas or a heat pump?" asks of each item what it asks of the choice, the verb
first, in a language whose yes-or-no question is so written (:data:`_VERB_FIRST`): "Is gas cheaper to
run", "Is a heat pump cheaper to run" (:func:`asked_of_each`), French with "est-ce que" ("Est-ce que
le train est le moins cher", the adjective in the item's gender: :func:`french_asked`); "what" with an auxiliary and a comparative asks as "which" does ("What is
cheaper, …", "Was ist günstiger, …", "¿Qué es más barato, …": :func:`comparative_in`), and a
choice's own verb is asked with "do"
("Which one lasts longer, batteries or …": "Do batteries last longer"). A choice that asks only which
to take ("Which is better, Python or Java?", "Which broker?": :func:`_only_which`) keeps the items
alone. A colon or dash beside such a clause reads as a comma (:func:`choice_as_clause`).
"""

from __future__ import annotations

import re

from engine.offline_choices_french import french_asked
from engine.offline_item_words import is_plural, ones_written, opener_in_small_letters
from engine.offline_list_words import ARTICLES, CHOOSING, GENITIVES, LIST_COMMA, MORE, opens_comparative
from engine.offline_list_words import function_word as _function
from engine.offline_numerals import sharing_the_unit
from engine.offline_text import _AUXILIARIES, _ENDS, content_words

#: A colon or dash next to a clause that asks which to choose ("A or B: which is better", "Which is
#: better – A or B"), which parts it from the items as a comma does.
_CHOICE_MARK = re.compile(r"\s*(?::|\s[-–—])\s+")


def choice_as_clause(text: str, clauses: re.Pattern[str] | None = None, language: str = "en") -> str:
    """``text`` with a colon or dash (:data:`_CHOICE_MARK`) before or after a clause that only asks
    which of the listed items to choose (:func:`asks_which_of_them`), or after one that asks which of
    them is something (:func:`chooses`), written as a comma: "Postgres or MySQL: which is better" reads
    as "Postgres or MySQL, which is better", "Which is cheaper to run: gas or a heat pump" as "Which is
    cheaper to run, gas or a heat pump"; a clause after the items that asks which of them is something
    and lists nothing of its own (``clauses``, the pattern that parts a brief's clauses and items, does
    not split it) goes before them: "Rust or Go: which is easier to learn" reads as "which is easier to
    learn, Rust or Go", "A heat pump or a gas boiler: which is cheaper" as "which is cheaper, a heat pump
    or a gas boiler" (one comparative asks more than which to take: :func:`_asks_of_each`), as does such
    a clause after a comma that is no word of :data:`CHOOSING` ("Kaffee oder Tee, was ist gesünder",
    which was a question of its own; "Rust or Go, which one is faster" keeps the items alone), the
    sentence's first word in small letters when only the sentence capitalised it ("Der Zug oder das
    Flugzeug – was ist schneller": "Ist der Zug schneller")."""
    parts = _CHOICE_MARK.split(text)
    if len(parts) != 2:
        before, comma, after = _last_comma(text)
        asked = after.strip(_ENDS)
        if comma and not asks_which_of_them(asked) and _asks_of_each(asked, clauses, language):
            return _choice_first(before, after, language)  # "Kaffee oder Tee, was ist gesünder"
        return text
    before, after = parts
    asked = after.strip(_ENDS)
    if _asks_of_each(asked, clauses, language):
        return _choice_first(before, after, language)
    if asks_which_of_them(asked) or chooses(before.strip(_ENDS), language):
        return f"{before}, {after}"
    if clauses is not None and len(clauses.split(asked)) == 1 and chooses(asked, language):
        # "Rust or Go: which is easier to learn": "which is easier to learn, Rust or Go"
        return _choice_first(before, after, language)
    return text


def _last_comma(text: str) -> tuple[str, str, str]:
    """``text`` parted at its last comma that parts clauses (:data:`LIST_COMMA`: not the one inside
    "0,35 €"), as :meth:`str.rpartition` parts it: ``("", "", text)`` when there is none."""
    commas = list(re.finditer(LIST_COMMA, text))
    if not commas:
        return "", "", text
    at = commas[-1].start()
    return text[:at], ",", text[at + 1:]


def _asks_of_each(clause: str, clauses: re.Pattern[str] | None, language: str) -> bool:
    """True when ``clause``, after a list, is one clause (``clauses`` does not split it) that asks which
    of its items is something more than which to take (:func:`chooses`, :func:`_only_which`): "which
    is cheaper", "was ist schneller", not "which is better"."""
    if clauses is None or len(clauses.split(clause)) != 1 or not chooses(clause, language):
        return False
    found = _choice(clause, language)
    return found is not None and bool(found[2]) and not (found[1] == "aux" and _only_which(clause, found[2], language))


def _choice_first(before: str, after: str, language: str) -> str:
    """The clause ``after`` a list (``before``) that asks to choose among its items, written before it
    as a comma parts them: "Rust or Go: which is easier to learn" as "which is easier to learn, Rust or
    Go", "Der Zug oder das Flugzeug – was ist schneller" as "was ist schneller, der Zug oder das
    Flugzeug", the word that opened the question in small letters when only the sentence capitalised it
    (:func:`engine.offline_item_words.opener_in_small_letters`)."""
    asked = after.strip(_ENDS)
    lead = before[:len(before) - len(before.lstrip())]
    before = lead + " ".join(opener_in_small_letters(before.split(), language))
    return f"{asked}, {before}{after[len(after.rstrip(_ENDS)):]}"


def asks_which_of_them(clause: str) -> bool:
    """True when ``clause``, after a list, only asks which of its items to choose: it opens with a
    word of :data:`CHOOSING` and names at most one thing besides "one" ("which is better", "which
    one is faster", "welche ist besser", "which broker"), not a question of its own ("which has
    better replication"), as the word does before a noun that words after it ask about ("which
    subsidies are there", "welche Förderung gibt es")."""
    tokens = clause.lower().split()
    if not tokens or tokens[0] not in CHOOSING:
        return False
    named = [w for w in content_words(clause) if w != "one"]
    return len(named) <= 1 and not (len(tokens) > 2 and content_words(tokens[1]) == named)


def chooses(clause: str, language: str = "en") -> bool:
    """True when ``clause``, before a list, asks which of its items to choose (:func:`_choice`): a word
    of :data:`CHOOSING`, then an auxiliary ("which is cheaper to run", "welche ist günstiger", "cuál es
    más barata"), or "one" and an auxiliary ("which one is quieter at night"), or an English verb of
    its own ("which one lasts longer", "which costs more"), or nothing more than which to take
    (:func:`asks_which_of_them`: "which broker"); or English "what" with an auxiliary and a
    comparative ("what is cheaper", "what's better to run", "what is the cheaper option") or a verb
    and one ("what costs more"), which asks as "which" does, where "what is water, ice or steam"
    asks what each is: a comparative is "more", "less" or "fewer" and a word, "better", "worse", or
    a word in -er whose superlative English writes (:func:`engine.word_forms.comparative`: "cheaper"
    has "cheapest", "water" no "waterest")."""
    tokens = clause.lower().split()
    if len(tokens) < 2 or tokens[0] not in CHOOSING | _WHAT | _WHAT_IN.get(language, frozenset()):
        return False
    return _choice(clause, language) is not None or tokens[0] in CHOOSING and asks_which_of_them(clause)


#: English "what" and "what's", which ask to choose when a comparative follows their auxiliary.
_WHAT = frozenset({"what", "what's", "what’s"})

#: The word for "what" in other languages, and the words that may follow it before the auxiliary
#: ("qu'est-ce qui est", "o que é", "che cosa è"), which ask to choose as "what" does when a
#: comparative follows the auxiliary (:func:`comparative_in`: "Was ist günstiger", "¿Qué es más
#: barato", "Quel est le moins cher").
_WHAT_IN = {
    "de": frozenset({"was"}),
    "nl": frozenset({"wat"}),
    "es": frozenset({"qué", "que"}),
    "fr": frozenset({"quel", "quelle", "quels", "quelles", "qu'est-ce", "qu’est-ce"}),
    "it": frozenset({"cosa", "che", "qual"}),
    "pt": frozenset({"o", "que"}),
}
_WHAT_AFTER = frozenset({"qui", "que", "cosa"})

#: Words that make the next one a comparative in a Romance language or German and Dutch ("más
#: barato", "plus rapide", "mehr Platz"), and comparatives of a word of their own ("mejor", "mayor").
_MORE_IN = {
    "es": frozenset({"más", "menos"}), "pt": frozenset({"mais", "menos"}), "it": frozenset({"più", "meno"}),
    "fr": frozenset({"plus", "moins"}), "de": frozenset({"mehr", "weniger"}), "nl": frozenset({"meer", "minder"}),
}
_COMPARATIVES_IN = {
    "es": frozenset("mejor peor mayor menor mejores peores mayores menores".split()),
    "pt": frozenset("melhor pior maior menor melhores piores maiores menores".split()),
    "it": frozenset("migliore meglio peggiore peggio maggiore minore migliori peggiori".split()),
    "fr": frozenset("meilleur meilleure meilleurs meilleures mieux pire pires".split()),
    "de": frozenset("besser besserer bessere".split()),
    "nl": frozenset("beter betere".split()),
}
#: German and Dutch words in -er that are no comparative.
_NOT_COMPARATIVE = frozenset("water computer later immer wieder über unter hinter hier oder aber".split())

#: The comparatives of :data:`_COMPARATIVES_IN` that only judge, as "better" does (:func:`_only_which`).
_ONLY_WHICH_IN = frozenset(
    """besser beter mejor peor meilleur meilleure mieux pire migliore meglio peggiore peggio melhor
    pior""".split())


def comparative_in(words_: list[str], language: str) -> bool:
    """True when ``words_`` open with a comparative in ``language``, after an article or not: English
    as :func:`engine.offline_list_words.opens_comparative` reads it, elsewhere a word that makes the
    next one a comparative and a word ("más barato", "le moins cher", "più economico",
    :data:`_MORE_IN`), a comparative of its own ("mejor", "meilleur", "besser"), or a German or Dutch
    adjective in -er, lower-cased as German writes no noun ("günstiger", "goedkoper"; not "Wasser")."""
    if language == "en" or language not in _MORE_IN:
        return _comparative_after(words_) if language == "en" else False
    skip = 1 if len(words_) > 1 and words_[0].lower() in ARTICLES.get(language, ()) else 0
    low = [w.lower().strip(_ENDS) for w in words_[skip:]]
    if not low:
        return False
    if low[0] in _MORE_IN[language]:
        return len(low) > 1
    if low[0] in _COMPARATIVES_IN[language]:
        return True
    word = words_[skip].strip(_ENDS)
    return (language in ("de", "nl") and word.islower() and word.isalpha() and len(word) > 4
            and word.endswith("er") and word not in _NOT_COMPARATIVE and not _function(word, language))


def _choice(clause: str, language: str = "en") -> tuple[str, str, list[str]] | None:
    """``(verb, kind, rest)`` of a clause that asks which of a list's items is or does something
    (:func:`chooses`): its auxiliary as written ("is"; "is" of "what's") and the words after it
    ("cheaper to run"), kind "aux"; or an English verb (:func:`_own_verb`) of its own after "which" or "which one"
    (or "which" and one noun that a comparative after the verb shows is the items' kind: "which framework
    is faster", "which database scales better")
    ("lasts", "costs") that a comparative or a function word other than an auxiliary follows ("which
    one lasts longer", "which costs more", "which uses the least energy"; not "which batteries last
    longer", whose noun is "batteries"), kind "verb"; in another ``language`` its word for "what"
    (:data:`_WHAT_IN`) with an auxiliary and a comparative (:func:`comparative_in`: "was ist
    günstiger", "qu'est-ce qui est plus rapide"). None for any other clause, and for "which" and an
    auxiliary before a phrase that says whose and no comparative (:func:`_whose_in`: "which are the
    side effects of ibuprofen, …", whose first item that phrase opens)."""
    tokens = clause.split()
    low = [t.lower() for t in tokens]
    kind = _kind_named(tokens, language)
    if kind:  # "which cloud provider is cheapest", "welcher Anbieter ist am günstigsten"
        return tokens[kind], "aux", tokens[kind + 1:]
    if language != "en" and low[0] in _WHAT_IN.get(language, ()) and low[0] not in CHOOSING | _WHAT:
        k = 1
        while k < len(low) - 1 and low[k] in _WHAT_AFTER:
            k += 1  # "qu'est-ce qui est", "o que é", "che cosa è"
        if k < len(low) - 1 and low[k] in _AUXILIARIES and comparative_in(tokens[k + 1:], language):
            return tokens[k], "aux", tokens[k + 1:]
        return None
    if low[0] in _WHAT:
        if low[0] == "what" and len(low) > 2 and low[1] in _AUXILIARIES and _comparative_after(tokens[2:]):
            return tokens[1], "aux", tokens[2:]
        if low[0] != "what" and _comparative_after(tokens[1:]):
            return "is", "aux", tokens[1:]
        if low[0] == "what" and _own_verb(low[1], tokens[2:]) and (
                opens_comparative(tokens[2:]) or low[2] in MORE):
            return tokens[1], "verb", tokens[2:]  # "what costs more"
        return None
    verb = 2 if len(low) > 2 and low[1] == "one" else 1
    if verb == 1 and len(low) > 3 and low[0] == "which" and content_words(low[1]) and low[1] != "one" and (
            low[2] in _AUXILIARIES and opens_comparative(tokens[3:])
            or _own_verb(low[2], tokens[3:]) and opens_comparative(tokens[3:])):
        verb = 2  # "which framework is faster", "which database scales better": the items' noun
    if low[verb] in _AUXILIARIES:
        rest = tokens[verb + 1:]
        if _whose_in(rest) and not comparative_in(rest, language):
            return None  # "which are the side effects of ibuprofen, …": the list is the clause's own
        return tokens[verb], "aux", rest
    after = tokens[verb + 1:]
    if _own_verb(low[verb], after) and (
        opens_comparative(after) or _function(after[0].lower(), "en") and after[0].lower() not in _AUXILIARIES
    ):
        return tokens[verb], "verb", after
    return None


#: How many words may name the items' kind between "which" and its auxiliary ("which cloud provider is").
MAX_KIND_WORDS = 3
#: English words that make the next one a superlative ("most expensive", "least noisy").
_MOST = frozenset({"most", "least", "fewest"})


def _kind_named(tokens: list[str], language: str) -> int:
    """Where the auxiliary is in a clause that names the kind of the items it asks to choose among
    between its word for "which" (:data:`CHOOSING`, English "what", :data:`_WHAT_IN` elsewhere) and the
    auxiliary, in at most :data:`MAX_KIND_WORDS` words that are no function words, and that a
    comparative or superlative follows (:func:`_degree_in`): 3 in "which cloud provider is cheapest for
    GPU training", 2 in "welcher Anbieter ist am günstigsten", "qué proveedor es más barato"; 0 for any
    other clause ("which heat pumps are there", "which is cheaper", whose auxiliary follows "which")."""
    low = [t.lower() for t in tokens]
    if not low or low[0] not in CHOOSING | (_WHAT_IN.get(language, frozenset()) if language != "en" else {"what"}):
        return 0
    for k in range(2, min(len(low) - 1, MAX_KIND_WORDS + 2)):
        named = low[1:k]
        if any(_function(w, language) or w in _AUXILIARIES or not content_words(w) for w in named):
            return 0
        if low[k] in _AUXILIARIES:
            return k if _degree_in(tokens[k + 1:], language) else 0
    return 0


def _degree_in(words_: list[str], language: str) -> bool:
    """True when ``words_`` open with a comparative (:func:`comparative_in`) or a superlative: English
    "most", "least" or "fewest" and a word, or one in "-est" whose comparative English writes
    (:func:`engine.word_forms.degree_bases`: "cheapest"; "best", "worst"), after "the" or not; German
    "am" and a word in "-sten" ("am günstigsten"). Romance superlatives are an article and a comparative
    ("el más barato", "le moins cher"), which :func:`comparative_in` reads."""
    from engine.word_forms import degree_bases

    if comparative_in(words_, language):
        return True
    low = [w.lower().strip(_ENDS) for w in words_]
    if language == "en":
        low = low[1:] if low[:1] == ["the"] else low
        return bool(low) and (low[0] in _MOST and len(low) > 1 or low[0] in ("best", "worst")
                              or low[0].endswith("est") and bool(degree_bases(low[0])))
    return language == "de" and len(low) > 1 and low[0] == "am" and low[1].endswith("sten")


def _whose_in(words_: list[str]) -> bool:
    """True when ``words_`` (after "which" and its auxiliary) hold a preposition that says whose
    (:data:`engine.offline_list_words.GENITIVES`), alone or elided ("dell'ibuprofene", "de l'eau",
    "d'Athènes"), which opens the first of the items listed after: "which are the side effects of
    ibuprofen, paracetamol and aspirin" asks of each item, not which of them."""
    return any(w.lower() in GENITIVES or _ELIDED_GENITIVE.match(w) for w in words_[1:])


#: A preposition that says whose, elided before a vowel ("dell'", "dall'", "d'", "dell’").
_ELIDED_GENITIVE = re.compile(r"(?i)(?:d|del|dell|dall|dal|dello|della|dalla|degl)['’]\w")


def _comparative_after(words_: list[str]) -> bool:
    """True when ``words_`` (after "what is") open with a comparative, after an article or not ("cheaper
    to run", "the better option": :func:`engine.offline_list_words.opens_comparative`)."""
    skip = 1 if len(words_) > 1 and words_[0].lower() in ARTICLES["en"] else 0
    return opens_comparative(words_[skip:])


def _own_verb(word: str, after: list[str]) -> bool:
    """True when ``word`` (lower-cased), with words ``after`` it, may be an English verb in the third
    person singular: letters ending in "-s" (not "-ss", "-us", "-is"), no function word."""
    return (bool(after) and word.isalpha() and word.endswith("s") and not word.endswith(("ss", "us", "is"))
            and not _function(word, "en"))


#: Languages whose yes-or-no question sets its verb before its subject ("Is gas cheaper to run", "Ist
#: Gas günstiger", "Es el gas más barato", "È il gas più economico", "É o gás mais barato", "Is gas
#: goedkoper"): a choice among items is asked of each item so (:func:`asked_of_each`). French asks
#: with "est-ce que" ("Est-ce que le gaz est moins cher"), which needs no pronoun of the item's gender.
_VERB_FIRST = frozenset({"en", "de", "nl", "es", "it", "pt"})


def asked_of_each(choice: str, items: list[str], language: str) -> list[tuple[str, str]]:
    """``(topic, frame)`` of the items a question asks to choose among (:func:`chooses`): what the
    choice asks of them asked of each, the verb first ("Which is cheaper to run, gas or a heat pump":
    "Is gas cheaper to run", frame "Is … cheaper to run", which a sentence quoted under it must name a
    word of; "What is cheaper, …" likewise), an English verb of its own with "do" ("Which one lasts
    longer, a battery or solar panels": "Does a battery last longer", "Do solar panels last
    longer"), the auxiliary in the plural for a plural item and in the singular for another
    (:data:`_PLURAL_OF`, "What are quieter, …": "Is a heat pump quieter"). One comparative
    ("Which is quieter", "Which is faster") is asked of each too: a sentence names it in any degree
    ("quiet", "quietest": :func:`engine.word_forms.degree_bases`), as "Is Python or Java faster?"
    asks it. The items alone, frame "", when it asks only which to take ("Which is better", "What's
    better", "Which broker": :func:`asks_which_of_them`, as any sentence on an item bears on that)
    or in a language whose question is not so written (:data:`_VERB_FIRST`) but French, which asks
    with "est-ce que" ("Quel est le moins cher, le train ou l'avion": "Est-ce que le train est le
    moins cher", frame "Est-ce que … est le moins cher"; "… une pompe à chaleur": "Est-ce qu'une pompe
    à chaleur est la moins chère": :func:`french_asked`). An English "one" after the first item is its
    noun ("Which is cheaper, renting an apartment or buying one": "Is buying an apartment cheaper":
    :func:`engine.offline_item_words.ones_written`), and the unit after the last of numbers is each one's
    ("Which is better, 1,000 or 2,000 watts": "1,000 watts": :func:`engine.offline_numerals.sharing_the_unit`)."""
    items = [" ".join(i) for i in sharing_the_unit([], ones_written([i.split() for i in items], language), language)[1]]
    found = _choice(choice, language)
    if language not in _VERB_FIRST | {"fr"} or found is None or not found[2] or (
            found[1] == "aux" and _only_which(choice, found[2], language)):  # "which works better": a verb
        return [(item, "") for item in items]
    verb, kind, rest_words = found
    rest = " ".join(rest_words)
    if kind == "verb" and language != "en":
        return [(item, "") for item in items]
    if language == "fr":  # "Est-ce que le train est le moins cher", "Est-ce qu'une pompe à chaleur est …"
        return [french_asked(item.split(), verb, rest_words) for item in items]
    topics = []
    for item in items:
        words_ = item.split()
        plural = language == "en" and is_plural(words_)
        if kind == "verb" or _has_as_verb(verb, rest_words, language):
            bare = "have" if verb.lower() in _HAVE else _bare_verb(verb)
            head = "Did" if verb.lower() == "had" else ("Do" if plural else "Does")
            asked = f"{bare} {rest}"
            topics.append((f"{head} {item} {asked}", f"{head} … {asked}"))
            continue
        asked = verb
        if plural and asked.lower() in _PLURAL_OF:
            asked = _PLURAL_OF[asked.lower()]  # "Which is better, …, solar panels": "Are solar panels better"
        elif language == "en" and not plural and asked.lower() in _SINGULAR_OF:
            asked = _SINGULAR_OF[asked.lower()]  # "What are quieter, …, a heat pump": "Is a heat pump quieter"
        head = asked[:1].upper() + asked[1:]
        topics.append((f"{head} {item} {rest}", f"{head} … {rest}"))
    return topics


#: What a choice asks when it asks only which to take: "better", "worse", "best", "preferable".
_ONLY_WHICH = frozenset({"better", "worse", "best", "preferable", "recommended"})


def _only_which(choice: str, rest: list[str], language: str = "en") -> bool:
    """True when ``choice`` (:func:`chooses`) asks only which item to take: its words after the verb
    (``rest``) are one word that judges ("better", "worse": :data:`_ONLY_WHICH`), or it names no
    comparative and nothing more than one thing (:func:`asks_which_of_them`: "which broker"). One
    comparative that says what ("faster", "quieter") asks more."""
    if len(rest) == 1 and rest[0].lower().strip(_ENDS) in _ONLY_WHICH:
        return True
    if language != "en":
        skip = 1 if len(rest) == 2 and rest[0].lower() in ARTICLES.get(language, ()) else 0
        if len(rest) == skip + 1 and rest[skip].lower().strip(_ENDS) in _ONLY_WHICH_IN:
            return True  # "Was ist besser", "Quel est le meilleur"
    return (choice.split()[0].lower() in CHOOSING and asks_which_of_them(choice)
            and not comparative_in(rest, language) and not opens_comparative(rest))


#: English "have" as written after "which": a verb of its own before a noun ("which has better
#: replication"), asked with "do" (:func:`_has_as_verb`).
_HAVE = frozenset({"has", "have", "had"})


def _has_as_verb(verb: str, rest: list[str], language: str) -> bool:
    """True when ``verb`` is English "has", "have" or "had" with a noun phrase after it (``rest``), not a
    participle ("which has better replication": "Does Postgres have better replication"; "which has
    been faster" keeps "has")."""
    return (language == "en" and verb.lower() in _HAVE and bool(rest)
            and not rest[0].lower().endswith(("ed", "en")))


def _bare_verb(verb: str) -> str:
    """The bare form of an English verb in the third person singular ("lasts" -> "last", "uses" ->
    "use", "watches" -> "watch", "carries" -> "carry", "goes" -> "go")."""
    low = verb.lower()
    if low.endswith("ies") and len(low) > 4:
        return f"{verb[:-3]}y"
    if low.endswith(("sses", "xes", "zes", "ches", "shes", "oes")):
        return verb[:-2]
    return verb[:-1]


#: An English auxiliary in the singular, as "which" asks, and its plural for a plural item
#: (:func:`asked_of_each`: "Are solar panels better", :func:`engine.offline_item_words.is_plural`).
_PLURAL_OF = {"is": "are", "was": "were", "does": "do", "has": "have"}
_SINGULAR_OF = {plural: singular for singular, plural in _PLURAL_OF.items()}
