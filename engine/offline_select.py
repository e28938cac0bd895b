"""How the offline model chooses sentences for a question: stemmed relevance, a floor, and diversity.

Words are stemmed with the Snowball stemmer of the question's language (``snowballstemmer``, the
Snowball project's own Python port; Porter, 2001), so "rated" meets "rating" and "Leistungen"
meets "Leistung". Relevance is BM25+ (Lv & Zhai, 2011, via ``rank_bm25``: its inverse document
frequency stays positive in a pool of a few sentences, where BM25's own falls to zero). A chosen
sentence must name :data:`MIN_TERMS_SHARE` of the question's terms and carry :data:`COVERAGE_FLOOR`
of their weight, a term weighing half its inverse document frequency among the candidates
(ln(1 + (N - n + 0.5) / (n + 0.5)), Lucene's BM25) and half the same as every other term: a word
every candidate shares (the subject they were found by) counts little, a rare one counts more but
not all, and one no candidate writes as one that a single candidate writes (n = 1): so a sentence is
chosen or not whether it comes alone (a shared file's one page found) or among sentences on other
things (the whole file in a corpus). Among those, maximal marginal relevance (Carbonell & Goldstein, 1998) picks each next
sentence for its relevance less its likeness to those already chosen.

What a question asks of the candidates is its words less three kinds (:func:`asked_terms`): marks that
are no words (a shell variable, a LaTeX command, a hashtag, a placeholder, a percentage:
:data:`MARKS`) unless a candidate writes them too; words in a script no candidate uses
(:func:`writable`); and, when the candidates are written in another language than the question
("Wie bricht asyncio Tasks ab?" over English pages), its words none of them writes ("bricht"): what
it shares with them are names and loanwords ("asyncio", "Tasks"), and those, with the cognates beside
them (Spanish "cancela": "cancel"), are what it is matched by.
A question in the candidates' own language keeps every word: "How loud are wind turbines?" over
pages that say "noise" quotes nothing rather than what "wind turbines" alone finds. A sentence that
names one term of a question asking about more, and that term one most of the pages found carry
(:data:`SUBJECT_SHARE`: the name they were found by, "asyncio"), says nothing about the question and
is not chosen. A sentence that names the question's main subject whole (its first words, "heat pumps"
of "Which heat pumps are cheapest to run in Germany in 2026?": :func:`main_subject`) and
:data:`MIN_TERMS_CAP` of its terms answers it though it misses the rarer ones ("Air-source heat pumps
cost about 1,200 € a year in Germany."), whose weight would otherwise keep it under the floor.
"""

from __future__ import annotations

import functools
import math
import re
import threading

from engine.language import NAMES, is_function_word
from engine.offline_phrases_more import QUESTION_VERBS as _QUESTION_VERBS_MORE
from engine.segments import WORD_RUN, has_segmented_script, script, word_tokens

#: Share of the question's term weight a chosen sentence must carry (0..1): a sentence naming only
#: the subject most candidates share ("asyncio") is left out, one naming what the question asks
#: about ("timeouts") is kept; measured on the quick-start run and the tests' corpora.
COVERAGE_FLOOR = 0.5
#: Share of a term's weight that is the same for every term; the rest is its rarity (idf).
EQUAL_SHARE = 0.5
#: And it must name two thirds of the question's terms (at most :data:`MIN_TERMS_CAP` of them):
#: with two terms, both ("asyncio" and "timeout"), whichever is the rarer among the candidates.
MIN_TERMS_SHARE = 2 / 3
MIN_TERMS_CAP = 3
#: Weight of relevance against novelty in maximal marginal relevance (Carbonell & Goldstein's
#: lambda); 0.7 leans to relevance, as in their query-focused summaries.
MMR_LAMBDA = 0.7
#: Words that ask how rather than about what ("how does X work", "how do X and Y compare"), and the
#: light verbs of doing, of saying and of worth, which frame what is asked ("how much noise do X make",
#: "what does the agency say about X", "Lohnt sich X", "¿Qué dijo X sobre Y?", "¿Vale la pena X?",
#: "X值得买吗"): never a term of the question.
QUESTION_VERBS = frozenset(
    """handle handles work works make makes macht machen font fait hace hacen use uses used happen happens
    compare compares say says said tell tells take takes sagt sagen sagte sagten lohnt lohnen rentiert dit
    disent vaut valent
    peine dijo dicen dijeron vale valen pena 值得 言う 言っ 言い
    affect affects mean means need needs differ differs behave behaves funktioniert funktionieren fonctionne
    fonctionnent funciona funcionan 工作 处理 使用 扱い 扱う 使い 使う 動作
    unterscheiden unterscheidet vergleichen comparent comparer diffèrent comparan comparar diferencian difieren
    区别 區別 差异 差異 不同 比较 比較 違い 違う 比べ""".split() + _QUESTION_VERBS_MORE)
