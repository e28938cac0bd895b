"""Which installed font has each character (fontconfig), and placeholders for what none has."""

from __future__ import annotations

import bisect
import functools
import re
import shutil
import subprocess
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

import regex

MAIN_FONTS = ("Noto Serif", "DejaVu Serif", "Latin Modern Roman")
SANS_FONTS = ("Noto Sans", "DejaVu Sans", "Latin Modern Sans")
MONO_FONTS = ("DejaVu Sans Mono", "Noto Sans Mono", "Latin Modern Mono")
# Tried first, in this order, for a glyph the main font lacks; then any other installed font.
FALLBACK_FONTS = ("DejaVu Serif", "DejaVu Sans", "Noto Sans Math", "Noto Sans Symbols", "Noto Sans Symbols2")
# Fonts made for one script, tried first for its letters (Debian: fonts-noto-core).
SCRIPT_FONTS = (
    (((0x0590, 0x05FF), (0xFB1D, 0xFB4F)), ("Noto Serif Hebrew", "Noto Sans Hebrew")),
    (((0x0600, 0x06FF), (0x0750, 0x077F), (0x08A0, 0x08FF), (0xFB50, 0xFDFF), (0xFE70, 0xFEFF)),
     ("Noto Naskh Arabic", "Noto Sans Arabic")),
    (((0x0900, 0x097F), (0xA8E0, 0xA8FF)), ("Noto Serif Devanagari", "Noto Sans Devanagari")),
    (((0x0E00, 0x0E7F),), ("Noto Serif Thai", "Noto Sans Thai")),
)
# fontspec's Script= for fonts of scripts whose letters are shaped (joined, reordered, stacked):
# without it XeTeX sets each letter in its isolated form.
SHAPED_SCRIPTS = ("Arabic", "Hebrew", "Devanagari", "Thai", "Bengali", "Tamil", "Telugu", "Kannada",
                  "Malayalam", "Gujarati", "Gurmukhi", "Oriya", "Sinhala", "Khmer", "Lao", "Myanmar",
                  "Tibetan", "Syriac", "Thaana", "Nko")
# Scripts whose shaped glyphs are drawn in another order than their characters (a vowel sign before
# its consonant, a reph over the next letter) or in alternate forms no character names (Burmese):
# a PDF's text, read glyph by glyph, would scramble their words. Each of their words carries its
# characters as ActualText (the template's ``\\drbactualtext``). Not Thai or Lao, whose characters
# are stored in the order they are drawn, nor the right-to-left scripts, which TeX--XeT reverses.
ACTUAL_TEXT_SCRIPTS = ("Devanagari", "Bengali", "Gurmukhi", "Gujarati", "Oriya", "Tamil", "Telugu", "Kannada",
                       "Malayalam", "Sinhala", "Myanmar", "Khmer", "Tibetan")
CJK_FONTS = ("Noto Serif CJK {}", "Noto Sans CJK {}", "Noto Sans Mono CJK {}")

# Ranges set in the CJK font first (xeCJK's CJK and HangulJamo classes).
_CJK_RANGES = (
    (0x02EA, 0x02EB), (0x1100, 0x11FF), (0x2E80, 0x2FDF), (0x2FF0, 0x303F), (0x3040, 0x31FF),
    (0x3200, 0x4DBF), (0x4DC0, 0x9FFF), (0xA000, 0xA4CF), (0xA960, 0xA97F), (0xAC00, 0xD7FF),
    (0xF900, 0xFAFF), (0xFE10, 0xFE1F), (0xFE30, 0xFE4F), (0xFF00, 0xFFEF), (0x16FE0, 0x18D7F),
    (0x1AFF0, 0x1B2FF), (0x1F200, 0x1F2FF), (0x20000, 0x3134F),
)
_EMOJI_RANGES = ((0x2300, 0x23FF), (0x2600, 0x27BF), (0x2B00, 0x2BFF), (0x1F000, 0x1FAFF))
_SAFE_FAMILY = re.compile(r"[A-Za-z0-9][A-Za-z0-9 .+-]*")
# Characters of no one script (digits, punctuation, combining marks shared by scripts: Unicode's Script
# property Common or Inherited): they take the script of the text around them (UAX #24).
_SHARED = regex.compile(r"[\p{Script=Common}\p{Script=Inherited}\p{Script=Unknown}]")
_ACTUAL_TEXT = regex.compile("[" + "".join(r"\p{Script=%s}" % s for s in ACTUAL_TEXT_SCRIPTS) + "]")  # noqa: UP031
_OWN_FONT = re.compile(r"Noto (Serif|Sans) ([A-Za-z][A-Za-z ]*)")


