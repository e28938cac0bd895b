"""Whether a text mentions a word in any of its forms: the one test the offline model's selection
(:func:`engine.offline_select.choose`) and its review (:func:`engine.offline_review.unanswered`)
share, so that a sentence the review says is missing a word is never one the selection would have
taken for it, and the other way round.

A text mentions a word when one of its words is a form of it:

- the same Snowball stem in the question's language (:func:`engine.offline_terms.terms`:
  "timeouts" and "TimeoutError", "Leistungen" and "Leistung");
- in Arabic, the same stem once the proclitics are taken off: the conjunctions و and ف, the
  prepositions ب, ك and ل, and the article ال (لل for ل + ال), as Larkey, Ballesteros & Connell's
  light stemmer does ("Light Stemming for Arabic Information Retrieval", 2007), here also a single
  preposition, which is safe when the other side is a known word ("لكفاءة" mentions "كفاءة",
  "والمضخات" mentions "المضخات");
- in a script written without spaces (Chinese, Japanese, Thai; Korean, whose particles are written
  onto the word), the word's characters in the text, Traditional and Simplified Chinese read alike
  (OpenCC ``t2s``): its segmentation by ICU may cut the text otherwise ("空氣源熱泵" mentions "熱泵";
  "热泵" mentions "熱泵"); a Korean word also without the particle it ends in (:data:`KOREAN_PARTICLES`:
  "히트펌프는" mentions "히트펌프의");
- a regular inflection that Snowball's stemmer takes to another stem (Spanish "inviernos" -> "invi",
  "invierno" -> "inviern"; its step for attached pronouns reads "-nos" as one; French "hivers", "hiver",
  and a verb's plural, which it keeps whole: "coûtent", "coûte"; Portuguese "regiões", "região";
  Swedish "vintrar", "vinter"): the two words meet once each is also taken back to its base form by
  its language's rules of inflection (:data:`INFLECTIONS`);
- in a language that writes compounds as one word (:data:`CLOSED_COMPOUNDS`), a compound whose head
  is the word ("Erdwärmepumpen" mentions "Wärmepumpen") or that holds the word as it is written,
  then a linking element (:data:`LINKS`) and a part that can start a word ("Pumpenhaus" mentions
  "Pumpe"; "Pumpernickel" does not: no word starts with "rn");
- in English, an adjective's comparative or superlative and its base, and an adjective in -y and
  the noun it is made of (:func:`degree_bases`: "quieter" and "quiet", "cheapest" and "cheap",
  "bigger" and "big", "noisier", "noisy" and "noise"): Snowball keeps "quieter" and "noisy" apart
  from "quiet" and "noise". A word is such a form only when English writes its other degree too
  (wordfreq: "quietest" beside "quieter", "noisiest" beside "noisy"), which "water", "paper",
  "never", "boiler" and "heater" lack; a base keeps :data:`MIN_BASE` letters, and the two words
  meet only when the text writes the base (or a form of it) that the question's word has, or the
  other way round.
"""

from __future__ import annotations

import functools
import re

from engine.segments import has_segmented_script, script