#: Share of the pages found (the groups of :func:`choose`, at least two) that carry a term above which
#: it is their common subject: a sentence naming it alone answers no question that asks about more.
SUBJECT_SHARE = 0.5
#: Marks in a question that are no words: a shell or environment variable ("$HOME_DIR", "${HOME}",
#: "%APPDATA%"), a LaTeX command ("\section"), a hashtag ("#tag"), a placeholder in braces
#: ("{a_b}"), a percentage ("5%", "12,5 %"). Each is asked for only when a candidate writes it too.
MARKS = re.compile(r"(?<![\w$\\#{%])(?:\$\{?[^\W\d]\w*\}?|%[^\W\d]\w*%|\\[A-Za-z]+|#[^\W\d]\w*"
                   r"|\{[^\W\d]\w*\}|\d+(?:[.,]\d+)?\s?%)(?!\w)")
#: How much of the candidates' text tells their language (:func:`_other_language`).
LANGUAGE_SAMPLE = 4000
#: A name whose symbols are part of it: a programming language's ("C++", "C#", "F#", "g++", ".NET"), one
#: term as written, so "C++" is not met by a sentence naming "C" alone, nor by one naming "C#".
SYMBOL_NAME = r"(?<![\w.+#])(?:\.NET|[A-Za-z]\w*?(?:\+\+|#))(?![\w+#])"
#: Markup tags in a question ("<b>", "</b>", "<br/>"): no words, asked for only when a candidate writes them.
TAGS = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>")
#: Inline mathematics in a question ("$x$", "$a + b$"): no words, asked for only when a candidate writes
#: it; a closing "$" before a word or a digit opens a variable or an amount ("$HOME and $PATH", "$5 to $10").
MATH = re.compile(r"(?<![\w$])\$[^$\s][^$\n]*?\$(?![\w{$])")
_CAMEL = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_TOKEN = re.compile(rf"{SYMBOL_NAME}|{WORD_RUN}(?:-{WORD_RUN})*")


_LOCAL = threading.local()


def _stemmer(language: str):
    """The Snowball stemmer of ``language`` for this thread (a stemmer keeps its word in its own
    state while it works, so two threads must not share one), None when Snowball has none."""
    import snowballstemmer

    cache = _LOCAL.__dict__.setdefault("stemmers", {})
    if language not in cache:
        name = NAMES.get(language, "").lower()
        cache[language] = snowballstemmer.stemmer(name) if name in snowballstemmer.algorithms() else None
    return cache[language]


def _parts(token: str) -> list[str]:
    """The words inside one token: hyphen parts, and an identifier's ("TimeoutError" -> "Timeout",
    "Error"; "wait_for" -> "wait", "for")."""
    out = []
    for part in token.split("-"):
        out += _CAMEL.findall(part.replace("_", " ")) if part.isascii() else [part]
    return [p.lower() for p in out if len(p) > 1]


def _tokens(text: str) -> list[str]:
    """The tokens of ``text`` as written: hyphenated words whole ("air-source"), and a run in a script
    written without spaces split into its words (:func:`engine.segments.word_tokens`)."""
    return [
        w for raw in _TOKEN.findall(text) for w in (word_tokens(raw) if has_segmented_script(raw) else [raw])
    ]


_SYMBOL = re.compile(SYMBOL_NAME)


def word_spans(text: str) -> list[tuple[int, int]]:
    """Where each word of ``text`` is, ``(start, end)`` character offsets in order: the words of
    :func:`engine.segments.word_tokens` (a hyphenated word in its parts, a run in a script written
    without spaces in its ICU words), and a name written with its symbols (:data:`SYMBOL_NAME`: "C++",
    "C#", "g++", ".NET") as one word, as the selection reads it (:func:`terms`): "C++" is not "C"."""
    spans: list[tuple[int, int]] = []
    at = 0

    def plain(start: int, end: int) -> None:
        pos = start
        for word in word_tokens(text[start:end]):
            found = text.find(word, pos, end)
            if found >= 0:  # a word ICU joined is written as it stands
                spans.append((found, found + len(word)))
                pos = found + len(word)

    for m in _SYMBOL.finditer(text):
        plain(at, m.start())
        spans.append(m.span())
        at = m.end()
    plain(at, len(text))
    return spans


def named_tokens(text: str) -> list[str]:
    """The words of ``text`` as it writes them (:func:`word_spans`): :func:`engine.segments.word_tokens`
    with a name written with its symbols ("C++", ".NET") one word."""
    return [text[start:end] for start, end in word_spans(text)]


def _stemmed(words: list[str], language: str) -> list[str]:
    """``words`` by the Snowball stemmer of ``language``; in a language that has none (Chinese,
    Japanese, ...) an ASCII word by English's, since a Latin name in such a question is mostly
    English ("Tasks" meets "task"), and any other word as it is."""
    stem = _stemmer(language) or (_stemmer("en") if all(w.isascii() for w in words) else None)
    return stem.stemWords(words) if stem else words


