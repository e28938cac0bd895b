"""A later question's pronoun, for :func:`engine.offline_lists.listed_topics`.

A question asked after another ("Which heat pumps are cheapest to run? How loud are they?", "Wie
laut sind Wärmepumpen und was kosten sie?") is a sub-question of its own, and a heading of its own in
the report; "How loud are they" says nothing there. Its pronoun (:data:`STANDING_FOR`) is written as
the first question's subject, in the first question's words (:func:`subject_as_written`): "How loud
are heat pumps", "Was kosten Wärmepumpen", French "Les pompes à chaleur sont-elles bruyantes"
(a noun subject before the verb and its pronoun, :func:`resolved`). The subject is a noun phrase,
never with the verb after it ("How long do heat pumps last and how much do they cost?": "How much do
heat pumps cost", :func:`_before_verb`). A sub-question opens with a
capital letter (:func:`capitalised`).
"""

from __future__ import annotations

import re

from engine.language import _INTERROGATIVES as _ASKING
from engine.offline_list_words import ARTICLES, CHOOSING, REFLEXIVES
from engine.offline_list_words import function_word as _function
from engine.offline_subject_items import POSSESSIVES
from engine.offline_text import _AUXILIARIES, _INTERROGATIVES, content_words

#: Personal pronouns that stand for a thing the question before named, by language (subject and
#: object forms). Words that are also articles or verbs elsewhere are left out (Spanish "es", Dutch
#: "het"); German "es" next to "gibt" says that something exists, Swedish "de", "den" and "dem" are
#: pronouns only before the end or a function word (:func:`resolved`).
STANDING_FOR = {
    "en": frozenset("they it them".split()),
    "de": frozenset("sie es ihnen".split()),
    "fr": frozenset("ils elles il elle".split()),
    "es": frozenset("ellos ellas".split()),
    "it": frozenset("essi esse".split()),
    "pt": frozenset("eles elas ele ela".split()),
    "nl": frozenset("ze zij hij".split()),
    "sv": frozenset("de den dem".split()),
}

#: A French verb with a third-person subject pronoun after it, one that may stand for a listed thing
#: (:data:`STANDING_FOR`), as a question writes it: ``INVERTED.fullmatch(word)`` gives the verb as
#: ``group(1)`` and the pronoun as ``group(2)`` ("sont-elles": "sont", "elles"; "coûte-t-il": "coûte",
#: "il"; "Est-il": "Est", "il"), in any case. :data:`engine.offline_lists._INVERTED` takes every
#: subject pronoun ("peut-on").
INVERTED = re.compile(r"([^\W\d_]+)-(?:t-)?(ils|elles|il|elle)", re.IGNORECASE)
#: "qu'elle", "qu'il": "que" and a pronoun ("est-ce qu'elle est rentable").
_ELIDED_QUE = re.compile(r"qu['’](ils|elles|il|elle)", re.IGNORECASE)
#: Prepositions inside a noun the Romance languages and Dutch write in words ("pompes à chaleur",
#: "bombas de calor", "pompe di calore"), and English "of" ("types of heat pumps").
#: French "que" and "ce" elided before the next word ("qu'une pompe", "Qu'est-ce"), which
#: :func:`subject_as_written` reads as a word of its own.
_ELIDED_HEAD = re.compile(r"(?<!\w)((?:qu|c)['’])", re.IGNORECASE)
_LINKERS = frozenset("à de di da do van of".split())
#: French "il" that stands for nothing: "il y a", "il faut".
_IMPERSONAL = frozenset("y faut".split())
#: The French definite article for a subject written without one, by the pronoun's number and gender.
_FRENCH_ARTICLE = {"ils": "les", "elles": "les", "il": "le", "elle": "la"}
_STRIP = ".,;:?!¿¡"
#: English auxiliaries after which a question's subject comes before its verb ("How long do | heat
#: pumps | last", "What can | a heat pump | heat"): :func:`_before_verb` leaves that verb out.
_VERB_AFTER = frozenset("do does did can could should would will shall may might must".split())
#: English question words that may be the subject of the verb right after them ("What causes
#: inflation", "Who invented the telephone"): with no auxiliary in the question, that word is its verb.
_ASKS_A_VERB = frozenset("what who".split())
#: English particles of a phrasal verb ("pay off", "break down"), left out with their verb.
_PARTICLES = frozenset("off down up out away back over".split())


#: Languages whose question sets its verb right after the question word, a noun subject after it in
#: small letters ("Wat kosten | warmtepompen", "Hur länge håller | värmepumpar"), and the particles of
#: their separable verbs, which end the question ("Hoe lang gaan warmtepompen mee").
_PARTICLES_AT_END = {
    "nl": frozenset("mee af op aan uit in door terug weg toe over bij".split()),
    "sv": frozenset("upp av ut in till över bort med på".split()),
}


