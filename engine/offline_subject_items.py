"""How the offline model reads an English choice of two words after an auxiliary, whose words around
them both items share, for :func:`engine.offline_list_items.items_listed`.

Two verbs of one subject and one object ("Can Python read or write ZIP files?": "Can Python read ZIP
files", "Can Python write ZIP files") and two subjects of one article and one verb ("Should the city
or state pay for it?": "Should the city pay for it", "Should the state pay for it") are each two
words joined by "or": the words before the first one and after the second one are every item's
(:func:`shared_around`), a noun after the second subject too ("Should the city or state government
pay?": "Should the city government pay"), and after "is" or "are" what follows the subjects ("Is the
city or state responsible?": "Is the city responsible"). Which word after an auxiliary's subject is its verb is told by how often
English writes it in "-ing" (:func:`verb_evidence`: "scheduling" is frequent, "looping" less so and
"councilling" unknown): "Does the event loop | schedule tasks or callbacks?" keeps "the event loop"
whole (:func:`engine.offline_item_words.modal_subject_end`)."""

from __future__ import annotations

import functools

from engine.offline_list_words import PREPOSITIONS
from engine.offline_list_words import function_word as _function

#: English auxiliaries that open a yes-or-no question before its subject, which a bare verb follows.
_AUXILIARIES = frozenset("do does did can could should would will shall may might must".split())
#: English forms of "be" that open a yes-or-no question before its subject, which a predicate follows.
_COPULAS = frozenset("is are was were".split())
#: English question words an auxiliary may follow ("How can Python read or write …").
_ASKING = frozenset("how why when where".split())
#: English subject pronouns a verb follows ("Can we read or write …").
_PRONOUNS = frozenset("i we you they it he she".split())
#: English words that open a noun phrase: a subject after an auxiliary ("the city"), or an object
#: after a verb ("write a ZIP file").
_DETERMINERS = frozenset("the a an my your our their his her its this that these those".split())
#: Zipf frequency (log10 of uses per billion words, wordfreq's English list) from which English
#: writes a word's "-ing" form often enough for the word to be read as a verb ("encrypting" 2.3,
#: "preempting" 1.8; "landlording" 1.0, "citying" none).
MIN_VERB_ZIPF = 1.5


@functools.lru_cache(maxsize=4096)
def verb_evidence(word: str) -> float:
    """How often English writes ``word`` (an English word in small letters) as a verb in "-ing": the
    Zipf frequency (wordfreq's English list) of its most frequent "-ing" form ("reading"; "writing"
    with its "e" dropped; "running" with its last letter doubled); 0 for a word it never writes so
    ("city", "kernel")."""
    from wordfreq import zipf_frequency

    low = word.lower()
    if not low.isalpha():
        return 0.0
    forms = [f"{low}ing", f"{low}{low[-1]}ing"]
    if low.endswith("e") and not low.endswith("ee"):
        forms.append(f"{low[:-1]}ing")
    return max(zipf_frequency(form, "en") for form in forms)


def _verb(word: str) -> bool:
    """True when ``word`` reads as a bare English verb: small letters, no function word, no plural "-s"
    (:func:`engine.offline_item_words.is_plural`) and an "-ing" form English writes
    (:func:`verb_evidence`, :data:`MIN_VERB_ZIPF`)."""
    from engine.offline_item_words import is_plural

    return (word[:1].islower() and word.isalpha() and not _function(word.lower(), "en")
            and not is_plural([word]) and verb_evidence(word) >= MIN_VERB_ZIPF)


def _noun(word: str) -> bool:
    """True when ``word`` may be a noun of a subject: letters (a hyphen inside), no function word."""
    return word.replace("-", "").isalpha() and not _function(word.lower(), "en")


