"""Evidence of a short question's language besides its function words: its content words, the
letters of its alphabet, a conjunction between two names, French spacing before "?" (for
:func:`engine.language.detect_language`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

#: The languages whose word frequencies are compared (wordfreq's "small" lists): English and the
#: Latin-script languages whose function words :mod:`engine.language` knows.
COMPARED = ("en", "de", "fr", "es", "it", "nl", "pt", "pl", "sv")
#: A word frequent in more of :data:`COMPARED` than this is an international word or a name
#: ("Kafka", "Tokio", "Python", "solar"), no language's own.
_MOST = 4
#: Coordinating conjunctions ("and", "or", "nor") of each language, as its grammars list them;
#: those that are English words of grammar too (Dutch "of") are left out where they are read.
CONJUNCTIONS = {
    "de": "und oder sowie bzw beziehungsweise",
    "fr": "et ou ni",
    "es": "y e o u ni",
    "it": "e ed o od oppure né",
    "nl": "en of",
    "pt": "e ou nem",
    "pl": "i lub albo oraz czy",
    "sv": "och eller",
}
#: French typography: a space (or a no-break space) before "?" or "!" (Imprimerie nationale's
#: rules; English sets none).
_FRENCH_SPACING = re.compile(r"\w[ \u00a0\u202f]+[?!]")


#: Letters of each Latin-script language's alphabet that English lacks (and Spanish's opening "¿",
#: "¡"), as its standard orthography writes them: evidence of the language in a short question.
LETTERS = {
    "de": "äöüß", "fr": "àâæçéèêëîïôœùûÿ", "es": "áéíñóúü¿¡", "it": "àèéìíîòóù", "pt": "áâãàçéêíóôõú",
    "nl": "ëï", "pl": "ąćęłńóśźż", "sv": "åäö", "da": "æøå", "no": "æøå", "fi": "äö",
    "cs": "áčďéěíňóřšťúůýž", "tr": "çğıöşü", "ro": "ăâîșțşţ", "hu": "áéíóöőúüű",
}


def foreign_letters(word: str) -> frozenset[str]:
    """The letters of the lower-cased ``word`` that English's alphabet lacks ("größe": {"ö", "ß"})."""
    return frozenset(ch for ch in word if ch.isalpha() and not ch.isascii())


def alphabets(word: str) -> frozenset[str]:
    """The languages of :data:`LETTERS` whose alphabet writes every letter of the lower-cased ``word``
    that English lacks ("wärmepumpe": de, sv, fi; "güneş": tr alone, as "ş" and "ü" are in no other
    one together); empty for a word of English letters alone, or one that no alphabet writes whole."""
    foreign = foreign_letters(word)
    return frozenset(code for code, letters in LETTERS.items() if foreign and foreign <= set(letters))


def letter_evidence(word: str) -> frozenset[str]:
    """The languages that the lower-cased ``word``'s letters are evidence of: of those whose alphabet
    writes it (:func:`alphabets`), the ones whose text uses it most (within a factor of ten of the
    most, by :func:`_zipf`: "energií" is Czech's, not Spanish's, "büyümesi" Turkish's, not
    German's), or all of them where none does ("hőszivattyú"); none when English text uses the
    word (:func:`used_in_english`: the loanwords and names it writes with their accents, "café",
    "naïve", "résumé", "jalapeño", "Nestlé", "Zürich", "Jürgen"), which a question in English holds
    as well."""
    found = alphabets(word)
    if not found or used_in_english(word):
        return frozenset()
    used = {code: _zipf(word, code) for code in found}
    most = max(used.values())
    return frozenset(code for code in found if not most or used[code] >= most - 1)


#: wordfreq's code of a language whose ISO 639-1 code it does not take: Norwegian Bokmål.
_WORDFREQ = {"no": "nb"}


