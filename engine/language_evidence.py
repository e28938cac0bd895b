"""Evidence of a short question's language besides its function words: its content words, a
conjunction between two names, French spacing before "?" (for :func:`engine.language.detect_language`)."""

from __future__ import annotations

import functools
import re

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


def content_evidence(tokens: list[str], skip: dict[str, frozenset[str]]) -> dict[str, int]:
    """For each language other than English, how many of ``tokens`` (a question's words as written)
    are its own content words: frequent in it (:func:`frequent_in`), not in English, and in no more
    than four of the nine compared languages ("kostet", "precio", "calor", "voordelen"; not "Kafka",
    "tips", "solar"). A word of ``skip`` (each language's function words, counted apart) is left out
    for that language. A name does not count (:func:`is_name`), but for the first word (a sentence
    starts with a capital: "Vorteile", "Precio") and for German, which capitalises its nouns
    ("Kosten"); a word in capitals, in mixed case or with a digit never counts."""
    count: dict[str, int] = {}
    for i, token in enumerate(tokens):
        if token[:1].isdigit() or any(ch.isupper() or ch.isdigit() for ch in token[1:]):
            continue
        word = token.lower()
        found = frequent_in(word)
        if "en" in found or len(found) > _MOST:
            continue
        for code in found:
            if (i == 0 or code == "de" or not is_name(token)) and word not in skip.get(code, ()):
                count[code] = count.get(code, 0) + 1
    return count


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