def _plural_noun(word: str) -> bool:
    """True when ``word`` (lower-cased, four letters or more) reads as an English plural noun: it ends
    in "s", not in "ss", "us", "is" or "as" ("pumps", "batteries"; not "glass", "virus", "basis", "gas"),
    and is letters alone (not a possessive: "React's")."""
    return (len(word) > 3 and word.isalpha() and word.endswith("s")  # "react's", "git’s": possessives
            and not word.endswith(("ss", "us", "is", "as")))
#: Letters before which French elides "le", "la" and "que" ("l'onduleur", "qu'une").
_VOWELS = "aeiouhéèêâîôûà"
#: A word of small letters alone (a hyphen or an apostrophe inside: "sont-elles", "qu'est-ce").
_SMALL_WORD = re.compile(r"(?:(?![A-Z\d_])[^\W\d_])+(?:[-'’][^\W\d_]+)*")


def _plain(token: str, language: str) -> bool:
    """True when ``token`` is a word that names something (a content word, no question verb nor
    function word of ``language``)."""
    from engine.offline_terms import QUESTION_VERBS

    named = [w for w in content_words(token) if w not in QUESTION_VERBS]
    return bool(named) and not token.endswith(("'", "’")) and not _function(token.lower(), language)


def subject_as_written(question: str, language: str = "en", keep_verb: bool = False) -> str:
    """The subject of ``question`` (the first sub-question) in its own words, with its article: the
    words after the asked word and its verb ("heat pumps" of "How loud are heat pumps", "eine
    Wärmepumpe" of "Was kostet eine Wärmepumpe", "les pompes à chaleur" of "Combien coûtent les
    pompes à chaleur"), or the first words that name something ("heat pumps" of "Which heat pumps
    are cheapest to run"), a German noun by its capital ("Wärmepumpen" of "Was kosten
    Wärmepumpen"), a Romance noun with its "à", "de" or "di" ("pompes à chaleur"): the first run of
    such words, as :func:`engine.offline_asked.main_subject` finds its terms, without an English verb
    after it ("heat pumps" of "How long do heat pumps last": :func:`_before_verb`); in Dutch and
    Swedish the words after the question word's verb, without a particle at the end ("warmtepompen" of
    "Wat kosten warmtepompen" and "Hoe lang gaan warmtepompen mee": :data:`_PARTICLES_AT_END`). "" when there is none,
    or the question opens with an auxiliary ("Is Python slow": where the subject ends cannot be told;
    a German noun can, by its capital)."""
    tokens = [t.strip(_STRIP) for t in _ELIDED_HEAD.sub(r"\1 ", question).split()]
    tokens = [t for t in tokens if t]
    low = [t.lower() for t in tokens]
    articles = ARTICLES.get(language, ARTICLES["en"])
    asking = _INTERROGATIVES | set(_ASKING.get(language, "").split())
    start = 0
    verb_after = False  # "How long do | heat pumps | last": the subject's verb comes after it
    if language != "de" and low and low[0] in _AUXILIARIES:
        return ""  # "Is Python slow": where its subject ends, its adjective cannot be told from it
    if low and low[0] in asking and low[0] not in CHOOSING:
        for j in range(1, min(4, len(tokens) - 1)):  # "How loud are | …", "Was kostet | eine …"
            if low[j] in _AUXILIARIES or low[j + 1] in articles:
                start = j + 1
                verb_after = language == "en" and low[j] in _VERB_AFTER
                break
        if (not start and language == "en" and low[0] in _ASKS_A_VERB and len(tokens) > 2
                and not any(t in _AUXILIARIES for t in low[1:])):
            start = 2  # "What causes | inflation": the verb after "What" is no word of its object
        if not start and language in _PARTICLES_AT_END:  # "Wat kosten | warmtepompen", "Hoe lang gaan | …"
            verb = next((i for i in range(1, len(tokens)) if not _function(low[i], language) and low[i] not in asking), 0)
            start = verb + 1 if verb and verb + 1 < len(tokens) else 0
    if language == "de":  # a noun is capitalised: "Was kosten | Wärmepumpen", "… | eine moderne Wärmepumpe"
        noun = _german_noun(tokens, start, articles)
        if noun:
            return noun
    k = next((i for i in range(start, len(tokens)) if low[i] in articles or _plain(tokens[i], language)), None)
    if k is None:
        return ""
    end = k
    while end < len(tokens) and low[end] in articles:
        end += 1
    if end == len(tokens) or not _plain(tokens[end], language):
        return ""
    while end + 1 < len(tokens) and _plain(tokens[end + 1], language):
        end += 1
    while end + 2 < len(tokens) and low[end + 1] in _LINKERS and _plain(tokens[end + 2], language):
        end += 2  # "pompes à chaleur", "bombas de calor"
    if verb_after and not keep_verb:
        end = _before_verb(tokens, k, end, language)
    if end > k and end == len(tokens) - 1 and low[end] in _PARTICLES_AT_END.get(language, ()):
        end -= 1  # "Hoe lang gaan warmtepompen | mee": the verb's particle
    return " ".join(tokens[k : end + 1])