#: Languages that write a compound as one word (German, Dutch, the Scandinavian languages,
#: Finnish): its last part names what it is ("Luftwärmepumpe" is a "Wärmepumpe").
CLOSED_COMPOUNDS = frozenset({"de", "nl", "sv", "da", "no", "fi"})
#: Linking elements between the parts of a compound in those languages (German "Fugenelemente":
#: -s-, -es-, -n-, -en-, -e-, -er-, -ens-; Dutch -s-, -en-; Swedish -s-, -a-, -o-, -u-), longest first.
LINKS = ("ens", "es", "en", "er", "ns", "s", "n", "e", "a", "o", "u", "")
#: A compound part needs this many letters, and a word must stem to this many letters to be sought
#: inside a compound: "Rad" is not looked for in "Grad".
MIN_PART = 3
MIN_COMPOUND_STEM = 4
#: Verb prefixes that are not a compound's first part ("Verkauf" is not a "Kauf").
_PREFIXES = frozenset({"ver", "zer", "ent", "emp", "miss", "ont", "her", "för"})
_VOWEL = "aeiouyäöüåæøéè"
#: How a part of a compound can start: a vowel, or a consonant (or a cluster that starts words in
#: these languages: "sch", "str", "pf", "kl") before a vowel; "rnickel" starts no word.
_ONSET = re.compile(rf"(?:sch[lmnrw]?|s[ckptlmnw]r?|pf[lr]?|ch[lr]?|[bcdfgkpt][lr]|[gk]n|ph|qu|th|ts|tw|wr|zw"
                    rf"|[bcdfghjklmnpqrstvwxzß])?[{_VOWEL}]")
#: The regular plural (and for Italian and the Scandinavian languages, definite) endings of each language's
#: nouns and adjectives, as its grammars give them, with what the base form ends in instead, for the forms
#: whose Snowball stem differs from the base form's: ``(ending, base ending)``. English: knives -> knife,
#: analyses -> analysis, indices -> index (Porter2 takes "-s" itself and keeps "news" apart); Spanish and
#: Portuguese -s, -es, Spanish luces -> luz, Portuguese regiões -> região, animais -> animal, papéis ->
#: papel, fósseis -> fóssil, homens -> homem, meses -> mês; French -s, -x, chevaux -> cheval, travaux ->
#: travail, and a verb's third person plural, coûtent -> coûte, vendent -> vend (Snowball's French stemmer
#: leaves "-ent", which many nouns end in: "moment"); Italian -i for -o and -e, -e for -a, laghi -> lago, banche -> banca; German -e, -en, -n, -er,
#: -s, -nen; Dutch -s, -'s, -en, kinderen -> kind; Swedish, Danish and Norwegian -ar, -er, -or, -r, -e and
#: the definite -en, -et, -na (with :data:`SYNCOPE`).
INFLECTIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "en": (("ves", "f"), ("ves", "fe"), ("es", "is"), ("ices", "ex"), ("ices", "ix")),
    "es": (("s", ""), ("es", ""), ("ces", "z")),
    "pt": (("s", ""), ("es", ""), ("ões", "ão"), ("ães", "ão"), ("ãos", "ão"), ("ais", "al"), ("éis", "el"),
           ("eis", "il"), ("óis", "ol"), ("uis", "ul"), ("is", "il"), ("ns", "m"), ("eses", "ês")),
    "fr": (("s", ""), ("x", ""), ("aux", "al"), ("aux", "ail"), ("ent", "e"), ("ent", "")),
    "it": (("i", "o"), ("i", "e"), ("e", "a"), ("chi", "co"), ("ghi", "go"), ("che", "ca"), ("ghe", "ga"),
           ("ci", "cio"), ("gi", "gio")),
    "de": (("e", ""), ("en", ""), ("n", ""), ("er", ""), ("s", ""), ("nen", "")),
    "nl": (("s", ""), ("'s", ""), ("en", ""), ("eren", "")),
    "sv": (("ar", ""), ("er", ""), ("or", "a"), ("r", ""), ("en", ""), ("et", ""), ("na", ""), ("arna", ""),
           ("erna", ""), ("orna", "a")),
    "da": (("e", ""), ("er", ""), ("r", ""), ("en", ""), ("et", ""), ("ne", ""), ("erne", "")),
    "no": (("e", ""), ("er", ""), ("r", ""), ("en", ""), ("et", ""), ("ene", ""), ("a", "")),
}
#: Languages whose nouns in -el, -en, -er lose that "e" before an ending that starts with a vowel
#: (Swedish vinter -> vintrar, nyckel -> nycklar, öken -> öknar; Danish and Norwegian vinter -> vintre):
#: a base form that ends in a consonant, then l, n or r, gets its "e" back.
SYNCOPE = frozenset({"sv", "da", "no"})
#: Letters a base form keeps at least: "mes" is not "me" and an "s".
MIN_BASE = 3
#: Korean particles (josa), written onto the word they follow: the case particles (subject 이/가, object
#: 을/를, genitive 의, locative and dative 에/에서/에게/께, instrumental 로/으로, comitative 와/과/하고/랑/이랑),
#: the topic and additive particles 은/는/도/만, and 부터, 까지, 보다, 처럼, 마다, 로서/로써, each with
#: 는 or 도 after it ("에서는"), longest first. A text mentions "히트펌프의" when it writes "히트펌프는".
KOREAN_PARTICLES = tuple(sorted(
    {*(f"{p}{topic}" for p in "에서 에게 께서 으로 로 에 와 과 부터 까지 보다 처럼".split() for topic in ("는", "도")),
     *"이 가 을 를 의 에 에서 에게 께 께서 로 으로 와 과 하고 랑 이랑 은 는 도 만 부터 까지 보다 처럼 마다 로서 로써 으로서 으로써".split()},
    key=len, reverse=True))