# --- coverage ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Face:
    """One installed font family's regular face: the code points it has glyphs for."""

    family: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    def covers(self, cp: int) -> bool:
        i = bisect.bisect_right(self.starts, cp) - 1
        return i >= 0 and cp <= self.ends[i]


@functools.cache
def installed_faces() -> dict[str, _Face]:
    """Regular faces of the fonts fontconfig knows, by family name; empty without ``fc-list``."""
    exe = shutil.which("fc-list")
    if exe is None:
        return {}
    try:
        out = subprocess.run([exe, "--format", "%{family[0]}\t%{style[0]}\t%{charset}\n"],
                             capture_output=True, text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    faces: dict[str, _Face] = {}
    for line in sorted(out.splitlines()):
        family, _, rest = line.partition("\t")
        style, _, charset = rest.partition("\t")
        if style not in ("Regular", "Book", "Roman") or not _SAFE_FAMILY.fullmatch(family):
            continue
        starts, ends = [], []
        for part in charset.split():
            lo, _, hi = part.partition("-")
            starts.append(int(lo, 16))
            ends.append(int(hi or lo, 16))
        if family not in faces and starts:
            faces[family] = _Face(family, tuple(starts), tuple(ends))
    return faces


def _in(ranges: Iterable[tuple[int, int]], cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in ranges)


def _first_installed(names: Iterable[str], faces: dict[str, _Face]) -> str:
    names = list(names)
    return next((n for n in names if n in faces), names[0])


class FontPlan:
    """Which font typesets each character; records the fallback fonts one document uses.

    CJK text is one more fallback (Noto Serif/Sans Mono CJK in the document's regional variant),
    with XeTeX's ICU line breaking, so no CJK package is needed.
    """

    def __init__(self, language: str, texts: Iterable[str], faces: dict[str, _Face]) -> None:
        """``faces``: the installed fonts, as `installed_faces` lists them."""
        self.faces = faces
        self.main = _first_installed(MAIN_FONTS, self.faces)
        self.sans = _first_installed(SANS_FONTS, self.faces)
        self.mono = _first_installed(MONO_FONTS, self.faces)
        region = _cjk_region(language, texts)
        self.cjk = tuple(name.format(region) for name in CJK_FONTS)
        others = sorted((f for f in self.faces if f not in FALLBACK_FONTS), key=_fallback_rank)
        self.order = [f for f in FALLBACK_FONTS if f in self.faces] + others
        self.scripts = _script_fonts(self.faces)
        self._own: dict[str, tuple[str, ...]] = {}
        self.used: dict[str, str] = {}  # fallback family -> LaTeX command name
        #: What no installed font has, as set so far: each cluster (a character with its marks, or an
        #: emoji sequence) that became a placeholder, in the order first met, with its placeholder.
        self.placeholders: dict[str, str] = {}
        self._cache: dict[tuple[str, str], str | None] = {}

    def font_for(self, ch: str, base: str) -> str | None:
        """``""`` when ``base`` (main or mono font) has ``ch``, else a fallback family, or None."""
        key = (ch, base)
        if key not in self._cache:
            self._cache[key] = self._lookup(ord(ch), base)
        return self._cache[key]

    def _lookup(self, cp: int, base: str) -> str | None:
        if not self.faces or cp < 0x80:
            return ""
        face = self.faces.get(base)
        if face is None or face.covers(cp):
            return ""
        order = ([self.main] if base != self.main else []) + self.order
        if _in(_CJK_RANGES, cp):
            order.insert(0, self.cjk[2] if base == self.mono else self.cjk[0])
        order[:0] = self.own_fonts(chr(cp))
        for ranges, fonts in SCRIPT_FONTS:
            if _in(ranges, cp):
                order[:0] = fonts
        return next((f for f in order if f in self.faces and self.faces[f].covers(cp)), None)

    def own_fonts(self, ch: str) -> tuple[str, ...]:
        """The installed fonts made for the script of ``ch`` (Unicode's Script property: ``Noto Serif
        Tamil``, ``Noto Sans Tamil`` for ``ப`` or ``௨``), serif first; none for a character of no one script."""
        if ch not in self._own:
            self._own[ch] = next((fonts for pattern, fonts in self.scripts if pattern.match(ch)), ())
        return self._own[ch]

    def cluster_font(self, cluster: str, base: str, context: str = "") -> str | None:
        """The one font for every visible character of ``cluster`` (a letter with its vowel signs and
        marks): ``""`` for ``base``, else the first character's own font (:meth:`font_for`), else the
        first other font that has them all; ``context``: a character of the text before, whose script's
        fonts come first for a cluster of no one script (a danda after Devanagari). None when no font has
        them all."""
        visible = [c for c in cluster if not _says_nothing(c) and not _is_tag(c)]
        if not visible or not self.faces:
            return None
        shared = context and _SHARED.match(visible[0])
        own = self.font_for(visible[0], base)
        candidates = ["", *(self.own_fonts(context) if shared else ()), *([own] if own else []),
                      *self.own_fonts(visible[0]), *([self.main] if base != self.main else []), *self.order]
        return next((f for f in candidates if all(self.has(f, c, base) for c in visible)), None)

    def has(self, family: str, ch: str, base: str) -> bool:
        """Whether ``family`` (``""``: ``base``, the main or mono font) has a glyph for ``ch``."""
        face = self.faces.get(family or base)
        return face is not None and face.covers(ord(ch))

    def command(self, family: str) -> str:
        """The LaTeX command (without backslash) that typesets its argument in ``family``."""
        if family not in self.used:
            self.used[family] = "drbfallback" + _letters(len(self.used))
        return self.used[family]

    @property
    def linebreak_locale(self) -> str | None:
        """The ICU line-breaking locale when CJK text is set, so lines may break between glyphs."""
        if not any(f in self.used for f in self.cjk):
            return None
        return {"JP": "ja", "KR": "ko"}.get(self.cjk[0].rsplit(" ", 1)[-1], "zh")


def _script_fonts(faces: dict[str, _Face]) -> list[tuple[regex.Pattern, tuple[str, ...]]]:
    """``(Script property pattern, fonts)`` for each script an installed ``Noto Serif X`` or ``Noto Sans X``
    is made for (X a Unicode script name: ``Tamil``, ``Myanmar``, ``NKo``), serif before sans."""
    by_script: dict[str, list[str]] = {}
    for family in sorted(faces, key=lambda f: (not f.startswith("Noto Serif "), f)):
        m = _OWN_FONT.fullmatch(family)
        if m:
            by_script.setdefault(m.group(2), []).append(family)
    out = []
    for name, fonts in by_script.items():
        try:
            pattern = regex.compile(r"\p{Script=%s}" % name.replace(" ", "_"))  # noqa: UP031
        except regex.error:  # Math, Symbols, Mono, CJK SC, Tamil Supplement: not a script
            continue
        out.append((pattern, tuple(fonts)))
    return out


def script_of(family: str) -> str | None:
    """fontspec's ``Script=`` value for a font made for one shaped script (``Noto Naskh Arabic`` → ``Arabic``)."""
    words = family.split()
    return next((s for s in SHAPED_SCRIPTS if s in words or (s == "Arabic" and "Urdu" in words)), None)


def needs_actual_text(text: str) -> bool:
    """Whether ``text`` holds a letter of a script (:data:`ACTUAL_TEXT_SCRIPTS`) whose words the PDF must
    carry as ActualText. Such a letter is left to right: a run holding one is never inside right-to-left text."""
    return bool(_ACTUAL_TEXT.search(text))


def _fallback_rank(family: str) -> tuple:
    plain_noto = family.startswith(("Noto Sans ", "Noto Serif ")) and not re.search("UI|Display", family)
    return ("CJK" in family, "Math" in family, not plain_noto, not family.startswith("Noto"), family)


def _letters(n: int) -> str:
    out = ""
    while True:
        out = chr(ord("A") + n % 26) + out
        n = n // 26 - 1
        if n < 0:
            return out


def _cjk_region(language: str, texts: Iterable[str]) -> str:
    lang = language.lower().replace("_", "-")
    if lang.startswith("ja"):
        return "JP"
    if lang.startswith("ko"):
        return "KR"
    if lang.startswith("zh"):
        return "HK" if lang.endswith("-hk") else "TC" if ("hant" in lang or lang.endswith("-tw")) else "SC"
    joined = "".join(texts)
    if re.search("[\u3040-\u30ff]", joined):
        return "JP"
    if re.search("[\uac00-\ud7af]", joined) and not re.search("[\u4e00-\u9fff]", joined):
        return "KR"
    return "SC"


# --- characters no font has --------------------------------------------------------------------


# CLDR's short names of the skin tone modifiers (Unicode emoji: "Emoji Modifiers", UTS #51 §2.4).
_SKIN_TONES = {0x1F3FB: "light skin tone", 0x1F3FC: "medium-light skin tone", 0x1F3FD: "medium skin tone",
               0x1F3FE: "medium-dark skin tone", 0x1F3FF: "dark skin tone"}
KEYCAP, ZWJ = "\u20e3", "\u200d"


def placeholder(chars: str) -> str:
    """A visible stand-in for characters no installed font has, e.g. ``[emoji: rocket]``.

    What a modifier or tag says is kept (UTS #51): ``[emoji: thumbs up sign + medium skin tone]``,
    ``[keycap: 1]``, ``[flag: DE]`` for a pair of regional indicators and ``[flag: GB-SCT]`` for a
    tag sequence (its ISO 3166-2 code); joiners and variation selectors are left out. A character
    this Python's Unicode database does not name is named by its code point (``[emoji: U+1FAE8]``),
    and a character with combining marks names them too (``[U+0061: latin small letter a +
    combining enclosing circle]``).
    """
    tags = "".join(chr(ord(c) - 0xE0000) for c in chars if 0xE0020 <= ord(c) <= 0xE007E).upper()
    if tags:
        return f"[flag: {tags[:2]}-{tags[2:]}]" if len(tags) > 2 else f"[flag: {tags}]"
    bases = [c for c in chars if not _is_extender(c) and c != ZWJ]
    if KEYCAP in chars and bases:
        return f"[keycap: {bases[0]}]"
    if len(bases) == 2 and all(0x1F1E6 <= ord(c) <= 0x1F1FF for c in bases):
        return "[flag: " + "".join(chr(ord(c) - 0x1F1E6 + ord("A")) for c in bases) + "]"
    shown = [c for c in chars if c in bases or ord(c) in _SKIN_TONES] or list(chars)
    names = [_SKIN_TONES.get(ord(c)) or unicodedata.name(c, "").lower() or f"U+{ord(c):04X}" for c in shown]
    if all(_in(_EMOJI_RANGES, ord(c)) for c in bases or chars):
        return "[emoji: " + " + ".join(names) + "]"
    first = (bases or chars)[0]
    name = " + ".join(unicodedata.name(c, "").lower() or f"U+{ord(c):04X}" for c in bases[1:] or ())
    name = " + ".join(n for n in (unicodedata.name(first, "").lower(), name) if n)
    return f"[U+{ord(first):04X}{': ' + name if name else ''}]"


#: How many clusters :func:`placeholder_warning` names before it counts the rest.
NAMED_PLACEHOLDERS = 12


def code_points(text: str) -> str:
    """``text``'s code points as Unicode writes them, joined by ``+`` (``U+2A6D6``, ``U+0061+U+20DD``)."""
    return "+".join(f"U+{ord(c):04X}" for c in text)


def placeholder_warning(clusters: Iterable[str]) -> str | None:
    """One line saying which characters no installed font has and that the PDF shows them as
    placeholders, or None when there are none.

    ``clusters``: what became placeholders (:attr:`FontPlan.placeholders`), each named once by its
    code points (:func:`code_points`) in the order given; past :data:`NAMED_PLACEHOLDERS` the rest
    are counted (``… and 3 more``). E.g. ``No installed font has U+2A6D6, U+119A0: the PDF shows
    them as placeholders naming them`` (the PDF's ``[U+2A6D6: cjk unified ideograph-2a6d6]``)."""
    found = list(dict.fromkeys(clusters))
    if not found:
        return None
    named = ", ".join(code_points(c) for c in found[:NAMED_PLACEHOLDERS])
    more = f" and {len(found) - NAMED_PLACEHOLDERS} more" if len(found) > NAMED_PLACEHOLDERS else ""
    them = "it as a placeholder naming it" if len(found) == 1 else "them as placeholders naming them"
    return f"No installed font has {named}{more}: the PDF shows {them}"


def _is_extender(ch: str) -> bool:
    cp = ord(ch)
    return (0xFE00 <= cp <= 0xFE0F or 0x1F3FB <= cp <= 0x1F3FF or cp == 0x20E3
            or 0xE0020 <= cp <= 0xE007F or 0xE0100 <= cp <= 0xE01EF)


def _is_mark(ch: str) -> bool:
    """A combining mark (general category M: Mn, Mc, Me), drawn on the character before it."""
    return unicodedata.category(ch).startswith("M")


def _apart(cluster: str, fonts: list[str | None]) -> bool:
    """Whether a combining mark of ``cluster`` would be set in another font than its base
    (or, with no base, in a fallback font): drawn alone, it lands over the neighbouring characters."""
    return any(_is_mark(c) and not _says_nothing(c) and f != (fonts[0] if i else "")
               for i, (c, f) in enumerate(zip(cluster, fonts, strict=True)))


def _says_nothing(ch: str) -> bool:
    """A joiner or variation selector: it changes how a sequence looks, not what it says."""
    cp = ord(ch)
    return ch == ZWJ or 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF


def _clusters(text: str) -> Iterable[str]:
    """Split into the characters a reader sees: extended grapheme clusters (Unicode UAX #29 by ICU: a
    letter with its vowel signs, viramas and marks, an Indic conjunct, a Hangul syllable's jamo), kept
    together with their emoji modifiers, ZWJ sequences and flag pairs."""
    ends = grapheme_ends(text)
    i, n, start = 0, len(text), 0
    while i < n:
        j = i + 1
        if 0x1F1E6 <= ord(text[i]) <= 0x1F1FF and j < n and 0x1F1E6 <= ord(text[j]) <= 0x1F1FF:
            j += 1
        while j < n and (_is_extender(text[j]) or _is_mark(text[j]) or (text[j] == "\u200d" and j + 1 < n)):
            j += 2 if text[j] == "\u200d" else 1
        if j >= n or j in ends:
            yield text[start:j]
            start = j
        i = j


def grapheme_ends(text: str) -> set[int]:
    """Where the extended grapheme clusters of ``text`` end (Unicode UAX #29 by ICU), as offsets
    into ``text`` (code points). ICU's own offsets (``segments()``) count UTF-16 code units, two for
    a character beyond the BMP (an emoji, a CJK Extension B ideograph): the clusters are read as
    strings and measured here."""
    from icu4py.breakers import CharacterBreaker

    ends, at = set(), 0
    for cluster in CharacterBreaker(text, "root") if text else ():
        at += len(cluster)
        ends.add(at)
    return ends


def _is_tag(ch: str) -> bool:
    """A tag character (U+E0020..U+E007F): the letters and the end of an emoji tag sequence (UTS #51 §2.8)."""
    return 0xE0020 <= ord(ch) <= 0xE007F


def is_sequence(text: str) -> bool:
    """Whether ``text`` holds a part of an emoji or variation sequence that changes how the character
    before it looks: a joiner, a variation selector, a skin tone, a keycap mark, a tag or a regional
    indicator (UTS #51). Such a run is typeset marked as a sequence (the template's ``\\drbsequence``)."""
    return any(c == ZWJ or _is_extender(c) or 0x1F1E6 <= ord(c) <= 0x1F1FF for c in text)


def _sequence_font(cluster: str, plan: FontPlan, base: str) -> str | None:
    """The one font that has every visible part of an emoji sequence: ``""`` for ``base``, else the
    first part's own font (:meth:`FontPlan.font_for`: a CJK ideograph's regional font), else the
    first fallback (in :class:`FontPlan` order) that has them all; None when no font has them all."""
    visible = [c for c in cluster if not _says_nothing(c) and not _is_tag(c)]
    if not visible or not plan.faces:
        return None
    own = plan.font_for(visible[0], base)
    candidates = ["", *([own] if own else []), *([plan.main] if base != plan.main else []), *plan.order]
    return next((f for f in candidates if all(plan.has(f, c, base) for c in visible)), None)


def segments(text: str, plan: FontPlan, base: str) -> list[tuple[str, str]]:
    """Split ``text`` into ``(family, text)`` runs: family ``""`` for the base font.

    An emoji sequence (:func:`is_sequence`: ZWJ, flag, skin tone, keycap, variation or tag
    sequence) is one run, all its code points kept, in the first font that has every visible part;
    else its parts each go in a font that has them, joiners, variation selectors and tags with the
    part before them. The installed fonts have no ligature for a sequence (Symbola draws 👩‍🔬 as
    👩 and 🔬, 🇫🇷 as two letters F R, and shows no tag): the .tex keeps the code points so that the
    PDF's text layer is the sequence (the template's ``\\drbsequence`` has XeTeX write it as the
    run's ActualText). A sequence with a visible part that no font has becomes one placeholder in
    the base font that names every part (:func:`placeholder`), and so does a character whose
    combining mark (U+20DD and the other enclosing marks) no font has together with it: set
    apart, the mark would be drawn over its neighbours. Invisible format characters that no
    font has, outside a sequence, are left out.

    A cluster (:func:`_clusters`: a letter with its vowel signs and marks) is never split across fonts:
    a letter goes in a font made for its script (:meth:`FontPlan.own_fonts`), and a cluster that no
    one font has with each character's own is set whole in the first font that has it all
    (:meth:`FontPlan.cluster_font`). A character of no one script (a digit, a danda) is set in a font
    of the script before it when that font has it.
    """
    out: list[tuple[str, str]] = []
    context = ""  # the last character of one script: the script of characters of none (:data:`_SHARED`)

    def add(family: str, piece: str) -> None:
        if out and out[-1][0] == family:
            out[-1] = (family, out[-1][1] + piece)
        else:
            out.append((family, piece))

    for cluster in _clusters(text):
        whole = _sequence_font(cluster, plan, base) if len(cluster) > 1 and is_sequence(cluster) else None
        if whole is not None:
            add(whole, cluster)
            continue
        parts = _cluster_parts(cluster, plan, base)
        shared = bool(_SHARED.match(cluster[0]))
        if not _is_mark(cluster[0]) and (len({f for f, _ in parts}) > 1 or "".join(p for _, p in parts) not in (
                "", cluster) or (shared and context and parts and parts[0][0])):  # a mark with no base: set apart
            whole = plan.cluster_font(cluster, base, context)  # never split, nor a placeholder if one font has it
            parts = [(whole, cluster)] if whole is not None else parts
        for family, piece in parts:
            add(family, piece)
        context = context if shared else cluster[0]
    return out


def _cluster_parts(cluster: str, plan: FontPlan, base: str) -> list[tuple[str, str]]:
    """``(family, text)`` of each part of a cluster no one font has whole (:func:`segments`)."""
    fonts = [plan.font_for(c, base) for c in cluster]
    fonts = [fonts[0] if i and _is_mark(c) and fonts[0] is not None and plan.has(fonts[0], c, base) else f
             for i, (c, f) in enumerate(zip(cluster, fonts, strict=True))]  # a mark with its base
    parts = [f for c, f in zip(cluster, fonts, strict=True) if not _says_nothing(c) and not _is_tag(c)]
    if any(f is None for f in parts) or not parts or _apart(cluster, fonts):
        if not _apart(cluster, fonts) and all(unicodedata.category(c) == "Cf" or _is_extender(c) for c in cluster):
            return []  # invisible format characters: nothing to show
        return [("", plan.placeholders.setdefault(cluster, placeholder(cluster)))]
    out: list[tuple[str, str]] = []
    family = parts[0]
    for c, f in zip(cluster, fonts, strict=True):
        if _says_nothing(c) or _is_tag(c) or f == family:
            out.append((family, c))  # a joiner, selector or tag stays with the part before it
        else:
            out.append((f, c))
            family = f
    return out
