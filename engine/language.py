"""Language of a question (for the report's language): its detection, the languages' names and their
function words. How text splits into words and sentences is :mod:`engine.segments`."""

from __future__ import annotations

import logging
import re
import threading
import unicodedata

from engine.chinese import TRADITIONAL, is_traditional
from engine.language_evidence import (
    LETTERS,
    carries_no_language,
    common_in,
    content_evidence,
    english_word,
    foreign_letters,
    french_spacing,
    is_name,
    joined_names,
    language_of_a_word,
    letter_evidence,
    own_languages,
    used_in_english,
)
from engine.offline_phrases_more import FUNCTION_WORDS as _FUNCTION_WORDS_MORE
from engine.redact import quoted
from engine.segments import has_segmented_script

_WORD = re.compile(r"\w+", re.UNICODE)
#: A word of hiragana alone: a Japanese function word (:func:`is_function_word`).
_HIRAGANA = re.compile(r"[\u3040-\u309f]+")

NAMES = {
    "en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian",
    "pt": "Portuguese", "nl": "Dutch", "sv": "Swedish", "pl": "Polish", "ru": "Russian",
    "uk": "Ukrainian", "el": "Greek", "zh": "Chinese", "ja": "Japanese", "ko": "Korean",
    "tr": "Turkish", "cs": "Czech", "da": "Danish", "fi": "Finnish", "no": "Norwegian",
    "ar": "Arabic", "fa": "Persian", "ur": "Urdu", "he": "Hebrew", "hi": "Hindi", "mr": "Marathi",
    "ne": "Nepali", "th": "Thai", "vi": "Vietnamese", "id": "Indonesian", "ro": "Romanian",
    "hu": "Hungarian", "bg": "Bulgarian", "sr": "Serbian", "mk": "Macedonian", "be": "Belarusian",
    # Chinese in Traditional characters (:mod:`engine.chinese`): told apart from "zh" by its script,
    # not by the identifier; a model told only "Chinese" writes Simplified characters
    TRADITIONAL: "Traditional Chinese",
}
#: Scripts that settle the language among a few (the identifier picks among them; the first when it
#: ranks none of them): Unicode blocks Cyrillic, Arabic, Hebrew, Devanagari, Thai and Greek.
_SCRIPT_LANGUAGES = (
    (re.compile(r"[\u0400-\u04ff]"), ("ru", "uk", "bg", "sr", "mk", "be")),
    (re.compile(r"[\u0600-\u06ff\u0750-\u077f]"), ("ar", "fa", "ur")),
    (re.compile(r"[\u0590-\u05ff]"), ("he",)),
    (re.compile(r"[\u0900-\u097f]"), ("hi", "mr", "ne")),
    (re.compile(r"[\u0e00-\u0e7f]"), ("th",)),
    (re.compile(r"[\u0370-\u03ff\u1f00-\u1fff]"), ("el",)),
)


