"""How the offline model chooses sentences for a question: stemmed relevance, a floor, and diversity.

Sentences and questions are read as stemmed terms (:mod:`engine.offline_terms`), a question by the
terms it asks of the candidates (:mod:`engine.offline_asked`). Relevance is BM25+ (Lv & Zhai, 2011,
via ``rank_bm25``: its inverse document frequency stays positive in a pool of a few sentences, where
BM25's own falls to zero). A chosen sentence must name :data:`MIN_TERMS_SHARE` of the question's
terms and carry :data:`COVERAGE_FLOOR` of their weight, a term weighing half its inverse document
frequency among the candidates (ln(1 + (N - n + 0.5) / (n + 0.5)), Lucene's BM25) and half the same
as every other term: a word every candidate shares (the subject they were found by) counts little, a
rare one counts more but not all, and one no candidate writes as one that a single candidate writes
(n = 1): so a sentence is chosen or not whether it comes alone (a shared file's one page found) or
among sentences on other things (the whole file in a corpus). Among those, maximal marginal
relevance (Carbonell & Goldstein, 1998) picks each next sentence for its relevance less its likeness
to those already chosen.

A sentence that names one term of a question asking about more, and that term one most of the pages
found carry (:data:`SUBJECT_SHARE`: the name they were found by, "asyncio"), says nothing about the
question and is not chosen. A sentence that names the question's main subject whole (its first
words, "heat pumps" of "Which heat pumps are cheapest to run in Germany in 2026?":
:func:`engine.offline_asked.main_subject`) and :data:`MIN_TERMS_CAP` of its terms answers it though
it misses the rarer ones ("Air-source heat pumps cost about 1,200 € a year in Germany."), whose
weight would otherwise keep it under the floor.
"""

from __future__ import annotations

import math
import re

from engine.language import is_function_word
from engine.offline_asked import _nouns_only, asked_terms, main_subject, not_as_nouns, unmarked, writable
from engine.offline_terms import _query_words, _terms_of, query_terms, terms
from engine.segments import has_segmented_script

#: Share of the question's term weight a chosen sentence must carry (0..1): a sentence naming only
#: the subject most candidates share ("asyncio") is left out, one naming what the question asks
#: about ("timeouts") is kept; measured on the quick-start run and the tests' corpora.
COVERAGE_FLOOR = 0.5
#: Share of a term's weight that is the same for every term; the rest is its rarity (idf).
EQUAL_SHARE = 0.5
#: And it must name two thirds of the question's terms (at most :data:`MIN_TERMS_CAP` of them):
#: with two terms, both ("asyncio" and "timeout"), whichever is the rarer among the candidates; a
#: closed compound counts as the words it is made of (:func:`_word_counts`).
MIN_TERMS_SHARE = 2 / 3
MIN_TERMS_CAP = 3
#: Weight of relevance against novelty in maximal marginal relevance (Carbonell & Goldstein's
#: lambda); 0.7 leans to relevance, as in their query-focused summaries.
MMR_LAMBDA = 0.7
#: Share of the pages found (the groups of :func:`choose`, at least two) that carry a term above which
#: it is their common subject: a sentence naming it alone answers no question that asks about more.
SUBJECT_SHARE = 0.5


def _with_forms(docs: list[list[str]], candidates: list[str], query: str, language: str) -> list[list[str]]:
    """``docs`` (the terms of each candidate) with the term of each word of ``query`` that the
    candidate mentions in a form its stems miss (:func:`engine.word_forms.mentioned_otherwise`:
    "Erdwärmepumpen" the question's "Wärmepumpen", "والمضخات" its "المضخات", "空氣源熱泵" its "熱泵")."""
    from engine.word_forms import mentioned_otherwise

    words = list(dict.fromkeys(_query_words(query)))
    term = dict(zip(words, _terms_of(words, language, split=False), strict=True))
    return [
        doc + [term[w] for w in mentioned_otherwise([w for w in words if term[w] not in doc], c, language)]
        for doc, c in zip(docs, candidates, strict=True)
    ]