#: Arabic proclitics, outermost first: a conjunction, a preposition, the article (لل is ل + ال).
_ARABIC_CLITICS = re.compile(r"^(?P<conj>[وف])?(?P<prep>[بكل])?(?P<art>ال|(?<=ل)ل)?")


def mentioned(words: list[str], text: str, language: str = "en") -> list[str]:
    """The words of ``words`` (a question's words as it writes them) that ``text`` mentions in any
    form (module docstring), in their order; ``language`` is the question's (ISO 639-1,
    ``zh-Hant``)."""
    from engine.offline_terms import terms

    stems = set(terms(text, language))
    by_stem = [w for w in words if set(terms(w, language)) & stems]
    other = set(mentioned_otherwise([w for w in words if w not in by_stem], text, language))
    return [w for w in words if w in by_stem or w in other]


def mentioned_otherwise(words: list[str], text: str, language: str = "en") -> list[str]:
    """The words of ``words`` that ``text`` mentions in a form other than their Snowball stem: an
    Arabic word with other proclitics, a word of a script written without spaces inside a longer
    word or in the other Chinese script, a compound part, an English comparative, superlative or
    adjective in -y and its base ("quieter" and "quiet", "noisy" and "noise": :func:`degree_bases`)
    (module docstring); in their order."""
    from engine.offline_terms import _stemmer, _tokens

    tokens = [t.lower() for t in _tokens(text)]
    arabic: set[str] | None = None
    inflected: set[str] | None = None
    found = []
    for word in words:
        if has_segmented_script(word):
            written = _simplified(text.lower())
            if any(_simplified(form) in written for form in _korean_forms(word.lower())):
                found.append(word)
        elif script(word) == "ARABIC":
            stem = _stemmer("ar")
            if arabic is None:
                arabic = {f for t in tokens if script(t) == "ARABIC" for f in _arabic_forms(t, stem)}
            if _arabic_forms(word, stem) & arabic:
                found.append(word)
        elif language in CLOSED_COMPOUNDS and any(_compound_part(word.lower(), t, language) for t in tokens):
            found.append(word)
        elif language in INFLECTIONS:
            if inflected is None:
                inflected = _base_stems([t for t in tokens if t.isalpha()], language)
                if language == "en":
                    inflected |= _degree_stems(tuple(t for t in tokens if t.isalpha()))
            own = _base_stems([word.lower()], language)
            if language == "en":
                own |= _degree_stems((word.lower(),))
            if own & inflected:
                found.append(word)
    return found