def shared_around(
    first: list[str], second: list[str], language: str
) -> tuple[list[str], list[list[str]], list[str]] | None:
    """``(prefix, items, tail)`` of an English question that offers two words after an auxiliary
    (:data:`_AUXILIARIES`, after a question word or not), ``first`` its words up to "or" and
    ``second`` those after it:

    - two verbs of one subject, which the second one's object follows: the first clause is the
      auxiliary, its subject (a pronoun, one or two capitalised words, a word in small letters that
      is no adjective, or a determiner and one or two nouns) and a verb (:func:`_verb`); the second
      opens with a verb and its object, up to any preposition a determiner, a name or words that are
      no function words ("Can Python | read or write | ZIP files", "Does the kernel | read or write
      | a file"); the object is every item's.
    - two subjects of one determiner and one verb: the first clause is the auxiliary, a determiner
      and one or two nouns; the second is one noun and a verb (:func:`_verb`) with the words after it
      ("Should the | city or state | pay for it", "Should the | city council or state | pay"); the
      verb and its words are every item's, "a" or "an" each item's own ("Can | a process or a
      thread | hold a lock"), and a capitalised second noun, a name, takes none ("Can the US or China win"; one in capitals
      does: "Does the EU or US have …": "Does the US have …").

    In German, Spanish, Portuguese, Italian and French (:func:`_shared_in`) the auxiliary is a modal
    verb (:data:`engine.offline_verb_choices.MODALS_IN`, German "wird" too): two subjects with their
    articles share the infinitive after them ("Soll | die Stadt oder der Staat | dafür zahlen",
    "¿Debería | la ciudad o el estado | pagarlo?"), and two infinitives after a subject the object
    after them ("¿Puede Python | leer o escribir | archivos ZIP?"). None for any other list."""
    if not first or len(second) < 2:
        return None
    if language != "en":
        return _shared_in(first, second, language)
    at = 1 if first[0].lower() in _ASKING and len(first) > 1 else 0
    if first[at].lower() in _COPULAS:  # "Is the | city or state | responsible"
        return _two_subjects(first, second, at + 1, copula=True)
    if first[at].lower() not in _AUXILIARIES:
        return None
    return _two_verbs(first, second, at + 1) or _two_subjects(first, second, at + 1) or _two_pronouns(
        first, second, at + 1)


def _subject_end(first: list[str], start: int) -> int:
    """Where the subject that opens at ``start`` in ``first`` ends, when a verb is the clause's last
    word after it (:func:`shared_around`'s first kind); 0 otherwise."""
    subject = first[start:-1]
    if not subject:
        return 0
    low = [w.lower() for w in subject]
    if len(subject) == 1 and (low[0] in _PRONOUNS or subject[0][:1].isupper()):
        return len(first) - 1  # "Can we |", "Can Python |"
    if len(subject) == 2 and all(w[:1].isupper() and w != "I" and _noun(w) for w in subject):
        return len(first) - 1  # "Can Visual Studio |"
    if len(subject) == 1 and _noun(subject[0]):
        from engine.offline_list_words import adjective

        return 0 if adjective(low[0]) else len(first) - 1  # "Can pandas |", not "Can solar |"
    if low[0] in _DETERMINERS and 2 <= len(subject) <= 3 and all(_noun(w) for w in subject[1:]):
        return len(first) - 1  # "Can the kernel |", "Does the event loop |"
    return 0


def _two_verbs(first: list[str], second: list[str], start: int) -> tuple[list[str], list[list[str]], list[str]] | None:
    """:func:`shared_around` of two verbs of one subject ("Can Python | read or write | ZIP files")."""
    end = _subject_end(first, start)
    if not end or not _verb(first[-1]) or not _verb(second[0]):
        return None
    obj = second[1:]
    head = obj[: next((k for k in range(1, len(obj)) if obj[k].lower() in PREPOSITIONS), len(obj))]
    opens = head[0].lower() in _DETERMINERS or not head[0][:1].islower()
    if not opens and any(_function(w.lower(), "en") for w in head):
        return None  # "… or state | pay for it": a subject and its verb
    return first[:end], [first[end:], second[:1]], obj