def _word_counts(query: str, language: str) -> dict[str, int]:
    """How many words each term of ``query`` (:func:`engine.offline_terms.query_terms`) stands for: the
    parts of a closed compound (:func:`engine.word_forms.compound_parts`: "Gasheizung" is "Gas" and
    "Heizung", as English writes "gas boiler"), of each part of a hyphenated word too; 1 for any other
    term, and for every term of a language that writes its compounds apart. So :data:`MIN_TERMS_SHARE`
    of a German question asks as much of a sentence as of the same question in English: "Eine
    Gasheizung kostet 10.000 Euro." names three of the five words of "Was kostet eine Gasheizung im
    Vergleich zu einer Wärmepumpe?", as "A gas boiler costs" does of its English."""
    from engine.word_forms import CLOSED_COMPOUNDS, compound_parts

    if language not in CLOSED_COMPOUNDS:
        return {}
    words = list(dict.fromkeys(_query_words(query)))
    return {
        term: sum(len(compound_parts(part, language)) for part in word.split("-") if part)
        for word, term in zip(words, _terms_of(words, language, split=False), strict=True)
    }


def _subject_terms(query: list[str], docs: list[list[str]], groups: list[str] | None) -> set[str]:
    """The terms of ``query`` that more than :data:`SUBJECT_SHARE` of the groups (each candidate its
    own when ``groups`` is None), at least two, have: the subject of the pages found."""
    pages: dict = {}
    for label, doc in zip(groups if groups else range(len(docs)), docs, strict=True):
        pages.setdefault(label, set()).update(doc)
    if len(pages) < 2:
        return set()
    return {t for t in query if sum(t in p for p in pages.values()) > SUBJECT_SHARE * len(pages)}


def _scores(docs: list[list[str]], query: list[str]) -> tuple[list[float], list[float]]:
    """``(BM25+ score, share of the query's weight)`` of each tokenised candidate (module docstring)."""
    from rank_bm25 import BM25Plus

    bm25 = list(BM25Plus([d or ["_"] for d in docs]).get_scores(query)) if query else [0.0] * len(docs)
    sets = [set(d) for d in docs]
    n = len(sets)
    # a term no candidate writes weighs as one a single candidate writes: how rare it is cannot be told
    # from them, and counted as written by none it would outweigh every other term the more the fewer
    # the candidates, so a file's one page found alone would quote less than the whole file
    frequency = {t: max(1, sum(t in s for s in sets)) for t in query}
    idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in frequency.items()}
    total = sum(idf.values()) or 1.0
    # half by rarity, half equal: a word the candidates seldom repeat (a corpus's own subject,
    # "Python" in Python's documentation) does not outweigh all the others
    weight = {t: (1 - EQUAL_SHARE) * w / total + EQUAL_SHARE / len(idf) for t, w in idf.items()}
    coverage = [sum(w for t, w in weight.items() if t in s) if query else 1.0 for s in sets]
    return bm25, coverage


def _likeness(a: set[str], b: set[str]) -> float:
    """Cosine of two sets of terms (0..1)."""
    return len(a & b) / math.sqrt(len(a) * len(b)) if a and b else 0.0