#: How often (Zipf, wordfreq's English list) English must write a word's other degree for the word to
#: be read as a comparative, a superlative or an adjective in -y (:func:`degree_bases`): "noisiest",
#: "sturdiest" are written; "showest" (of "shower") and "readiest" hardly ever are. A superlative's
#: comparative must be written more often (:data:`MIN_COMPARATIVE_ZIPF`): "moder" and "inver" are
#: no comparatives of "modest" and "invest".
MIN_DEGREE_ZIPF = 1.5
MIN_COMPARATIVE_ZIPF = 2.0
#: English comparatives and superlatives of no base of their own letters, and the base they stand for.
_IRREGULAR_DEGREES = {"better": ("good",), "best": ("good",), "worse": ("bad",), "worst": ("bad",)}


def _written(word: str, least: float = MIN_DEGREE_ZIPF) -> bool:
    """True when English writes ``word`` at least ``least`` times on the Zipf scale (wordfreq)."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= least


@functools.lru_cache(maxsize=4096)
def degree_bases(word: str) -> tuple[str, ...]:
    """The base forms of ``word`` (English, lower-cased) when it is an adjective's comparative or
    superlative ("-er", "-est"; "-ier", "-iest" of "-y"; a doubled consonant: "bigger"; "-r", "-st"
    after "e": "nicer") or an adjective in -y made of a noun or verb ("noisy": "noise", "windy":
    "wind", "sunny": "sun"), each of :data:`MIN_BASE` letters or more, a comparative's -y base's own
    bases too ("noisier": "noisy", "noise"); () for any other word. A word is such a form only when
    English writes its other degree (:func:`_written`): the superlative of a comparative ("quietest"
    of "quieter"; "waterest", "boilest" are none), the comparative of a superlative, the superlative
    of an adjective in -y ("noisiest"). Candidates that are no words ("quiete") are harmless: the
    text must write the same one. "better", "best", "worse" and "worst" give their base
    (:data:`_IRREGULAR_DEGREES`)."""
    if word in _IRREGULAR_DEGREES:
        return _IRREGULAR_DEGREES[word]
    if not word.isalpha() or not word.isascii():
        return ()
    stem = ""
    if word.endswith("er") and _written(f"{word[:-2]}est"):
        stem = word[:-2]
    elif word.endswith("est") and _written(f"{word[:-3]}er", MIN_COMPARATIVE_ZIPF):
        stem = word[:-3]
    if stem:
        found = [stem, f"{stem}e"]
        if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in _VOWEL + "ls":
            found.append(stem[:-1])  # "bigg" -> "big"; "small", "less" double theirs in the base too
        if stem.endswith("i"):
            found.append(f"{stem[:-1]}y")  # "noisi" -> "noisy", whose own bases follow
            found += _y_bases(f"{stem[:-1]}y")
        return tuple(dict.fromkeys(b for b in found if len(b) >= MIN_BASE))
    return _y_bases(word)


def _y_bases(word: str) -> tuple[str, ...]:
    """The noun or verb an English adjective in -y (``word``) is made of, when English writes its
    superlative ("noisiest"): "noisy" -> "nois", "noise"; "sunny" -> "sunn", "sun"; () otherwise."""
    if not word.endswith("y") or word[-2:-1] in tuple(_VOWEL) or not _written(f"{word[:-1]}iest"):
        return ()
    stem = word[:-1]
    found = [stem, f"{stem}e"]
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in _VOWEL + "ls":
        found.append(stem[:-1])
    return tuple(dict.fromkeys(b for b in found if len(b) >= MIN_BASE))


def comparative(word: str) -> bool:
    """True when ``word`` (English, as written) is an adjective's comparative ("cheaper", "quieter",
    "bigger", "noisier": :func:`degree_bases`; "better", "worse"), not a noun in -er ("water",
    "boiler")."""
    low = word.lower()
    return low in ("better", "worse") or low.endswith("er") and bool(degree_bases(low))


@functools.lru_cache(maxsize=1024)
def _degree_stems(words: tuple[str, ...]) -> set[str]:
    """The Snowball stems of ``words`` (English, lower-cased) and of their bases (:func:`degree_bases`),
    for the words that have one."""
    from engine.offline_terms import _stemmed

    forms = [f for w in words if degree_bases(w) for f in (w, *degree_bases(w))]
    return set(_stemmed(sorted(set(forms)), "en")) if forms else set()


def _base_stems(words: list[str], language: str) -> set[str]:
    """The Snowball stems of ``words`` (lower-cased) and of each one's base forms by ``language``'s rules
    of inflection (:data:`INFLECTIONS`, :data:`SYNCOPE`), none shorter than :data:`MIN_BASE` letters."""
    from engine.offline_terms import _stemmed

    forms = set(words)
    for word in words:
        for ending, base in INFLECTIONS[language]:
            if word.endswith(ending) and len(word) - len(ending) + len(base) >= MIN_BASE:
                bare = word[: len(word) - len(ending)] + base
                forms.add(bare)
                if language in SYNCOPE and re.search(rf"[^{_VOWEL}][lnr]$", bare) and len(bare) > MIN_BASE:
                    forms.add(f"{bare[:-1]}e{bare[-1]}")
    return set(_stemmed(sorted(forms), language))


def _korean_forms(word: str) -> list[str]:
    """``word`` and, for a Korean word ending in a particle (:data:`KOREAN_PARTICLES`) with two syllables
    or more before it, the word without it ("히트펌프의" -> "히트펌프"); a word of another script alone."""
    if script(word) != "HANGUL":
        return [word]
    particle = next((p for p in KOREAN_PARTICLES if word.endswith(p) and len(word) - len(p) >= 2), "")
    return [word, word[: len(word) - len(particle)]] if particle else [word]


def _simplified(text: str) -> str:
    """``text`` with its Traditional Chinese characters in Simplified ones (OpenCC ``t2s``)."""
    from engine.chinese import _convert

    return _convert("t2s", text)


def _arabic_forms(word: str, stem) -> set[str]:
    """The Snowball stems of ``word`` as written and with its proclitics taken off (:data:`_ARABIC_CLITICS`):
    all of them, or the conjunction and preposition before the article; 3 letters are left after
    the article, 4 after a conjunction or preposition alone ("بارد" is not ب + "ارد"). Each is also
    stemmed with the article before it: Snowball's Arabic stemmer takes a noun's suffixes off more
    fully after it ("مضخات" -> "مضخا", "المضخات" -> "مضخ")."""
    m = _ARABIC_CLITICS.match(word)
    bare = {word}
    if m.group("art"):
        bare |= {word[m.start("art"):], word[m.end("art"):]}
    elif m.end() and len(word) - m.end() >= 4:
        bare.add(word[m.end():])
    bare = {b for b in bare if len(b) >= 3}
    return set(stem.stemWords([*bare, *("ال" + b for b in bare if not b.startswith("ال"))]))


#: How often (Zipf, wordfreq's list of the language) a language must write each part of a closed
#: compound for :func:`compound_parts` to read the word as made of them: "Gas" (4.5) and "Heizung"
#: (4.0) of "Gasheizung", "Wärme" (4.3) and "Pumpe" (3.6) of "Wärmepumpe"; "leich" (2.7) of "Vergleich" is none.
#: A part of :data:`MIN_PART` letters needs :data:`MIN_SHORT_PART_ZIPF` ("Gas" 4.5, "Zug" 4.9; not
#: "kos" 3.1 of "Kosten", "unt" of "Unternehmen", "hei" of "Heizungen"), and a compound's last part, its
#: head, one letter more ("ten" of "Kosten" is none).
MIN_PART_ZIPF = 3.0
MIN_SHORT_PART_ZIPF = 4.0
#: wordfreq's name of a language of :data:`CLOSED_COMPOUNDS` where it differs (Norwegian Bokmål).
_WORDFREQ_NAMES = {"no": "nb"}


def _part_zipf(part: str, code: str, language: str, head: bool = False) -> float:
    """How often (Zipf) ``language`` writes ``part`` of a compound, or a head in the base form of its
    regular inflection (:data:`INFLECTIONS`: "heizungen" as "heizung"); 0.0 for a part too short
    (:data:`MIN_PART`; a head one letter more) or a short one written less than :data:`MIN_SHORT_PART_ZIPF`."""
    from wordfreq import zipf_frequency

    if len(part) < MIN_PART + head:
        return 0.0
    forms = [part] + [part[: len(part) - len(e)] + b for e, b in INFLECTIONS.get(language, ()) if head
                      and part.endswith(e) and len(part) - len(e) + len(b) >= MIN_PART + 1]
    known = max(zipf_frequency(f, code) for f in forms)
    return 0.0 if len(part) == MIN_PART and known < MIN_SHORT_PART_ZIPF else known


@functools.lru_cache(maxsize=4096)
def compound_parts(word: str, language: str) -> tuple[str, ...]:
    """The words a closed compound ``word`` of ``language`` (:data:`CLOSED_COMPOUNDS`) is made of,
    lower-cased, the linking element (:data:`LINKS`) left off each modifier: "Gasheizung" -> ("gas",
    "heizung"), "Betriebskosten" -> ("betrieb", "kosten"), "Jahresarbeitszahl" -> ("jahr", "arbeit",
    "zahl"). Each part is written at least :data:`MIN_PART_ZIPF` (wordfreq; a head in any regular
    inflection: "Gasheizungen") and is no function word or verb prefix ("ein" of "Einbau", "ver" of
    "Verkauf"; :func:`_part_zipf` for short parts); of several cuts the one whose rarest part is written most
    often wins. A word that is such a prefix or particle and a word is no compound ("Nachteile": "nach",
    "Teile", never "Nacht" and "Eile"; "Verbraucher"). ``(word,)`` lower-cased for any other word, and in any other language: English writes
    "heat pump" as two words, German "Wärmepumpe" as one, and the offline selection counts what a
    sentence names of a question in such words (:func:`engine.offline_select.choose`). A cut is a
    guess from word frequencies, no dictionary's."""
    low = word.lower()
    if language not in CLOSED_COMPOUNDS or not low.isalpha() or len(low) < 2 * MIN_PART + 1:
        return (low,)
    from wordfreq import available_languages

    code = _WORDFREQ_NAMES.get(language, language)
    if code not in available_languages():
        return (low,)
    best: tuple[float, tuple[str, ...]] = (0.0, (low,))
    for cut in range(2, len(low) - MIN_PART):
        head = low[cut:]
        known = _part_zipf(head, code, language, head=True)
        if _not_a_part(low[:cut]) and known >= MIN_PART_ZIPF:
            return (low,)  # a prefix or particle and a word: "Nach|teile", "Ver|braucher", "Ein|bau"
        if cut < MIN_PART:
            continue
        rest = (head,) if known >= MIN_PART_ZIPF else compound_parts(head, language)
        if len(rest) == 1 and known < MIN_PART_ZIPF:
            continue
        rest_zipf = known if len(rest) == 1 else min(
            _part_zipf(p, code, language, head=i == len(rest) - 1) for i, p in enumerate(rest))
        for link in LINKS:
            modifier = low[: cut - len(link)]
            if not low[:cut].endswith(link) or _not_a_part(modifier):
                continue
            score = min(_part_zipf(modifier, code, language), rest_zipf)
            if score >= MIN_PART_ZIPF and score > best[0]:
                best = (score, (modifier, *rest))
    return best[1]