def terms(text: str, language: str = "en", *, split: bool = True) -> list[str]:
    """Stemmed tokens of ``text`` in order (:func:`_tokens`, :func:`_stemmed`); a hyphenated word
    ("air-source") is one token, and with ``split`` it and an identifier also give their parts
    ("air", "source"; "TimeoutError" -> "timeout", "error"; "Zephyr-9" -> "zephyr"), so a question's
    "timeouts" meets a sentence's "TimeoutError", and its "Zephyr" a sentence's "Zephyr-9"; a name
    written with its symbols gives none (".NET" is not "net")."""
    return _terms_of(_tokens(text), language, split)


def _terms_of(tokens: list[str], language: str, split: bool) -> list[str]:
    out: list[str] = []
    for raw in tokens:
        out.append("-".join(_stemmed(raw.lower().split("-"), language)))
        parts = _parts(raw) if split and not _SYMBOL.fullmatch(raw) else []  # ".NET" is no "net"
        if len(parts) > 1 or parts and parts[0] != raw.lower():  # "Zephyr-9" also gives "zephyr"
            out += _stemmed(parts, language)
    return out


def query_terms(query: str, language: str = "en") -> list[str]:
    """The stemmed terms of ``query`` that carry its topic, each once: no function word
    (:func:`engine.language.is_function_word`), no question verb; a hyphenated word stays one term
    (it names one thing)."""
    return list(dict.fromkeys(_terms_of(_query_words(query), language, split=False)))


def _query_words(query: str) -> list[str]:
    """The tokens of ``query`` (:func:`_tokens`) that :func:`query_terms` stems, as written: not a measure
    word that with the how-word before it asks how much (:func:`_asking_measures`: "hoch" of "Wie hoch")."""
    from engine.offline_text import STOPWORDS

    tokens = _tokens(query)
    asking = _asking_measures(tokens)
    return [
        t
        for i, t in enumerate(tokens)
        if t.lower() not in STOPWORDS and t.lower() not in QUESTION_VERBS and not is_function_word(t.lower())
        and i not in asking
    ]


def _asking_measures(tokens: list[str]) -> set[int]:
    """The indexes in ``tokens`` of the words that ask how much with a how-word, part of the question word
    ("wie hoch", "how high", "combien de temps": :func:`engine.offline_list_words.measure_words`)."""
    from engine.offline_list_words import measure_words

    return measure_words(tokens)


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
    another language. ``said``: the terms of ``text`` when the caller has them (:func:`terms`)."""
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
    """The terms of ``query`` (:func:`query_terms`) asked of ``candidates``, whose terms ``docs`` are:
    without marks no candidate writes (:func:`unmarked`) or words in a script none uses
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
    """The terms (:func:`query_terms`) of the main subject of ``query``: its first run of words that
    are terms, up to the first that is none (a function word, an auxiliary, a verb that asks how) or a
    mark between two words (a comma, a dash):
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


def _subject_terms(query: list[str], docs: list[list[str]], groups: list[str] | None) -> set[str]:
    """The terms of ``query`` that more than :data:`SUBJECT_SHARE` of the groups (each candidate its
    own when ``groups`` is None), at least two, have: the subject of the pages found."""
    pages: dict = {}
    for label, doc in zip(groups if groups else range(len(docs)), docs, strict=True):
        pages.setdefault(label, set()).update(doc)
    if len(pages) < 2:
        return set()
    return {t for t in query if sum(t in p for p in pages.values()) > SUBJECT_SHARE * len(pages)}


def writable(query: list[str], candidates: list[str]) -> list[str]:
    """The terms of ``query`` written in a script some candidate uses (:func:`engine.segments.script`),
    all of them when none is: a Japanese question's "タスク" cannot be met by English sentences, so
    its "asyncio" alone is asked of them."""
    written = {script(ch) for ch in set("".join(candidates)) if ch.isalpha()}
    return [t for t in query if not script(t) or script(t) in written] or query


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
    the weight of the query's terms asked of them (:func:`asked_terms`), or naming its main subject
    whole (:func:`main_subject`, when the query asks more than it) and :data:`MIN_TERMS_CAP` of its
    terms, and :data:`MIN_TERMS_SHARE` of those terms, not naming one term alone of a query of
    several when that term is the pages' subject (:func:`_subject_terms`), and, when ``subject`` (the part of the query a passage must be
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
    need = min(math.ceil(len(query_t) * MIN_TERMS_SHARE), MIN_TERMS_CAP) if floor > 0 else 0
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
        if (coverage[i] >= floor or least and main <= named[i] and len(named[i]) >= least)
        and len(named[i]) >= need
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
    (:func:`terms`) shares with any question (:func:`query_terms`), the share of their weight that
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
    :func:`unmarked`) by stemmed BM25, ties broken by original order; no floor and no diversity (an
    ordering, for text already chosen)."""
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
    every term (:func:`terms`) of it that no other question's own thing has, or, in a script written
    without spaces, the item's characters in either Chinese script (:func:`_own_items`: "地源熱泵").
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