#: Function words by language: articles, pronouns, prepositions, particles and auxiliaries that
#: carry no topic, and the question words with the degree words that make one of them ask how long or
#: how often ("how long", "wie lange", "combien de temps … souvent", "a menudo") (en, de, fr, es, which the
#: offline text covers; the question words, prepositions and particles of Arabic; the question words and
#: conjunctions of Chinese and Thai that are longer than one character; and Japanese "what" with its
#: particle, "何と", which ICU writes as one word).
_FUNCTION_WORDS = {
    "en": """a an the and or of to in on for with by at from about as is are was were be been being do does
        did what which who whom how why when where this that these those it its into than then there their
        can could should would will shall may might must i me my we our you your he she they them not no much many
        have has had having
        if so but all any some more most very also only just such own same other
        long often far soon""",
    "de": """der die das den dem des ein eine einen einem einer eines und oder aber von zu zum zur im in ins am
        an auf aus ab bei beim nach vor um bis durch gegen ohne über unter zwischen mit für ist sind war
        waren wird werden wurde kann können soll sollte muss wie was welche welcher welches warum wann wo
        dies diese dieser es sich man nicht kein keine bitte auch nur noch schon sehr mehr als wenn dass so
        ich du er sie wir ihr mein dein sein unser viel viele haben hat hatte hatten habe gibt gab
        lange oft weit darf dürfen müssen wollen lässt""",
    "fr": """le la les l un une des et ou mais de du d en sur pour avec par dans est sont que qui quoi quel
        quelle comment pourquoi quand où ce cette ces il elle ils elles on ne pas plus se sa son ses au aux
        beaucoup combien quels quelles lequel laquelle lesquels lesquelles ont avoir
        longtemps souvent loin entre depuis pendant vers chez sans sous peut peuvent doit doivent été être""",
    "es": """el los las lo y o pero del al con por para en es son que qué cómo cuál cuando dónde este esta estos
        se su sus no más muy un una unos unas mucho mucha muchos muchas cuánto cuánta cuántos cuántas cuáles
        hay tiene tienen
        sobre entre desde hasta hacia según durante mediante contra tras menudo lejos puede pueden debe deben
        ha han está están fue fueron ser estar""",
    "ar": """ما ماذا مدى كم كيف هل لماذا متى أين اين أي أية من في إلى الى على عن مع بين عند منذ حتى لدى أو او ثم لكن
        لا لم لن ليس قد هو هي هم هذا هذه ذلك تلك هناك التي الذي الذين كان كانت يكون تكون أن إن عندما إذا كل بعض""",
    "zh": """如何 什么 怎么 怎样 为什么 哪些 哪个 是否 可以 以及 或者 还是 这个 那个 这些 那些 我们 你们 他们 它们
        请问 如果 因为 所以 但是 而且 没有 能否 多少 什麼 怎麼 為什麼 多久 多长 多長""",
    "ja": """何と 何が 何を 何で 何の 何か""",
    "th": """และ การ ความ อย่างไร อะไร ทำไม ที่ ของ ใน เป็น มี ได้ ไม่ หรือ กับ จะ ให้ ว่า""",
}
#: The function words of :data:`_FUNCTION_WORDS` and of Italian, Dutch, Portuguese and Swedish
#: (:data:`engine.offline_phrases_more.FUNCTION_WORDS`) in one set: for the corpus query builder and
#: the offline model's topic words (:func:`is_function_word` adds Japanese particles).
FUNCTION_WORDS = frozenset(word for text in (*_FUNCTION_WORDS.values(), *_FUNCTION_WORDS_MORE.values())
                           for word in text.split())
#: Function and question words of the languages :data:`_FUNCTION_WORDS` leaves out or lists in
#: part (Italian, Dutch, Portuguese, Polish, Swedish: articles, pronouns, prepositions,
#: conjunctions, auxiliaries and question words; less those that are common English words too:
#: Dutch "door", "over", Polish "ten", Swedish "man", "den", "var"), for telling a short question's
#: language only (:data:`FUNCTION_WORDS` stays as it is).
_MORE_WORDS = {
    "de": "wer wen wem wessen wieso weshalb wozu woher wohin womit wofür worauf",
    "fr": "à a y",
    "es": "de la a le les",
    "it": """il lo la i gli le un una uno di del dello della dei degli delle da dal dalla in nel nella
        con su per tra fra e ed o ma che chi cosa cos come dove quando perché quale quali quanto
        quanta quanti quante è sono non si ci più anche molto questo questa quello quella ha hanno
        può possono c""",
    "nl": """de het een en of maar van in op voor met naar bij uit om te tot dat die dit deze wat wie
        welke welk waarom wanneer waar hoe is zijn was waren wordt worden kan kunnen moet moeten
        niet geen ook nog er hij zij ze wij we jij je ik u hebben heeft veel meer""",
    "pt": """o a os as um uma uns umas de do da dos das em no na nos nas por pelo pela para com e ou
        mas que quê qual quais quando onde como porque porquê quanto quanta quantos quantas é são
        está estão não se seu sua mais muito também isso isto este esta esse essa pode podem tem
        têm há""",
    "pl": """i w z na do od po o za przez dla jak co czy jest są nie się to ta te który która które
        dlaczego kiedy gdzie ile jaki jaka jakie czym kto można czego oraz lub albo ale też już
        bardzo""",
    "sv": """och i på av till för med om från som att det de en ett är vad hur varför när vilken
        vilket vilka kan ska inte jag du han hon vi ni mer också bara eller""",
}
#: The function and question words of each language (:data:`_FUNCTION_WORDS`, :data:`_MORE_WORDS`):
#: what tells a short question's language when the identifier is unsure (:func:`_told_by_its_words`).
_QUESTION_WORDS = {code: frozenset(f"{_FUNCTION_WORDS.get(code, '')} {_MORE_WORDS.get(code, '')}".split())
                   for code in {**_FUNCTION_WORDS, **_MORE_WORDS}}