def _not_a_part(word: str) -> bool:
    """True when ``word`` (lower-cased) cannot be a compound's modifier: a function word ("ein", "auf",
    "über") or a verb prefix (:data:`_PREFIXES`)."""
    from engine.language import is_function_word

    return word in _PREFIXES or is_function_word(word)


def _compound_part(word: str, token: str, language: str) -> bool:
    """True when ``token`` (a word of the text, lower-cased) is a compound holding ``word``
    (lower-cased): as its head, in any inflection (the rest of ``token`` from a part boundary has
    ``word``'s stem), or as written, then a linking element and a further part."""
    from engine.offline_terms import _stemmed

    if not token.isalpha() or len(token) < len(word) + MIN_PART:
        return False
    stem = _stemmed([word], language)[0]
    if len(stem) < MIN_COMPOUND_STEM:
        return False
    for start in range(len(token) - len(stem) + 1):
        if not token.startswith(word[:2], start) or (start and (start < MIN_PART or token[:start] in _PREFIXES)):
            continue
        if start and _stemmed([token[start:]], language)[0] == stem:  # "Erd|wärmepumpen", "Heiz|leistung"
            return True
        rest = token[start + len(word):] if token.startswith(word, start) else ""
        if any(rest.startswith(link) and len(rest) - len(link) >= MIN_PART and _ONSET.match(rest, len(link))
               for link in LINKS):  # "Pumpe|n|haus"
            return True
    return False