def choose(
    candidates: list[str],
    query: str,
    k: int,
    language: str = "en",
    *,
    floor: float = COVERAGE_FLOOR,
    lam: float = MMR_LAMBDA,
    groups: list[str] | None = None,
    per_group: int = 0,
    subject: str = "",
) -> list[str]:
    """Up to ``k`` of ``candidates`` for ``query``, best first: those carrying at least ``floor`` of
    the weight of the query's terms asked of them (:func:`engine.offline_asked.asked_terms`), or naming
    its main subject whole (:func:`engine.offline_asked.main_subject`, when the query asks more than it)
    and :data:`MIN_TERMS_CAP` of its terms, and :data:`MIN_TERMS_SHARE` of those terms, not naming one
    term alone of a query of several when that term is the pages' subject (:func:`_subject_terms`),
    and, when ``subject`` (the part of the query a passage must be
    about: the subject before a facet, or what a list's question asks of each of its items, "How much
    noise do … make") has terms, one of them (``floor`` 0 keeps all); picked by maximal marginal relevance with
    ``lam``. Empty when ``floor`` > 0 and the query has no term asked of them (only function words, or
    marks no candidate writes: "What is 100% $x$ & more?"): every sentence would carry all of nothing.

    ``groups`` (one label per candidate, e.g. its source id) with ``per_group`` > 0 takes at most
    that many of one group; they are also the pages a subject is carried by. Ties keep the
    candidates' order.
    """
    from engine.offline_text import STOPWORDS

    if not candidates:
        return []
    query = unmarked(query, candidates)
    docs = _with_forms([terms(c, language) for c in candidates], candidates, query, language)
    if floor > 0:
        docs = _nouns_only(docs, candidates, query, language)
    query_t = asked_terms(query, candidates, docs, language) if floor > 0 else writable(
        query_terms(query, language), candidates)
    if floor > 0 and not query_t:
        return []  # nothing a sentence could name ("What is 100% $x$?"): none is about the question
    bm25, coverage = _scores(docs, query_t)
    top = max(bm25, default=0.0)
    relevance = [b / top if top > 0 else 0.0 for b in bm25]
    content = [{t for t in d if t not in STOPWORDS} for d in docs]
    size = _word_counts(query, language)
    need = min(math.ceil(sum(size.get(t, 1) for t in query_t) * MIN_TERMS_SHARE), MIN_TERMS_CAP) if floor > 0 else 0
    # of the subject's terms, those asked of the candidates: a Spanish question's "documentación" is
    # no term English pages could name
    about = set(writable(query_terms(unmarked(subject, candidates), language), candidates)) if subject else set()
    about = about & set(query_t) if floor > 0 else about
    # a sentence naming only the pages' subject ("asyncio") of a question asking about more says nothing on it
    common = _subject_terms(query_t, docs, groups) if floor > 0 and len(query_terms(query, language)) > 1 else set()
    named = [set(query_t) & set(d) for d in docs]
    # a sentence naming the question's main subject whole and as many of its words as a sentence must
    # name (at least MIN_TERMS_CAP) answers it, though the rarer words it misses outweigh those it names
    main = set(main_subject(query, language)) & set(query_t) if floor > 0 else set()
    least = max(need, MIN_TERMS_CAP) if len(query_t) > len(main) > 0 else 0
    left = [
        i
        for i in range(len(candidates))
        if (coverage[i] >= floor or least and main <= named[i] and sum(size.get(t, 1) for t in named[i]) >= least)
        and sum(size.get(t, 1) for t in named[i]) >= need
        and not (len(named[i]) == 1 and named[i] <= common)
        and (not about or about & set(docs[i]))
    ]
    chosen: list[int] = []
    taken: dict[str, int] = {}
    while left and len(chosen) < k:

        def mmr(i: int) -> float:
            return lam * relevance[i] - (1 - lam) * max(
                (_likeness(content[i], content[j]) for j in chosen), default=0
            )

        best = max(left, key=lambda i: (mmr(i), -i))
        left.remove(best)
        group = groups[best] if groups else ""
        if per_group and taken.get(group, 0) >= per_group:
            continue
        taken[group] = taken.get(group, 0) + 1
        chosen.append(best)
    return [candidates[i] for i in chosen]


def answers(text: str, questions: list[str], language: str = "en") -> list[float]:
    """How well ``text`` answers each of ``questions`` (0..1, one per question): of the terms ``text``
    (:func:`engine.offline_terms.terms`) shares with any question
    (:func:`engine.offline_terms.query_terms`), the share of their weight that
    this question asks about, a term weighing as in :func:`choose`, by its rarity among the
    questions: one all of them ask about (their subject, "turbine") counts little, one only this
    question asks about ("noise") more. All 0.0 when ``text`` names no term of any question."""
    said = list(dict.fromkeys(terms(text, language)))
    written = set(said)
    asked = []
    for q in questions:
        gone = not_as_nouns(q, text, language, said=written)
        asked.append([t for t in query_terms(q, language) if t not in gone])
    common = [t for t in said if any(t in q for q in asked)]
    return _scores(asked, common)[1] if common else [0.0] * len(questions)


