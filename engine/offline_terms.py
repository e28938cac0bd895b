"""How the offline model reads words: the tokens of a text, their Snowball stems, and the terms of a question.

Words are stemmed with the Snowball stemmer of the question's language (``snowballstemmer``, the
Snowball project's own Python port; Porter, 2001), so "rated" meets "rating" and "Leistungen"
meets "Leistung". A hyphenated word is one token and an identifier also gives its parts
("TimeoutError": "timeout", "error"); a name written with its symbols ("C++", ".NET":
:data:`SYMBOL_NAME`) is one term as written. A question's terms (:func:`query_terms`) are its
words less function words, the verbs that ask how rather than about what (:data:`QUESTION_VERBS`), the
words that only compare ("compared", "Vergleich": :func:`comparison_frames`), and a measure word that asks
how much with the how-word before it ("hoch" of "Wie hoch": :func:`_query_words`).
"""

from __future__ import annotations

import re
import threading

from engine.language import NAMES, is_function_word
from engine.offline_phrases_more import QUESTION_VERBS as _QUESTION_VERBS_MORE
from engine.segments import WORD_RUN, has_segmented_script, word_tokens

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
#: Words that only set a question's things against each other ("How much does a heat pump cost compared
#: to a gas boiler?", "im Vergleich zu", "verglichen mit", "comparé à", "en comparación con", "in
#: confronto a", "in vergelijking met", "em comparação com", "jämfört med"): never a term of the question,
#: as the review never asks a claim for them (:data:`engine.offline_review._RELATING`); a sentence on
#: what one of them costs answers it, and seldom writes "compared".
COMPARISON_FRAMES = frozenset(
    """compared comparing comparison vergleich verglichen comparé comparée comparés comparées comparaison
    comparación comparado comparada comparados comparadas confronto confrontato confrontata confrontati
    vergelijking vergeleken comparação jämfört jämförelse""".split())
#: Words that set things against each other only before or after another ("par rapport à", "frente a",
#: "rispetto a"): the word and the words that must stand before it or after it.
_FRAME_BEFORE = {"rapport": frozenset({"par"})}
_FRAME_AFTER = {"frente": frozenset({"a", "al"}), "rispetto": frozenset("a al allo alla ai agli alle all".split())}
#: A name whose symbols are part of it: a programming language's ("C++", "C#", "F#", "g++", ".NET"), one
#: term as written, so "C++" is not met by a sentence naming "C" alone, nor by one naming "C#".
SYMBOL_NAME = r"(?<![\w.+#])(?:\.NET|[A-Za-z]\w*?(?:\+\+|#))(?![\w+#])"
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
    word that with the how-word before it asks how much (:func:`_asking_measures`: "hoch" of "Wie hoch"),
    nor a word that only compares (:func:`comparison_frames`: "compared", "Vergleich", "rapport" of "par
    rapport à")."""
    from engine.offline_text import STOPWORDS

    tokens = _tokens(query)
    asking = _asking_measures(tokens) | comparison_frames(tokens)
    return [
        t
        for i, t in enumerate(tokens)
        if t.lower() not in STOPWORDS and t.lower() not in QUESTION_VERBS and not is_function_word(t.lower())
        and i not in asking
    ]


def comparison_frames(tokens: list[str]) -> set[int]:
    """The indexes in ``tokens`` of the words that only set the question's things against each other
    (:data:`COMPARISON_FRAMES`; "rapport" after "par", "frente" and "rispetto" before "a" or its like)."""
    low = [t.lower() for t in tokens]
    return {i for i, t in enumerate(low)
            if t in COMPARISON_FRAMES or t in _FRAME_BEFORE and i and low[i - 1] in _FRAME_BEFORE[t]
            or t in _FRAME_AFTER and i + 1 < len(low) and low[i + 1] in _FRAME_AFTER[t]}


def _asking_measures(tokens: list[str]) -> set[int]:
    """The indexes in ``tokens`` of the words that ask how much with a how-word, part of the question word
    ("wie hoch", "how high", "combien de temps": :func:`engine.offline_list_words.measure_words`)."""
    from engine.offline_list_words import measure_words

    return measure_words(tokens)