#: Words before an English noun ("a set", "the lock", "each queue", "sets of sets"): a singular after
#: one of them is the noun, whatever follows it ("the set to use").
DETERMINERS = frozenset(
    """a an the this that these those each every any no some its their his her our your my one another either
    neither which what whose of per such same own new empty inner outer""".split())
#: Words before an English verb: auxiliaries and modals, "to", "not", and the subject pronouns ("is set",
#: "has been set", "to set", "should lock", "you set"); a plural after a pronoun is a verb too ("it sets").
VERB_MARKERS = frozenset(
    """is are was were be been being am has have had having do does did will would shall should can could may
    might must to not never also just then i you we they he she it""".split())
#: Words after an English verb that are no noun's ("set to None", "set by the caller", "set up").
_VERB_AFTER = frozenset("to by up off aside".split())
_PRONOUNS = frozenset("it he she which who that this".split())


def plural_noun(word: str) -> tuple[str, ...]:
    """The singular forms of ``word`` when it is written as an English plural noun ("sets" -> ("set",),
    "queues" -> ("queue",), "boxes" -> ("boxe", "box"), "policies" -> ("policie", "polici", "policy")) whose
    Snowball stem is the plural's, or, for a plural in "-ses" of five letters or more, its singular in "-s"
    when English writes it more often than the one in "-se" (wordfreq: "aliases" -> ("aliase", "alias"),
    "buses" -> ("buse", "bus"); "cases" -> ("case",)); () for any other word ("class",
    "status", "analysis", "news")."""
    from engine.offline_terms import _stemmed

    low = word.lower()
    if not low.isalpha() or len(low) < 4 or not low.endswith("s") or low.endswith(("ss", "us", "is")):
        return ()
    forms = [low[:-1]] + ([low[:-2]] if low.endswith("es") else []) + ([low[:-3] + "y"] if low.endswith("ies") else [])
    stem = _stemmed([low], "en")[0]
    # "-es" after an "-s" ("aliases", "lenses", "buses"): Snowball may stem the singular apart ("alia", "bus")
    sibilant = low[:-2] if low.endswith("ses") and len(low) > 4 and not low.endswith("sses") else ""
    if sibilant:
        from wordfreq import zipf_frequency

        # English writes the singular in "-s" more often than the one in "-se" ("alias", not "cas" of "cases")
        sibilant = sibilant if zipf_frequency(sibilant, "en") > zipf_frequency(low[:-1], "en") else ""
    return tuple(f for f, s in zip(forms, _stemmed(forms, "en"), strict=True) if s == stem or f == sibilant)