#: The question words of each language other than English that :data:`_QUESTION_WORDS` holds (none that
#: is an English word too: German "was", Dutch "wie"): a short question that opens with one is that
#: language's (:func:`_told_by_its_words`) more surely than by a function word, which is often a name or
#: an English word as well ("Man vs machine?", "Die Hard trivia").
_INTERROGATIVES = {
    "de": "wie warum wann wo welche welcher welches wer wen wem wieso weshalb wozu woher wohin womit",
    "fr": "comment pourquoi quand où quel quelle quels quelles combien qui quoi",
    "es": "qué cómo cuál cuáles cuándo dónde cuánto cuánta cuántos cuántas quién",
    "it": "come cosa cos perché quando dove quale quali quanto quanta quanti quante chi",
    "nl": "wat hoe waarom wanneer waar welke welk",
    "pt": "que quê como porque porquê quando onde qual quais quanto quanta quantos quantas",
    "pl": "jak dlaczego kiedy gdzie ile czy co kto czym jaki jaka jakie",
    "sv": "vad hur varför när vilken vilket vilka",
}
_MODEL: list = []
_MODEL_LOCK = threading.Lock()


def load_language_model():
    """py3langid's identifier for the languages of :data:`NAMES`, loaded once per process (memory-mapped
    from the machine's cache, :mod:`engine.langid_model`: milliseconds once the cache is written;
    later callers wait for the first)."""
    with _MODEL_LOCK:
        if not _MODEL:
            from engine.langid_model import load_identifier

            # only the languages named here: a short question is not taken for Occitan or Low
            # Saxon, and the probability goes to the languages users write in (near neighbours such
            # as Catalan and Croatian are left out: "Qué es asyncio?" stays Spanish)
            _MODEL.append(load_identifier(sorted(set(NAMES) - {TRADITIONAL})))
        return _MODEL[0]


def prefetch_language_model() -> None:
    """Start loading the language identifier in a background thread, so the first
    :func:`detect_language` call does not wait for it; does nothing once it is loaded."""
    if not _MODEL:
        import engine.langid_model  # noqa: F401  (here: numpy imported from two threads at once can fail)

        threading.Thread(target=_load_quietly, name="language-model", daemon=True).start()


def _load_quietly() -> None:
    """Load the model; a failure here is left to the first :func:`detect_language`, which loads it again."""
    try:
        load_language_model()
    except Exception as err:
        logging.getLogger(__name__).info("event=language_model_prefetch_failed error=%s detail=%s", type(err).__name__,
                                         quoted(err))


