"""What a question asks of the sentences the offline model chooses from: the terms they are matched by.

What a question asks of the candidates is its words less three kinds (:func:`asked_terms`): marks that
are no words (a shell variable, a LaTeX command, a hashtag, a placeholder, a percentage:
:data:`MARKS`) unless a candidate writes them too; words in a script no candidate uses
(:func:`writable`); and, when the candidates are written in another language than the question
("Wie bricht asyncio Tasks ab?" over English pages), its words none of them writes ("bricht"): what
it shares with them are names and loanwords ("asyncio", "Tasks"), and those, with the cognates beside
them (Spanish "cancela": "cancel"), are what it is matched by.
A question in the candidates' own language keeps every word: "How loud are wind turbines?" over
pages that say "noise" quotes nothing rather than what "wind turbines" alone finds. Its main subject
is its first words (:func:`main_subject`: "heat pumps" of "Which heat pumps are cheapest to run in
Germany in 2026?"), and a plural noun of it is not named by a sentence that writes the word only as
another part of speech (:func:`not_as_nouns`: "sets" and "If no DTDHandler is set").
"""

from __future__ import annotations

import functools
import re

from engine.language import is_function_word
from engine.offline_terms import (
    _TOKEN,
    QUESTION_VERBS,
    _asking_measures,
    _query_words,
    _terms_of,
    _tokens,
    comparison_frames,
    query_terms,
    terms,
)
from engine.segments import script

#: Marks in a question that are no words: a shell or environment variable ("$HOME_DIR", "${HOME}",
#: "%APPDATA%"), a LaTeX command ("\section"), a hashtag ("#tag"), a placeholder in braces
#: ("{a_b}"), a percentage ("5%", "12,5 %"). Each is asked for only when a candidate writes it too.
MARKS = re.compile(r"(?<![\w$\\#{%])(?:\$\{?[^\W\d]\w*\}?|%[^\W\d]\w*%|\\[A-Za-z]+|#[^\W\d]\w*"
                   r"|\{[^\W\d]\w*\}|\d+(?:[.,]\d+)?\s?%)(?!\w)")
#: How much of the candidates' text tells their language (:func:`_other_language`).
LANGUAGE_SAMPLE = 4000
#: Markup tags in a question ("<b>", "</b>", "<br/>"): no words, asked for only when a candidate writes them.
TAGS = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>")
#: Inline mathematics in a question ("$x$", "$a + b$"): no words, asked for only when a candidate writes
#: it; a closing "$" before a word or a digit opens a variable or an amount ("$HOME and $PATH", "$5 to $10").
MATH = re.compile(r"(?<![\w$])\$[^$\s][^$\n]*?\$(?![\w{$])")


def _nouns_only(docs: list[list[str]], candidates: list[str], query: str, language: str) -> list[list[str]]:
    """``docs`` (the terms of each candidate) without the terms :func:`not_as_nouns` finds in it."""
    if not _plural_subject(query, language):
        return docs
    out = []
    for doc, candidate in zip(docs, candidates, strict=True):
        gone = not_as_nouns(query, candidate, language, said=set(doc))
        out.append([t for t in doc if t not in gone] if gone else doc)
    return out


@functools.lru_cache(maxsize=256)
def _plural_subject(query: str, language: str) -> tuple[tuple[str, tuple[str, ...], str], ...]:
    """The plural nouns of ``query``'s main subject (English only): (word as written, its singular forms,
    :func:`engine.word_forms.plural_noun`; its term)."""
    from engine.word_forms import plural_noun

    if language != "en":
        return ()
    plurals = [(w, plural_noun(w)) for w in _main_words(query)]
    return tuple((w, s, _terms_of([w], language, split=False)[0]) for w, s in plurals if s)


def not_as_nouns(query: str, text: str, language: str = "en", *, said: set[str] | None = None) -> set[str]:
    """The terms of the plural nouns of ``query``'s main subject (:func:`main_subject`, English: "set" of
    "How do sets differ") that ``text`` writes only as another part of speech
    (:func:`engine.word_forms.as_noun`: "If no DTDHandler is set"): ``text`` does not name them. Empty in
    another language. ``said``: the terms of ``text`` when the caller has them
    (:func:`engine.offline_terms.terms`)."""
    from engine.word_forms import as_noun

    plurals = _plural_subject(query, language)
    if not plurals:
        return set()
    said = set(terms(text, language)) if said is None else said
    return {term for word, singulars, term in plurals if term in said and not as_noun(word, singulars, text)}