#: How often on the Zipf scale (wordfreq) English must write a singular of a word in "-s" before the
#: word is read as its plural (:func:`known_plural`), and how much more often the word itself may be
#: written: "pumps" (singular "pump", 4.3) is a plural, "postgres" ("postgre", 0) and "jenkins"
#: ("jenkin", 2.3 where "jenkins" is 3.8) are names.
MIN_SINGULAR_ZIPF = 2.0
MAX_PLURAL_LEAD = 1.0
#: Below this Zipf value English hardly writes a word, and its "-s" is read as a plural as written.
MIN_NAME_ZIPF = 1.5


@functools.lru_cache(maxsize=4096)
def known_plural(word: str) -> bool:
    """True when ``word`` (English, lower-cased or not) in "-s" reads as a plural noun: English writes a
    singular of it (:func:`plural_noun`) at least :data:`MIN_SINGULAR_ZIPF` and not more than
    :data:`MAX_PLURAL_LEAD` below the word itself, or hardly writes the word at all (a compound of its
    own: "kubelets"). "pumps", "boilers", "bananas", "capacitors" are plurals; "postgres", "emacs",
    "jenkins", "athens", "physics", "gas" are not: a name typed in small letters is no plural. Nor is a
    word English writes more often than any singular of it and whose own plural in "-es" it writes at
    least :data:`MIN_SINGULAR_ZIPF`: "alias" ("aliases"; "alia" is rarer), "lens" ("lenses"; "len");
    "laps" ("lap" is commoner) and "tens" stay plurals."""
    from wordfreq import zipf_frequency

    low = word.lower()
    if not low.endswith("s") or low.endswith(("ss", "us", "is")):
        return False
    itself = zipf_frequency(low, "en")
    if itself < MIN_NAME_ZIPF:
        return len(low) > 3  # an unknown word in "-s": the ending tells
    singular = max((zipf_frequency(f, "en") for f in plural_noun(low)), default=0.0)
    if itself > singular and zipf_frequency(low + "es", "en") >= MIN_SINGULAR_ZIPF:
        return False  # a singular in "-s" with its own plural: "alias" ("aliases"), not "alia"'s
    return any(
        MIN_SINGULAR_ZIPF <= (z := zipf_frequency(f, "en")) and itself - z <= MAX_PLURAL_LEAD
        for f in plural_noun(low)
    )