def language_of_a_word(text: str, ranked: Callable[[], list[str]]) -> str | None:
    """The language of a question of one word, ``text``, told by its letters (:func:`letter_evidence`
    of the word, lower-cased: "Wärmepumpen", "Économie", "Przyszłość", "Öğrenci") or by Spanish's
    opening "¿" or "¡": of the languages whose alphabet writes it, the one whose text uses it most
    (:func:`_zipf`: "Città" is Italian, not French or Portuguese), or, where none lists it
    ("Hőszivattyú"), the first that ``ranked()`` (py3langid's ranking, ISO 639-1 codes; asked only
    then) names; ``None`` when neither tells a language (English letters alone, or a word English
    text uses: "Pokémon", "Café")."""
    word = "".join(ch for ch in text.lower() if ch.isalnum())
    found = letter_evidence(word) | frozenset(
        code for code, letters in LETTERS.items() if set(text) & set(letters) - set(word))
    if not found:
        return None
    used = {code: _zipf(word, code) for code in found}
    if max(used.values()) > 0:
        return max(sorted(found), key=lambda code: used[code])
    return next((code for code in ranked() if code in found), None)


def _zipf(word: str, code: str) -> float:
    """Zipf frequency (log10 of uses per billion words) of the lower-cased ``word`` in the text of
    language ``code`` (ISO 639-1), by wordfreq's largest list of it; 0 where it lists none."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, _WORDFREQ.get(code, code))


def is_name(token: str) -> bool:
    """True for a token written as a name wherever it stands: capitalised ("Kafka"), in capitals
    ("RAG"), in mixed case ("RabbitMQ", "MySQL") or with a digit ("S3")."""
    return token[:1].isupper() or any(ch.isupper() or ch.isdigit() for ch in token)


@functools.lru_cache(maxsize=4096)
def frequent_in(word: str) -> frozenset[str]:
    """The languages of :data:`COMPARED` in which the lower-cased ``word`` is frequent: at least once
    per million words (Zipf 3 or more), as wordfreq's "small" lists (Speer et al., wordfreq 3)
    count it. The lists load on first use (about 0.1 s for all)."""
    from wordfreq import zipf_frequency

    return frozenset(code for code in COMPARED if zipf_frequency(word, code, wordlist="small") > 0)


#: Zipf frequency (log10 of occurrences per billion words) from which English text uses a word,
#: as a name if not as its own ("Vue" 2.9, "Llama" 3.0, "Mistral" 2.6; "Vorteile" 0, "Preis" 1.9):
#: once in ten million words.
_USED = 2.0


def used_in_english(word: str) -> bool:
    """True when English text uses the lower-cased ``word`` once in ten million words or more
    (Zipf 2 in wordfreq's English list, its largest): a word of another language that English
    writes as a name ("vue", "llama", "jaeger"), below the "small" list's Zipf 3 of :func:`frequent_in`."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= _USED


#: How much less often (in Zipf, a factor of about three) English text may use a word than the
#: language that uses it most, for the word to be English's all the same: "symphonies" (Zipf 2.8 in
#: English and in French), "culture" (5.0 and 5.2), "tips"; not "prix" (3.8, French 5.6), "cena".
_ENGLISH_MARGIN = 0.5


def english_word(word: str) -> bool:
    """True when the lower-cased ``word`` is English's: frequent in it (:func:`frequent_in`), or used
    in its text (:func:`used_in_english`) nearly as often as in the compared language that uses it
    most (:data:`_ENGLISH_MARGIN`: "incompleteness", "symphonies"; not "precio", "kosten")."""
    if "en" in frequent_in(word):
        return True
    if not used_in_english(word):
        return False
    english = _zipf(word, "en")
    return all(_zipf(word, code) <= english + _ENGLISH_MARGIN for code in COMPARED)


#: Zipf frequency from which a word is common in its language's text: about three uses per million
#: words. A capitalised first word that is a language's only evidence must be that common there, as
#: a name is more likely than a rare word ("Redis Cluster?": "redis" is a rare French verb form,
#: Zipf 3.2; "Velero Backup?": a Spanish sailing boat, 3.1; "Vantaggi", "Preis", "Migliore": 4.4 to 5.4).
_COMMON = 3.5


def common_in(word: str, language: str) -> bool:
    """True when the lower-cased ``word`` is common in ``language``'s text (Zipf :data:`_COMMON` or
    more in wordfreq's "small" list of that language, ISO 639-1)."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, language, wordlist="small") >= _COMMON


def content_evidence(tokens: list[str], skip: dict[str, frozenset[str]]) -> dict[str, int]:
    """For each language other than English, how many of ``tokens`` (a question's words as written)
    are its own content words (:func:`own_languages`): {ISO 639-1 code: count}."""
    count: dict[str, int] = {}
    for found in own_languages(tokens, skip):
        for code in found:
            count[code] = count.get(code, 0) + 1
    return count


def own_languages(tokens: list[str], skip: dict[str, frozenset[str]]) -> list[frozenset[str]]:
    """For each of ``tokens`` (a question's words as written), in order, the languages other than
    English whose own content word it is: frequent in it (:func:`frequent_in`), not in English, and
    in no more than four of the nine compared languages ("kostet", "precio", "calor", "voordelen";
    not "Kafka", "tips", "solar"). A word of ``skip`` (each language's function words, counted
    apart) is left out for that language. A name is no language's (:func:`is_name`), but for the
    first word (a sentence starts with a capital: "Vorteile", "Precio") and for German, which
    capitalises its nouns ("Kosten"); a word in capitals, in mixed case or with a digit is none's,
    and so is a word written with letters English lacks that English text uses all the same
    (:func:`used_in_english`: "résumé", "Jürgen", "crème")."""
    out: list[frozenset[str]] = []
    for i, token in enumerate(tokens):
        word = token.lower()
        found = frequent_in(word)
        if (token[:1].isdigit() or any(ch.isupper() or ch.isdigit() for ch in token[1:])
                or "en" in found or len(found) > _MOST or (foreign_letters(word) and used_in_english(word))):
            out.append(frozenset())
            continue
        out.append(frozenset(code for code in found if (i == 0 or code == "de" or not is_name(token))
                             and word not in skip.get(code, ())))
    return out


def carries_no_language(word: str, code: str, english: frozenset[str]) -> bool:
    """True when the lower-cased ``word`` is no evidence for or against language ``code`` beside
    English in a short question: frequent in none of the compared languages (a name, a product:
    "kubernetes", "wärmepumpe" as one compound), in more than four of them (an international word
    or name: "kafka", "solar"), or in both English and ``code`` (a loanword both use: "database" in
    Italian), but for a word English text uses ten times as often as ``code``'s (Zipf, by
    wordfreq: "history" in Polish, 5.4 and 4.1; "software" in French), which is English's; never
    one of ``english`` (its function words: "or", "of", "in"), which are English's evidence, nor a
    word with a letter that neither English's alphabet nor ``code``'s writes (:data:`LETTERS`:
    "büyümesi" is no Swedish word, "energií" no Polish one)."""
    if foreign_letters(word) - set(LETTERS.get(code, "")):
        return False
    found = frequent_in(word)
    return word not in english and (not found or (
        (len(found) > _MOST or {"en", code} <= found) and _zipf(word, "en") < _zipf(word, code) + 1))


def joined_names(tokens: list[str], english: frozenset[str]) -> set[str]:
    """The languages whose conjunction (:data:`CONJUNCTIONS`) stands between two names in
    ``tokens`` ("Kafka oder RabbitMQ", "Rust ou Go"): a question in English would join them with
    "or", "and" or "vs". A conjunction that is a word of ``english`` (Dutch "of": "Bank of
    America") is no evidence."""
    found: set[str] = set()
    for before, word, after in zip(tokens, tokens[1:], tokens[2:], strict=False):
        if is_name(before) and is_name(after) and word not in english:
            found |= {code for code, words in CONJUNCTIONS.items() if word in words.split()}
    return found


def french_spacing(text: str) -> bool:
    """True when ``text`` sets a space before "?" or "!" as French typography does ("Rust ou Go ?")."""
    return bool(_FRENCH_SPACING.search(text))