def unmarked(query: str, candidates: list[str]) -> str:
    """``query`` without the marks that are no words (inline mathematics, :data:`MATH`: "$x$"; markup
    tags, :data:`TAGS`: "<b>"; and :data:`MARKS`: "$HOME_DIR", "\\section", "5%") that no candidate
    writes too (case aside; "5 %" writes "5%"), each replaced by a space; a mark a candidate writes
    ("$HOME" in a sentence on ``expanduser``) stays, as a word of the question."""
    if not (MARKS.search(query) or TAGS.search(query) or MATH.search(query)):
        return query
    text = "\n".join(candidates)

    def kept(m: re.Match, around: bool = True) -> str:
        mark = m.group(0)
        written = r"\s?".join(re.escape(ch) for ch in mark if not ch.isspace())
        if around:  # a mark of :data:`MARKS` is one where no word goes on before or after it
            written = rf"(?<![\w$\\#{{%]){written}(?!\w)"
        return mark if re.search(written, text, re.IGNORECASE) else " "

    query = MATH.sub(lambda m: kept(m, False), query)
    query = TAGS.sub(lambda m: kept(m, False), query)
    return MARKS.sub(kept, query)


def _other_language(candidates: list[str], language: str) -> bool:
    """True when ``candidates`` (their first :data:`LANGUAGE_SAMPLE` characters) are written in another
    language than ``language`` by :func:`engine.language.detect_language` (Chinese in either script
    is one language; unsure is the same)."""
    from engine.language import detect_language

    found = detect_language(" ".join(candidates)[:LANGUAGE_SAMPLE], default=language)
    return found.split("-")[0] != language.split("-")[0]


def asked_terms(query: str, candidates: list[str], docs: list[list[str]], language: str = "en") -> list[str]:
    """The terms of ``query`` (:func:`engine.offline_terms.query_terms`) asked of ``candidates``, whose
    terms ``docs`` are: without marks no candidate writes (:func:`unmarked`) or words in a script none uses
    (:func:`writable`); and, when the candidates are in another language than ``language``
    (:func:`_other_language`), only the terms of its words some candidate writes as the question
    does, case aside (names and loanwords: "asyncio", "Tasks", "wait_for"), and, beside one of
    those, of its words some candidate has in another form of the same stem (a cognate: Spanish
    "cancela" meets "cancel()"; alone such a match is as often a false friend: French "attente"
    meets "attention"). All of them when the candidates share none."""
    query = unmarked(query, candidates)
    asked = writable(query_terms(query, language), candidates)
    if not asked or not _other_language(candidates, language):
        return asked
    written = {t.lower() for c in candidates for t in _tokens(c)}
    words = list(dict.fromkeys(_query_words(query)))
    names = {t for w, t in zip(words, _terms_of(words, language, split=False), strict=True) if w.lower() in written}
    stems = set().union(*map(set, docs))
    return [t for t in asked if t in names or (names and t in stems)] or asked


def main_subject(query: str, language: str = "en") -> list[str]:
    """The terms (:func:`engine.offline_terms.query_terms`) of the main subject of ``query``: its first
    run of words that are terms, up to the first that is none (a function word, an auxiliary, a verb
    that asks how) or a mark between two words (a comma, a dash):
    "heat pumps" of "Which heat pumps are cheapest to run in Germany?", "asyncio tasks" of "How do
    asyncio tasks handle timeouts?". Empty when the question has no term."""
    return list(dict.fromkeys(_terms_of(_main_words(query), language, split=False)))


def _main_words(query: str) -> list[str]:
    """The words of :func:`main_subject` as ``query`` writes them."""
    from engine.offline_text import STOPWORDS

    run: list[str] = []
    end = 0
    found = list(_TOKEN.finditer(query))
    asking = _asking_measures([m.group(0) for m in found])  # "Wie hoch": part of the question word
    asking |= comparison_frames([m.group(0) for m in found])  # "cost | compared to": no subject's word
    for i, m in enumerate(found):
        token, gap = m.group(0), query[end : m.start()]
        end = m.end()
        word = token.lower()
        framing = word in STOPWORDS or word in QUESTION_VERBS or is_function_word(word) or i in asking
        if run and (gap.strip() or framing):
            break  # a mark between ("Heat pumps — limitations") ends the subject as a function word does
        if not framing:
            run.append(token)
    return [t for t in _tokens(" ".join(run)) if not is_function_word(t.lower()) and t.lower() not in STOPWORDS]


def writable(query: list[str], candidates: list[str]) -> list[str]:
    """The terms of ``query`` written in a script some candidate uses (:func:`engine.segments.script`),
    all of them when none is: a Japanese question's "タスク" cannot be met by English sentences, so
    its "asyncio" alone is asked of them."""
    written = {script(ch) for ch in set("".join(candidates)) if ch.isalpha()}
    return [t for t in query if not script(t) or script(t) in written] or query