def as_noun(word: str, singulars: tuple[str, ...], text: str) -> bool:
    """True when ``text`` (English) writes ``word``, a plural noun of a question whose singular forms are
    ``singulars`` (:func:`plural_noun`), as a noun: the plural ("Sets are disjoint"), not after a pronoun
    ("it sets"); the singular after a determiner or "of" (:data:`DETERMINERS`: "the set", "a list of set
    objects"), or not after a verb's marker (:data:`VERB_MARKERS`: "is set", "to set", "should lock") nor
    before a verb's particle or an object's determiner ("set to None", "lock the file"); or in an identifier
    or a compound ("TaskGroup", "set-like"). Another form of the stem ("setting", "locked") is no noun.
    The rule reads the words around a form, as a part-of-speech tagger's simplest rules do: no tagger."""
    from engine.offline_terms import _parts, _stemmed, _tokens

    low, stem = word.lower(), _stemmed([word.lower()], "en")[0]
    tokens = _tokens(text)
    lows = [t.lower() for t in tokens]
    for i, (token, t) in enumerate(zip(tokens, lows, strict=True)):
        before = lows[i - 1] if i else ""
        after = lows[i + 1] if i + 1 < len(lows) else ""
        if t == low and before not in _PRONOUNS:
            return True
        if t in singulars and (before in DETERMINERS or before not in VERB_MARKERS
                               and after not in _VERB_AFTER and after not in DETERMINERS - {"of"}):
            return True
        parts = _parts(token)
        if len(parts) > 1 and t not in singulars and stem in _stemmed(parts, "en"):
            return True
    return False