def rank(candidates: list[str], query: str, k: int, language: str = "en") -> list[str]:
    """The ``k`` candidates most relevant to ``query`` (less the marks no candidate writes:
    :func:`engine.offline_asked.unmarked`) by stemmed BM25, ties broken by original order; no floor and
    no diversity (an ordering, for text already chosen)."""
    if not candidates:
        return []
    query = unmarked(query, candidates)
    bm25, _ = _scores(
        _with_forms([terms(c, language) for c in candidates], candidates, query, language),
        query_terms(query, language),
    )
    order = sorted(range(len(candidates)), key=lambda i: (-bm25[i], i))
    return [candidates[i] for i in order[:k]]


#: Where a listed item of a question written without spaces ends and what is asked of it starts
#: ("地源熱泵|的效率"): a link character (as :data:`engine.offline_lists_cjk._CJK_LINKS`), kana, punctuation.
_CJK_ITEM_END = re.compile(r"[的之有是在都\u3040-\u309f\W]")


def named_first(text: str, questions: list[str], language: str = "en") -> int | None:
    """The index in ``questions`` (the sub-questions of one list: "How efficient are ground-source
    heat pumps", "… air-source heat pumps") of the one whose own thing ``text`` names first, when it
    names those of two or more: "Ground-source heat pumps are more efficient than air-source heat
    pumps" is about ground-source ones, its subject. A question's own thing is its words between the
    words all the questions open and end with (:func:`_shared_ends`); ``text`` names it when it has
    every term (:func:`engine.offline_terms.terms`) of it that no other question's own thing has, or,
    in a script written without spaces, the item's characters in either Chinese script
    (:func:`_own_items`: "地源熱泵").
    None when ``text`` names fewer than two, or two at the same place."""
    if len(questions) < 2:
        return None
    if has_segmented_script("".join(questions)):
        from engine.word_forms import _simplified

        written = _simplified(text.lower())
        found = {
            j: written.find(_simplified(item.lower())) for j, item in enumerate(_own_items(questions)) if item
        }
        at = {j: i for j, i in found.items() if i >= 0}
    else:
        said = terms(text, language)
        asked = [terms(q, language) for q in questions]
        start, end = _shared_ends(asked)
        own = [set(a[start : len(a) - end]) for a in asked]
        at = {}
        written = set(said)
        for j, part in enumerate(own):
            unique = {t for t in part if not is_function_word(t)}.difference(*own[:j], *own[j + 1 :])
            if unique and unique <= written - not_as_nouns(questions[j], text, language, said=written):
                at[j] = min(said.index(t) for t in unique)
    if len(at) < 2:
        return None
    first, second = sorted(at, key=at.__getitem__)[:2]
    return first if at[first] < at[second] else None


def _shared_ends(sequences: list) -> tuple[int, int]:
    """How many elements all of ``sequences`` (lists of terms, or strings) open with, and how many of
    the rest they all end with."""
    start = 0
    while all(len(s) > start for s in sequences) and len({s[start] for s in sequences}) == 1:
        start += 1
    end = 0
    while all(len(s) - start > end for s in sequences) and len({s[-1 - end] for s in sequences}) == 1:
        end += 1
    return start, end


def _own_items(questions: list[str]) -> list[str]:
    """The listed item of each of ``questions`` written without spaces ("地源熱泵的效率有何不同" and
    "空氣源熱泵的效率有何不同" give "地源熱泵" and "空氣源熱泵"): its own characters (:func:`_shared_ends`)
    and those of the shared end up to where an item ends (:data:`_CJK_ITEM_END`: "源熱泵" before "的")."""
    start, end = _shared_ends(questions)
    shared_end = questions[0][len(questions[0]) - end :]
    cut = _CJK_ITEM_END.search(shared_end)
    rest = shared_end[: cut.start() if cut else len(shared_end)]
    return [q[start : len(q) - end] + rest for q in questions]

