"""The words, sentences and paragraphs of text in any language, and the scripts that decide how its
words are found: spaces part words in most scripts; ICU's dictionaries part them in scripts written
without spaces (Chinese, Japanese, Thai and their like: :func:`word_tokens`).
"""

from __future__ import annotations

import re
import unicodedata

from engine.offline_phrases_more import ABBREVIATIONS as _ABBREVIATIONS_MORE

#: Scripts written without spaces between words (Thai, Lao, Myanmar, Khmer, hiragana, katakana, Han),
#: and Hangul, whose words are parted from a Latin name glued to them ("asyncio는"); each range
#: holds its script's combining marks, which ``\w`` leaves out (Thai "ยกเลิก").
_SEGMENTED = ("\u0e00-\u0eff\u1000-\u109f\u1100-\u11ff\u1780-\u17ff\u3040-\u30ff\u3130-\u318f"
              "\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f")
#: A run of letters and digits, or of those scripts: what :func:`word_tokens` splits into words.
WORD_RUN = rf"(?:\w|[{_SEGMENTED}])+"
_RUN = re.compile(WORD_RUN)
_SEGMENTED_CHAR = re.compile(f"[{_SEGMENTED}]")
_KATAKANA = re.compile(r"[\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]+")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
#: Chinese characters that are words of grammar on their own, in both scripts: particles, prepositions,
#: conjunctions, the copula, pronouns, measure words and the adverbs of degree and negation (the
#: single-character function words of Modern Standard Chinese grammars). ICU writes a word its
#: dictionary lacks as single characters ("熱", "泵"); :func:`_broken` joins those, but not these.
_HAN_GRAMMAR = frozenset(
    "的了在是和与與及或而也都就会會能要把被给給对對从從向于於以为為中上下里裡裏后後前时時很更最太不没沒"
    "有这這那其之并並又还還但则則如若即等个個各每此该該所将將已让讓使由自至到来來去得地着著过過吗嗎呢吧啊"
    "我你他她它们們谁誰何几幾哪多少怎么麼样樣")
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])")
#: A paragraph break: two or more line breaks (LF, CRLF or a lone CR) with only spaces between them,
#: or Unicode's PARAGRAPH SEPARATOR (U+2029). A CRLF is one break (atomic), never a blank line.
_PARAGRAPH = re.compile(r"(?:(?>\r\n|\r|\n)[^\S\r\n\u2029]*+){2,}|[^\S\u2029]*+\u2029\s*+")


def words(text: str) -> list[str]:
    """Lower-cased word tokens (:func:`word_tokens`)."""
    return [w.lower() for w in word_tokens(text)]


def word_tokens(text: str) -> list[str]:
    """The words of ``text`` as it writes them, in order: runs of Unicode letters and digits; a run in
    a script written without spaces (Japanese, Chinese, Thai, Lao, Khmer, Burmese; see
    :data:`WORD_RUN`) is split into its words by ICU's word break iterator (Unicode UAX #29 with
    ICU's dictionaries for those scripts, via ``icu4py``): "asyncioはタスクを" -> "asyncio", "は",
    "タスク", "を". Adjacent katakana words join: ICU parts a loanword its dictionary lacks
    ("タイム", "アウト" -> "タイムアウト")."""
    out: list[str] = []
    for run in _RUN.findall(text):
        out += _broken(run) if _SEGMENTED_CHAR.search(run) else [run]
    return out


def _broken(run: str) -> list[str]:
    """The words of one run of :data:`WORD_RUN` by ICU's word break iterator (root locale: its
    dictionaries are chosen by script), adjacent katakana words joined, and adjacent single Chinese
    characters that are not words of grammar (:data:`_HAN_GRAMMAR`): ICU cuts a word its dictionary
    lacks into characters ("熱", "泵" -> "熱泵"; "熱泵的效率" -> "熱泵", "的", "效率")."""
    from icu4py.breakers import WordBreaker

    out: list[str] = []
    single = False  # the last word is such characters
    for piece in WordBreaker(run, "root"):
        lone = len(piece) == 1 and bool(_HAN.match(piece)) and piece not in _HAN_GRAMMAR
        if out and _KATAKANA.fullmatch(piece) and _KATAKANA.fullmatch(out[-1]):
            out[-1] += piece
        elif out and lone and single:
            out[-1] += piece
        elif piece.strip():
            out.append(piece)
        single = lone
    return out


def has_segmented_script(text: str) -> bool:
    """True when ``text`` holds a character of a script :func:`word_tokens` splits with ICU (Han,
    kana, Hangul, Thai, Lao, Khmer, Burmese): its words are a few characters long."""
    return bool(_SEGMENTED_CHAR.search(text))


