"""Language of a question (for the report's language) and simple text utilities."""

from __future__ import annotations

import re
from functools import lru_cache

_WORD = re.compile(r"\w+", re.UNICODE)
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n{2,}|(?<=[。！？])")

NAMES = {
    "en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian",
    "pt": "Portuguese", "nl": "Dutch", "sv": "Swedish", "pl": "Polish", "ru": "Russian",
    "uk": "Ukrainian", "el": "Greek", "zh": "Chinese", "ja": "Japanese", "ko": "Korean",
    "tr": "Turkish", "cs": "Czech", "da": "Danish", "fi": "Finnish", "no": "Norwegian",
}


@lru_cache(maxsize=1)
def _identifier():
    from py3langid.langid import _load_identifier

    return _load_identifier(norm_probs=True)


def detect_language(text: str, default: str = "en") -> str:
    """ISO 639-1 code of ``text``'s language, ``default`` when unsure.

    Uses py3langid (a fork of Lui & Baldwin's langid.py, 2012). Very short texts (one or two
    words) are unreliable, so anything under three words, or below 0.8 probability, yields
    ``default`` unless the script itself settles it (CJK, Cyrillic, Greek).
    """
    text = text.strip()
    if not text:
        return default
    letters = max(1, sum(ch.isalpha() for ch in text))
    cjk = len(re.findall(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]", text))
    if cjk / letters >= 0.3:  # mostly CJK script; a few quoted characters in Latin text do not count
        if re.search(r"[\u3040-\u30ff]", text):
            return "ja"
        if re.search(r"[\uac00-\ud7af]", text):
            return "ko"
        return "zh"
    words = _WORD.findall(text)
    lang, prob = _identifier().classify(text)
    if re.search(r"[\u0400-\u04ff]", text):
        return lang if lang in ("ru", "uk", "bg", "sr", "mk", "be") else "ru"
    if re.search(r"[\u0370-\u03ff]", text):
        return "el"
    if len(words) < 3 or prob < 0.8:
        return default
    return lang


def language_name(code: str) -> str:
    """English name of an ISO 639-1 code, the code itself when unknown."""
    return NAMES.get(code, code)


def words(text: str) -> list[str]:
    """Lower-cased word tokens (Unicode letters and digits)."""
    return [w.lower() for w in _WORD.findall(text)]


def sentences(text: str) -> list[str]:
    """Split prose into sentences (a simple rule: end punctuation or blank lines)."""
    out = []
    for part in _SENTENCE.split(text):
        part = " ".join(part.split())
        if part:
            out.append(part)
    return out