def detect_language(text: str, default: str = "en") -> str:
    """ISO 639-1 code of ``text``'s language, ``default`` when unsure; Chinese in Traditional
    characters is ``zh-Hant`` (:func:`engine.chinese.is_traditional`, by OpenCC), in Simplified or
    mixed ones ``zh``.

    Uses py3langid (a fork of Lui & Baldwin's langid.py, 2012) over the languages of :data:`NAMES`.
    Very short texts are unreliable: one word, or two, or three or more below 0.8 probability,
    yield ``default`` unless the script of at least 30% of the letters settles it (CJK; Cyrillic,
    Arabic, Hebrew, Devanagari, Thai and Greek among their languages: :data:`_SCRIPT_LANGUAGES`;
    "the β coefficient" is English; letters of Latin names are not counted: "Kafka还是RabbitMQ？"
    is Chinese, :func:`_name_letters`), or, from two words on, the question's own words and letters
    tell a language other than English (:func:`_told_by_its_words`: "Wie bricht asyncio Tasks ab?",
    "Wärmepumpe Kosten?", "Kafka oder RabbitMQ?", "Bomba de calor precio?"; "thanks!", "What is
    RAG?", "Rust or Go?" keep ``default``), or one word's letters do
    (:func:`engine.language_evidence.language_of_a_word`: "Wärmepumpen", "Économie", "Przyszłość";
    not a word English text writes with its accents: "Pokémon", "Café", "Zürich"). The text is
    read in Unicode NFKC first (Arabic presentation forms, as text copied from a PDF holds them, become its letters), and
    without its code, URLs and identifiers (``asyncio.gather``, a backtick span of SQL): they are no
    language's words, and made "Warum ist `SELECT * FROM users` so langsam?" read as English.
    """
    text = unicodedata.normalize("NFKC", text).strip()  # Arabic presentation forms (copied from a PDF) as letters
    if not text:
        return default
    letters = max(1, sum(ch.isalpha() for ch in text) - _name_letters(text))
    cjk = len(re.findall(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]", text))
    if cjk / letters >= 0.3:  # mostly CJK script; a few quoted characters in Latin text do not count
        if re.search(r"[\u3040-\u30ff]", text):
            return "ja"
        if re.search(r"[\uac00-\ud7af]", text):
            return "ko"
        return TRADITIONAL if is_traditional(text) else "zh"
    for letters_of, languages in _SCRIPT_LANGUAGES:
        if len(letters_of.findall(text)) / letters >= 0.3:  # as for CJK: a quoted word in Latin text does not count
            if len(languages) == 1:
                return languages[0]
            return next((lang for lang, _ in load_language_model().rank(text) if lang in languages), languages[0])
    text = _without_code(text) or text  # code, addresses and identifiers are no language's words
    count = len(_WORD.findall(text))
    if count >= 3:
        lang, prob = load_language_model().classify(text)
        if prob >= 0.8:
            return lang
    if count == 1:
        return language_of_a_word(text, lambda: [lang for lang, _ in load_language_model().rank(text)]) or default
    return (count >= 2 and _told_by_its_words(text)) or default


#: A run of Latin letters and digits: a Latin word, where Latin text meets another script.
_LATIN_RUN = re.compile(r"[0-9A-Za-z\u00c0-\u024f]+")


def _name_letters(text: str) -> int:
    """How many of ``text``'s letters are in Latin names (:func:`engine.language_evidence.is_name`:
    "Kafka", "RabbitMQ", "S3"; not a capitalised English function word: "What"): in a question of
    another script they are no evidence of Latin text ("Kafka还是RabbitMQ？" is Chinese)."""
    return sum(sum(ch.isalpha() for ch in run) for run in _LATIN_RUN.findall(text)
               if is_name(run) and run.lower() not in _QUESTION_WORDS["en"])


def _told_by_its_words(text: str) -> str | None:
    """The language other than English of a short Latin-script ``text`` (two words or more) that
    the identifier is too unsure of, told by the evidence of its words; ``None`` when they tell
    none ("What is RAG?", "Kubernetes vs Nomad?", "ok thanks").

    Each language scores (:func:`_scores`) one for each of its function and question words
    (:data:`_QUESTION_WORDS`: "Wie", "ab"; "Hoe"; "Cómo") that English does not have too (a word of
    both counts for English alone, so "War in Ukraine?" stays English), one more for one of its
    question words (:data:`_INTERROGATIVES`) as the first word, one for a word written with letters
    of its alphabet that English lacks (:func:`engine.language_evidence.letter_evidence`: "ä", "ñ",
    "ł"; not in a word English text writes so too: "café", "Jürgen"), unless the words without such
    letters are English (:func:`engine.language_evidence.english_word`, or by py3langid's ranking:
    "Nestlé annual revenue?", "Gödel incompleteness", "Dvořák symphonies"), one for each of its own
    content words (:func:`engine.language_evidence.content_evidence`: "kostet", "precio"), one for its conjunction
    between two names (:func:`~engine.language_evidence.joined_names`: "Kafka oder RabbitMQ"), one
    when its words are the only ones besides names and words of no language (:func:`_alone`:
    "Kubernetes Vorteile?", "Migliore database?") and, for French, one for a space before "?" or
    "!". A language with content words, such a conjunction or only its words also counts its words
    that are English's too ("Was kostet Kubernetes?"). One function word alone is no evidence (it is
    often a name or English too: "Die Hard trivia"), nor one content word or a space alone beside an
    English word. The highest score, if it is above English's (its function words), wins when
    py3langid ranks that language above English, or, for a conjunction between names or a question
    of its words alone, anywhere in its ranking (among several with that score, the first it
    ranks). Names are no
    language's function words and are not counted: a capitalised word after the first (German's
    nouns too: "Tasks"), a word in capitals ("RAG") or with a digit ("S3").
    """
    tokens = _WORD.findall(text)
    model = load_language_model()
    score, sure = _scores(text, tokens, model)
    english = score.pop("en")
    best = max(score.values())
    if best <= english:
        return None
    for lang, _ in model.rank(text):
        if lang == "en" and not sure & {code for code, value in score.items() if value == best}:
            return None
        if score.get(lang) == best:
            return lang
    return None


def _scores(text: str, tokens: list[str], model) -> tuple[dict[str, int], set[str]]:
    """Each language's score for :func:`_told_by_its_words` (ISO 639-1 code -> points; English's by
    its function words alone; a language with one point and no stronger evidence has 0), and the
    languages whose conjunction stands between two names in ``tokens`` (the words of ``text``) or
    whose words are the only ones it holds besides names (:func:`_alone`)."""
    named = [bool((i and token[:1].isupper()) or any(c.isdigit() for c in token)
                  or (len(token) > 1 and token.isupper())) for i, token in enumerate(tokens)]
    own = [token.lower() for token, name in zip(tokens, named, strict=True) if not name]
    english_words = _QUESTION_WORDS["en"]
    score = {code: sum(word in found and (code == "en" or word not in english_words) for word in own)
             for code, found in _QUESTION_WORDS.items()}
    content = content_evidence(tokens, _QUESTION_WORDS)
    sure = joined_names(tokens, english_words) | _alone(tokens, named, english_words)
    for code in set(content) | sure:  # its words that English has too are its as well ("Was kostet")
        score[code] = (score.get(code, 0) + content.get(code, 0) + (code in sure)
                       + sum(word in english_words and word in _QUESTION_WORDS.get(code, ()) for word in own))
    asks = {code for code, found in _INTERROGATIVES.items() if own and own[0] in found.split()}
    for code in asks:  # it opens with its own question word: "Wat is Kubernetes?"
        score[code] += 1
    if french_spacing(text):
        score["fr"] += 1
    punctuation = {ch for ch in text if not ch.isalnum()}  # "¿", "¡": no word's letters
    plain = [word for word in own if not foreign_letters(word)]
    lettered: set[str] = set()
    if not (plain and (all(word in english_words or english_word(word) for word in plain)
                       or model.rank(" ".join(plain))[0][0] == "en")):
        lettered = {code for word in own for code in letter_evidence(word)}
        lettered |= {code for code, letters in LETTERS.items() if punctuation & set(letters)}
    for code in lettered:
        score[code] = score.get(code, 0) + 1
    for code in score:  # one word alone is no evidence: a function word is often a name or English too
        if code != "en" and score[code] < 2 and code not in asks | lettered | sure:
            score[code] = 0
    return score, sure


#: "Versus" as the languages compared write it: "Kafka vs Flink", "Vue versus React". Its capitalised
#: words are the things compared, names, even where they are another language's words ("Flink",
#: "Vue") and German nouns.
_VERSUS = frozenset({"vs", "versus"})


def _alone(tokens: list[str], named: list[bool], english: frozenset[str]) -> set[str]:
    """The languages other than English that are the only ones ``tokens`` (a short question's words
    as written; ``named``: which of them are names by :func:`_scores`' rule) hold words of: each token
    is a name, a word of no language's or of English's and the language's alike
    (:func:`engine.language_evidence.carries_no_language`: "Kubernetes", "database"), or the
    language's own: a content word (:func:`engine.language_evidence.own_languages`) or a function
    word that English lacks; and one at least is its content word ("Kubernetes Vorteile?",
    "Migliore database?", "Vantaggi Kubernetes?"). An English function word ("Kafka of RabbitMQ?")
    or a word frequent in English but not in the language ("GPT-4 pricing?") leaves it out.

    Two words of letters at least (a number is a version, not a word: "Vue 3?"). In a comparison
    (:data:`_VERSUS`) the capitalised words are names. A capitalised first word, when it is the
    language's only content word, may be a name's as much as a sentence's start: it is the
    language's only if English text rarely uses it (:func:`engine.language_evidence.used_in_english`:
    "Vantaggi Kubernetes?"; not "Vue Router?", "Mistral Large?") and the language's text often does
    (:func:`engine.language_evidence.common_in`: not "Redis Cluster?", "Velero Backup?")."""
    if sum(any(ch.isalpha() for ch in token) for token in tokens) < 2:
        return set()
    compared = any(token.lower() in _VERSUS for token in tokens)
    capital = [bool(token[:1].isupper()) for token in tokens]
    langs = [frozenset() if compared and upper else found
             for found, upper in zip(own_languages(tokens, _QUESTION_WORDS), capital, strict=True)]
    found: set[str] = set()
    for code in set().union(*langs):
        words = _QUESTION_WORDS.get(code, frozenset())
        first_only = capital[0] and [code in its for its in langs] == [True] + [False] * (len(langs) - 1)
        if first_only and (used_in_english(tokens[0].lower())  # "Vue Router?": a name English uses
                           or not common_in(tokens[0].lower(), code)):  # "Redis Cluster?": a rare word
            continue
        if all(code in its or carries_no_language(token.lower(), code, english)
               or (token.lower() in words and token.lower() not in english)
               or name or (compared and upper)
               for token, name, upper, its in zip(tokens, named, capital, langs, strict=True)):
            found.add(code)
    return found


#: What is code or an address in a question, not words of its language: Markdown code (fenced or a
#: span), a URL, and a token joined by ``.`` (parts of two letters or more: not ``U.S.`` or ``z.B.``),
#: ``_``, ``::`` or ``/``, or ending in ``()`` (``asyncio.gather``, ``snake_case``, ``std::vector``,
#: ``main()``).
_CODE = re.compile(r"```.*?(?:```|$)|(`+).+?\1|\b(?:https?|ftp)://\S+|www\.\S+"
                   r"|\w{2,}(?:\.\w{2,})+(?:\(\))?|\w+(?:(?:_|::|/)\w+)+(?:\(\))?|\w+\(\)", re.DOTALL)


def _without_code(text: str) -> str:
    """``text`` without its code, addresses and identifiers (:data:`_CODE`), spaces collapsed."""
    return " ".join(_CODE.sub(" ", text).split())


def language_name(code: str) -> str:
    """English name of an ISO 639-1 code (or of ``zh-Hant``: "Traditional Chinese"), the code itself when unknown."""
    return NAMES.get(code, code)


def is_function_word(word: str) -> bool:
    """True for a lower-cased word that carries no topic: one of :data:`FUNCTION_WORDS`, a Japanese
    word of hiragana alone (particles, endings and auxiliaries: "は", "を", "ます", "どのように";
    Japanese writes its topic words in kanji, katakana or Latin letters), or a single character of a
    script written without spaces (Chinese "的", "在", "并")."""
    return (word in FUNCTION_WORDS or bool(_HIRAGANA.fullmatch(word))
            or (len(word) == 1 and has_segmented_script(word)))