def _two_subjects(
    first: list[str], second: list[str], start: int, copula: bool = False
) -> tuple[list[str], list[list[str]], list[str]] | None:
    """:func:`shared_around` of two subjects of one determiner ("Should the | city or state | pay for it"),
    a noun after the second one every item's (:func:`_head_noun`: "city or state government"). After a
    form of "be" (``copula``) what follows the subjects is a word in small letters that is no function
    word ("Is the | city or state | responsible")."""
    nouns = first[start + 1 :]
    if (
        len(first) <= start + 1
        or first[start].lower() not in _DETERMINERS
        or not 1 <= len(nouns) <= 2
        or not all(_noun(w) for w in [*nouns, second[0]])
    ):
        return None
    head = _head_noun(second, copula)  # "Should the | city or state government | pay": "city government"
    nouns, second = [*nouns, *head], [second[0], *second[1 + len(head) :]]
    if len(second) < 2 or not _predicate(second[1], copula):
        return None
    article = first[start].lower()
    if second[0][:1].isupper() and not second[0].isupper():  # "Can the US or | China win": a name takes no
        # article, where one in capitals takes it ("the EU or US": "the US")
        return first[:start], [[*first[start:], *head], [*second[:1], *head]], second[1:]
    if article in ("a", "an"):  # "a process or a thread": each noun its own article
        def own(noun: list[str]) -> list[str]:
            written = "an" if noun[0][:1].lower() in "aeiou" else "a"
            return [written.capitalize() if first[start][:1].isupper() else written, *noun]

        return first[:start], [own(nouns), own([*second[:1], *head])], second[1:]
    return first[: start + 1], [nouns, [*second[:1], *head]], second[1:]


def _predicate(word: str, copula: bool) -> bool:
    """True when ``word`` may open what two subjects share: a verb (:func:`_verb`, "be", "have"), or
    after a form of "be" (``copula``) a word in small letters that is no function word ("responsible")."""
    if copula:
        return word.isalpha() and word.islower() and not _function(word, "en")
    return _verb(word) or word.lower() in ("be", "have")


def _head_noun(second: list[str], copula: bool = False) -> list[str]:
    """The noun that two English nouns before it share, as adjectives do, when the words after "or"
    (``second``) are a noun, that noun in small letters and a verb (:func:`_predicate`): "state |
    government | pay" of "Should the city or state government pay" ("city government", "state
    government"). The shared noun is no function word nor adverb, and English writes its plural
    (:func:`_plural_evidence`, at least :data:`MIN_PLURAL_ZIPF`) but hardly its "-ing" form
    (:func:`verb_evidence` below :data:`MIN_VERB_ZIPF`): "government", "council", "department"; not
    "help" ("state | help pay") nor "really". [] otherwise."""
    from engine.offline_list_words import adverb

    if len(second) < 3 or not second[0][:1].islower() or not second[1].isalpha() or not second[1].islower():
        return []
    word = second[1]
    if (
        _function(word, "en")
        or adverb(word)
        or verb_evidence(word) >= MIN_VERB_ZIPF
        or _plural_evidence(word) < MIN_PLURAL_ZIPF
        or not _predicate(second[2], copula)
    ):
        return []
    return [word]


#: Zipf frequency (wordfreq, English) from which English writes a word's plural often enough for the
#: word to be read as a noun ("governments" 4.5, "councils" 3.9; "responsibles", "alones" hardly).
MIN_PLURAL_ZIPF = 2.0


def _plural_evidence(word: str) -> float:
    """How often English writes ``word`` (small letters) in the plural: the Zipf frequency of its most
    frequent regular plural ("governments", "boxes", "agencies")."""
    from wordfreq import zipf_frequency

    forms = [f"{word}s", f"{word}es"] + ([f"{word[:-1]}ies"] if word.endswith("y") else [])
    return max(zipf_frequency(form, "en") for form in forms)