#: English auxiliaries before "they" and their singular, for "they" written as a singular subject
#: ("how much do they earn" after "What does a nurse do": "how much does a nurse earn").
_SINGULAR = {"do": "does", "are": "is", "have": "has", "were": "was"}
#: English "do" as a main verb after its subject ("What does a nurse do").
_DO = frozenset({"do", "does", "did"})


def _before_verb(tokens: list[str], k: int, end: int, language: str) -> int:
    """Where the subject ``tokens[k : end + 1]`` of an English question that asks with "do", "does"
    or a modal verb (:data:`_VERB_AFTER`) ends, its verb left out: that verb comes after the subject,
    and names no thing ("How long do heat pumps last": "heat pumps", not "heat pumps last"). A plural
    noun ("pumps", "batteries") followed by a word that is none ends it ("When do solar panels | pay
    off", "How long do lithium batteries | usually last"); else, when nothing or a function word or a
    verb's particle follows the run (:data:`_PARTICLES`: "off", "down"), its last word, a particle
    left out first, is the verb ("How long does a heat pump | last", "How fast does Python | run"),
    unless that word is a form of "do", the verb itself ("What does a data scientist | do"). A
    subject of one word is kept ("What does asyncio do")."""
    low = [t.lower() for t in tokens]
    for i in range(k, end):
        if _plural_noun(low[i]) and not _plural_noun(low[i + 1]):
            return i
    after = low[end + 1] if end + 1 < len(low) else ""
    if after in _DO:
        return end  # "What does a data scientist | do": "do" is the verb, the run all subject
    last = end
    while last > k and low[last] in _PARTICLES:
        last -= 1
    if last > k and (not after or _function(after, language) or last < end):
        return last - 1
    return end


def _german_noun(tokens: list[str], start: int, articles: frozenset[str]) -> str:
    """The first German noun phrase in ``tokens`` from ``start`` (never the question's first word): an
    article or, right at ``start``, an adjective, and the words up to its capitalised noun ("eine
    moderne Wärmepumpe", "moderne Wärmepumpen"), or capitalised words ("Wärmepumpen"); "" when there
    is none ("Was ist asyncio")."""
    low = [t.lower() for t in tokens]
    k = next((i for i in range(max(start, 1), len(tokens)) if low[i] in articles or tokens[i][:1].isupper()), None)
    if k is not None and start and k > start and _plain(tokens[start], "de"):
        k = start  # "Wie laut sind | moderne Wärmepumpen": its adjective
    if k is None:
        return ""
    end = next((i for i in range(k + (low[k] in articles), len(tokens)) if tokens[i][:1].isupper()), None)
    if end is None:
        return ""
    while end + 1 < len(tokens) and tokens[end + 1][:1].isupper() and _plain(tokens[end + 1], "de"):
        end += 1
    return " ".join(tokens[k : end + 1])


def _with_article(subject: str, pronoun: str, language: str) -> str:
    """``subject`` with a French definite article when it has none, by ``pronoun``'s number and gender
    (:data:`_FRENCH_ARTICLE`: "pompes à chaleur" for "elles": "les pompes à chaleur"); as written
    otherwise."""
    if language != "fr" or subject.split()[0].lower() in ARTICLES["fr"] or re.match(r"[ld]['’]", subject, re.I):
        return subject
    article = _FRENCH_ARTICLE[pronoun.lower()]
    if article != "les" and subject[:1].lower() in _VOWELS:
        return f"l'{subject}"
    return f"{article} {subject}"


