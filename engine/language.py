"""Language of a question (for the report's language) and simple text utilities."""

from __future__ import annotations

import logging
import re
import threading

_WORD = re.compile(r"\w+", re.UNICODE)
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])")
_PARAGRAPH = re.compile(r"\n\s*\n")

NAMES = {
    "en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian",
    "pt": "Portuguese", "nl": "Dutch", "sv": "Swedish", "pl": "Polish", "ru": "Russian",
    "uk": "Ukrainian", "el": "Greek", "zh": "Chinese", "ja": "Japanese", "ko": "Korean",
    "tr": "Turkish", "cs": "Czech", "da": "Danish", "fi": "Finnish", "no": "Norwegian",
}


#: Function words of the languages the offline text covers (en, de, fr, es): articles, pronouns,
#: prepositions, particles and auxiliaries that carry no topic. One list for the corpus query
#: builder and the offline model's topic words.
FUNCTION_WORDS = frozenset(
    """a an the and or of to in on for with by at from about as is are was were be been being do does
    did what which who whom how why when where this that these those it its into than then there their
    can could should would will shall may might must i me my we our you your he she they them not no much many
    have has had having
    if so but all any some more most very also only just such own same other
    der die das den dem des ein eine einen einem einer eines und oder aber von zu zum zur im in ins am
    an auf aus ab bei beim nach vor um bis durch gegen ohne über unter zwischen mit für ist sind war
    waren wird werden wurde kann können soll sollte muss wie was welche welcher welches warum wann wo
    dies diese dieser es sich man nicht kein keine bitte auch nur noch schon sehr mehr als wenn dass so
    ich du er sie wir ihr mein dein sein unser viel viele haben hat hatte hatten habe gibt gab
    le la les l un une des et ou mais de du d en sur pour avec par dans est sont que qui quoi quel
    quelle comment pourquoi quand où ce cette ces il elle ils elles on ne pas plus se sa son ses au aux
    beaucoup combien quels quelles lequel laquelle lesquels lesquelles ont avoir
    el los las lo y o pero del al con por para en es son que qué cómo cuál cuando dónde este esta estos
    se su sus no más muy un una unos unas mucho mucha muchos muchas cuánto cuánta cuántos cuántas cuáles
    hay tiene tienen""".split()
)


_MODEL: list = []
_MODEL_LOCK = threading.Lock()


def load_language_model():
    """py3langid's identifier, loaded once per process (about 0.4 s; later callers wait for the first)."""
    with _MODEL_LOCK:
        if not _MODEL:
            from py3langid.langid import _load_identifier

            _MODEL.append(_load_identifier(norm_probs=True))
        return _MODEL[0]


def prefetch_language_model() -> None:
    """Start loading the language identifier in a background thread, so the first
    :func:`detect_language` call does not wait for it; does nothing once it is loaded."""
    if not _MODEL:
        import py3langid.langid  # noqa: F401  (here: numpy imported from two threads at once can fail)

        threading.Thread(target=_load_quietly, name="language-model", daemon=True).start()


def _load_quietly() -> None:
    """Load the model; a failure here is left to the first :func:`detect_language`, which loads it again."""
    try:
        load_language_model()
    except Exception as err:
        logging.getLogger(__name__).info("event=language_model_prefetch_failed error=%r", err)


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
    if re.search(r"[\u0400-\u04ff]", text):
        lang, _ = load_language_model().classify(text)
        return lang if lang in ("ru", "uk", "bg", "sr", "mk", "be") else "ru"
    if re.search(r"[\u0370-\u03ff]", text):
        return "el"
    if len(_WORD.findall(text)) < 3:  # too short to tell: no need for the model
        return default
    lang, prob = load_language_model().classify(text)
    return default if prob < 0.8 else lang


def language_name(code: str) -> str:
    """English name of an ISO 639-1 code, the code itself when unknown."""
    return NAMES.get(code, code)


def words(text: str) -> list[str]:
    """Lower-cased word tokens (Unicode letters and digits)."""
    return [w.lower() for w in _WORD.findall(text)]


#: Abbreviations that end in a full stop inside a sentence (en, de, fr, es), lower-cased.
ABBREVIATIONS = frozenset({
    "e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "dr.", "mr.", "mrs.", "ms.", "prof.", "fig.", "no.", "vol.",
    "z.b.", "d.h.", "u.a.", "bzw.", "usw.", "ca.", "vgl.", "nr.", "p.ex.", "env.", "mme.", "p.", "pp.", "ej.", "sr.",
    "sra.", "núm.",
})


def sentences(text: str) -> list[str]:
    """Split prose into sentences: at end punctuation followed by space, or at blank lines.

    A full stop does not end a sentence after an abbreviation of :data:`ABBREVIATIONS` ("e.g.",
    "Dr.", "z.B.") or when the text after it starts with a lower-case letter ("Use e.g. wait_for").
    """
    out: list[str] = []
    for paragraph in _PARAGRAPH.split(text):
        start = len(out)
        for part in _SENTENCE.split(paragraph):
            part = " ".join(part.split())
            if not part:
                continue
            if len(out) > start and out[-1].endswith(".") and (
                    part[0].islower() or out[-1].rsplit(" ", 1)[-1].lower() in ABBREVIATIONS):
                out[-1] += " " + part
            else:
                out.append(part)
    return out