#: English possessives that open a subject of their own after "or" ("Should I or | my wife pay").
POSSESSIVES = frozenset("my our your their his her".split())


def _two_pronouns(
    first: list[str], second: list[str], start: int
) -> tuple[list[str], list[list[str]], list[str]] | None:
    """:func:`shared_around` of a subject pronoun and another subject of one verb: the first clause is
    the auxiliary and the pronoun (:data:`_PRONOUNS`), the second opens with another pronoun or a
    possessive and one or two nouns (:data:`POSSESSIVES`), then the verb (:func:`_verb`) and its words,
    every item's ("Should | we or they | pay", "Does | he or she | pay the tax", "Do | you or your
    partner | pay")."""
    if len(first) != start + 1 or first[start].lower() not in _PRONOUNS | {"i"}:
        return None
    opener = second[0].lower()
    if opener in _PRONOUNS and opener != first[start].lower():
        end = 1
    elif opener in POSSESSIVES:
        end = next((k for k in range(2, min(len(second), 4)) if _verb(second[k])), 0)
        if not end or not all(_noun(w) for w in second[1:end]):
            return None
    else:
        return None
    if end >= len(second) or not _verb(second[end]):
        return None
    return first[:start], [first[start:], second[:end]], second[end:]


#: German auxiliaries of the future and the conditional, which an infinitive ends the clause of as it
#: does a modal's ("Wird die EU … regulieren").
_FUTURE_DE = frozenset("wird werden würde würden".split())


def _shared_in(
    first: list[str], second: list[str], language: str
) -> tuple[list[str], list[list[str]], list[str]] | None:
    """:func:`shared_around` outside English: after a modal verb that opens the question, two subjects
    each with its article (a capitalised noun in German), the infinitive after them every item's (the
    last word in German, the word after the second noun elsewhere); or a subject and an infinitive
    that ends the first clause and one that opens the second, outside German (whose infinitive comes
    last), its object every item's; a French modal written with its pronoun is its subject too
    ("Doit-on | acheter ou louer | une voiture")."""
    from engine.offline_list_words import ARTICLES
    from engine.offline_subject_verbs import german_verb_final, subjects_before_verb
    from engine.offline_verb_choices import _INFINITIVE, MODALS_IN

    pattern, articles = _INFINITIVE.get(language), ARTICLES.get(language, frozenset())
    modals = MODALS_IN.get(language, frozenset()) | (_FUTURE_DE if language == "de" else frozenset())
    if (subjects := subjects_before_verb(first, second, language)) is not None:
        return subjects  # "La ville ou l'État | doit payer", "Est-ce que | 5 % ou 10 % | suffit"
    if pattern is None or first[0].lower().split("-")[0] not in modals:
        return None

    def infinitive(word: str) -> bool:
        return (word[:1].islower() and bool(pattern.fullmatch(word.lower()))
                and not _function(word.lower(), language))

    def subject(words: list[str]) -> bool:  # "die Stadt", "la ciudad"
        noun = words[1][:1].isupper() if language == "de" else words[1][:1].islower()
        return len(words) == 2 and words[0].lower() in articles and (noun or words[1].isupper())  # "la UE"

    rest = second[2:]
    if len(first) == 3 and subject(first[1:]) and subject(second[:2]) and rest:
        verb = rest[-1] if language == "de" else rest[0]
        if infinitive(verb):
            return first[:1], [first[1:], second[:2]], rest
    if (language != "de" and len(first) >= (2 if "-" in first[0] else 3)  # "Doit-on |", "Puede Python |"
            and infinitive(first[-1]) and infinitive(second[0])
            and not infinitive(first[-2])):
        return first[:-1], [first[-1:], second[:1]], second[1:]  # "Puede Python | leer o escribir | archivos"
    if language == "de":
        return german_verb_final(first, second, modals)  # "Kann der Kernel | Threads oder Prozesse | planen"
    return None