def resolved(clause: str, subject: str, language: str = "en", acting: str = "") -> str:
    """``clause`` (a later question) with its first pronoun that stands for a thing (:data:`STANDING_FOR`)
    written as ``subject`` (:func:`subject_as_written` of the first question): "How loud are heat
    pumps", "Was kosten Wärmepumpen"; a French verb with its pronoun after it keeps it, the subject
    before them ("à quoi une pompe à chaleur sert-elle", "les pompes à chaleur sont-elles
    bruyantes"), "qu'elle" is "que" and the subject. English "it" after a plural subject stands for
    what the subject does, ``acting`` (the subject with its verb, :func:`subject_as_written` with
    ``keep_verb``: "Why do cats purr and what does it mean?": "What does cats purr mean", not "What
    does cats mean"). English "they" for a subject with "a" or "an" makes the auxiliary before it
    singular (:data:`_SINGULAR`: "how much do they earn" after "What does a nurse do": "how much
    does a nurse earn"). ``clause`` as written when it has no such pronoun or ``subject`` is ""."""
    pronouns = STANDING_FOR.get(language, frozenset())
    tokens = clause.split()
    if not subject or not pronouns:
        return clause
    for i, token in enumerate(tokens):
        word = token.strip(_STRIP)
        low = word.lower()
        after = tokens[i + 1].strip(_STRIP).lower() if i + 1 < len(tokens) else ""
        before = tokens[i - 1].strip(_STRIP).lower() if i else ""
        if language == "fr" and (m := INVERTED.fullmatch(word)):
            return " ".join([*tokens[:i], _with_article(subject, m.group(2), language), *tokens[i:]])
        if language == "fr" and (m := _ELIDED_QUE.fullmatch(word)):
            written = _with_article(subject, m.group(1), language)
            que = f"{word[:3]}{written}" if written[:1].lower() in _VOWELS else f"{word[:2]}e {written}"
            return " ".join([*tokens[:i], token.replace(word, que), *tokens[i + 1 :]])
        if low not in pronouns or (language == "de" and word != low and i):  # "Sie" is the asker
            continue
        if language == "de" and low == "es" and "gibt" in (before, after):
            continue  # "welche Förderung gibt es": that something exists
        if language == "fr" and after in _IMPERSONAL:
            continue
        if language == "sv" and after and not (_function(after, language) or after in REFLEXIVES):
            continue  # "den stora": an article
        written = _with_article(subject, low, language)
        if language == "en" and low == "they" and i and subject.split()[0].lower() in ("a", "an"):
            # "how much do they earn" after "a data scientist": "how much does a data scientist earn"
            verb = tokens[i - 1].strip(_STRIP)
            singular = _SINGULAR.get(verb.lower())
            if singular:
                tokens = [*tokens[: i - 1], tokens[i - 1].replace(verb, singular.capitalize() if verb[:1].isupper() else singular), *tokens[i:]]
        if language == "en" and low == "it" and acting and _plural_noun(subject.split()[-1].lower()):
            written = acting  # "what does it mean" after "Why do cats purr": the purring
        return " ".join([*tokens[:i], token.replace(word, written), *tokens[i + 1 :]])
    return clause


def capitalised(topic: str, language: str = "en") -> str:
    """``topic`` (a later question, its heading in the report) opening with a capital letter when it
    opens as a question does, in small letters: with a question word, an auxiliary, a function word
    or a French verb and its pronoun ("was kosten Wärmepumpen": "Was kosten Wärmepumpen", "sont-elles
    bruyantes"). A topic that opens with a name ("asyncio", "wind turbines" after a semicolon) or code
    is left as written."""
    first = topic.split()[0] if topic.split() else ""
    if not _SMALL_WORD.fullmatch(first):
        return topic
    asking = _INTERROGATIVES | set(_ASKING.get(language, "").split())
    word = first.split("-")[0] if first.count("-") == 1 and not INVERTED.fullmatch(first) else first
    if not (word in asking | _AUXILIARIES or _function(word, language) or INVERTED.fullmatch(first) or "'" in word):
        return topic
    return topic[:1].upper() + topic[1:]


#: English auxiliaries a subject pronoun follows in a question ("Should we", "Do you").
_ASKING_AUXILIARIES = frozenset("do does did can could should would will shall may might must is are was were".split())
#: English subject pronouns, which may be listed as subjects ("Should we or they pay").
_SUBJECT_PRONOUNS = frozenset("i we you they he she".split())


def pronoun_item(clause: str, following: str) -> bool:
    """True when ``clause`` (English words that name nothing) is an auxiliary and a subject pronoun
    ("Should we", :data:`_ASKING_AUXILIARIES`) and the clause after the "or" or "and" that follows it
    (``following``) opens with another subject pronoun (:data:`_SUBJECT_PRONOUNS`) or a possessive
    ("they pay", "your partner pays": :data:`engine.offline_subject_items.POSSESSIVES`): the first item
    of a list of subjects ("Should we or they pay?": "Should we pay", "Should they pay"), not words to
    leave out."""
    words_ = clause.lower().split()
    after = following.split()[:1]
    return (
        len(words_) == 2
        and words_[0] in _ASKING_AUXILIARIES
        and words_[1] in _SUBJECT_PRONOUNS
        and bool(after)
        and after[0].lower() in _SUBJECT_PRONOUNS | POSSESSIVES
        and after[0].lower() != words_[1]
    )