#: Latin letters' worth of one character of the scripts that say much in few characters: a Han character
#: (Chinese hanzi, Japanese kanji) 4, a kana 1.5, a Hangul syllable 2.5; any other character is 1. Measured
#: on the same text in English and in Chinese, Japanese or Korean: the offline phrase tables
#: (:data:`engine.offline_phrases.PHRASES`: a Han character 3.5 letters, a kana 1.5) and prose sentences
#: with their translations (the tests' heat-pump sentences: a Han character 3.9 to 4.3 letters, a Hangul
#: syllable 2.3 to 2.9); a sentence is what the rules measure most. Every weight is at least 1, so a text
#: that measures at most ``n`` has at most ``n`` characters.
DENSE_WEIGHTS = (
    (re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"), 4),
    (re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]"), 1.5),
    (re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]"), 2.5),
)


def latin_length(text: str) -> float:
    """How long ``text`` is in Latin letters' worth: its characters, a Han, kana or Hangul character counted
    as :data:`DENSE_WEIGHTS` says. What a length rule measures (a shortest sentence, a longest quote), so
    that a Japanese sentence of 24 characters is as long as the English one of 60 that says the same."""
    return len(text) + sum((weight - 1) * len(chars.findall(text)) for chars, weight in DENSE_WEIGHTS)


def latin_prefix(text: str, n: float) -> str:
    """The longest start of ``text`` that measures at most ``n`` (:func:`latin_length`), cut between
    characters."""
    if latin_length(text) <= n:
        return text
    used = 0.0
    for i, ch in enumerate(text):
        used += latin_length(ch)
        if used > n:
            return text[:i]
    return text


def word_count(text: str) -> int:
    """How many words ``text`` has: its parts between spaces, a part in a script written without spaces
    counted by its words (:func:`word_tokens`: "ヒートポンプは効率が高い" is 6), as a word budget ("at most
    300 words") counts them in any language."""
    return sum(max(1, len(word_tokens(part))) if has_segmented_script(part) else 1 for part in text.split())


def script(word: str) -> str:
    """The writing system of ``word``'s first letter as Unicode names it ("LATIN", "CYRILLIC",
    "THAI", "HANGUL"), with Han, hiragana and katakana all "CJK" (Japanese mixes the three); ""
    for a word without a letter (a number)."""
    for ch in word:
        if ch.isalpha():
            first = unicodedata.name(ch, "").split(" ", 1)[0]
            return "CJK" if first in ("CJK", "HIRAGANA", "KATAKANA", "HALFWIDTH") else first
    return ""


#: Abbreviations that end in a full stop inside a sentence (en, de, fr, es; it, nl, pt, sv from
#: :data:`engine.offline_phrases_more.ABBREVIATIONS`), lower-cased.
ABBREVIATIONS = frozenset(_ABBREVIATIONS_MORE) | frozenset({
    "e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "dr.", "mr.", "mrs.", "ms.", "prof.", "fig.", "no.", "vol.",
    "z.b.", "d.h.", "u.a.", "bzw.", "usw.", "ca.", "vgl.", "nr.", "p.ex.", "env.", "mme.", "p.", "pp.", "ej.", "sr.",
    "sra.", "núm.", "incl.", "excl.", "esp.", "resp.", "inkl.", "exkl.", "zzgl.", "ggf.", "evtl.", "bspw.",
})
#: What may stand before an abbreviation inside a sentence: "(incl. VAT)", "„z. B.".
_OPENING = "([{\"'“„«‘"


def _abbreviation_ends(before: str, after: str) -> bool:
    """True when the full stop ending ``before`` (a sentence so far) is an abbreviation's
    (:data:`ABBREVIATIONS`): its last word, after an opening bracket or quotation mark ("(incl."), its
    last two written with a space ("z. B.", "d. h.": the Duden's spelling), or its last word and the
    first of ``after`` ("z." and "B. 20 Jahre")."""
    words = before.rsplit(" ", 2)
    last = words[-1].lstrip(_OPENING).lower()
    pair = (words[-2].lstrip(_OPENING) + words[-1]).lower() if len(words) > 1 else ""
    return (last in ABBREVIATIONS or pair in ABBREVIATIONS
            or (last + after.split(" ", 1)[0]).lower() in ABBREVIATIONS)


def sentence_continues(before: str, after: str) -> bool:
    """True when ``after`` goes on the sentence ``before`` that a full stop seems to end: after it
    comes a small letter ("Use e.g. wait_for"), or the full stop is an abbreviation's
    (:func:`_abbreviation_ends`: "z. B. 20 Jahre"). False after any other end mark."""
    return before.endswith(".") and bool(after) and (after[0].islower() or _abbreviation_ends(before, after))


def paragraphs(text: str) -> list[str]:
    """The paragraphs of ``text``: its parts between blank lines (lines of only whitespace count as
    blank; LF, CRLF or CR line ends) or at a PARAGRAPH SEPARATOR (U+2029), in order; none that is
    only whitespace."""
    return [paragraph for paragraph in _PARAGRAPH.split(text) if paragraph.strip()]


def sentences(text: str) -> list[str]:
    """Split prose into sentences: at end punctuation followed by space, or at blank lines.

    A full stop does not end a sentence after an abbreviation of :data:`ABBREVIATIONS` ("e.g.",
    "Dr.", "z.B.", "z. B.", "(incl. VAT)": :func:`_abbreviation_ends`) or when the text after it starts
    with a lower-case letter ("Use e.g. wait_for").
    """
    out: list[str] = []
    for paragraph in paragraphs(text):
        start = len(out)
        for part in _SENTENCE.split(paragraph):
            part = " ".join(part.split())
            if not part:
                continue
            if len(out) > start and sentence_continues(out[-1], part):
                out[-1] += " " + part
            else:
                out.append(part)
    return out
