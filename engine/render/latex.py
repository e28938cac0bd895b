"""Render a ReportDocument to report.tex: Markdown through pandoc's AST and LaTeX writer, one template."""

from __future__ import annotations

import bisect
import functools
import json
import re
import shutil
import subprocess
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlsplit

import pypandoc

from engine.render import ReportDocument

TEMPLATE = Path(__file__).with_name("templates") / "report.tex"
# GitHub-flavoured Markdown without the parts that would let text reach LaTeX unescaped (math) or
# vanish (a YAML block read as metadata). Raw HTML is parsed, then shown literally (see _Sanitizer).
MARKDOWN_FORMAT = "gfm-tex_math_dollars-tex_math_gfm-yaml_metadata_block"
# Unicode quotes and dashes stay Unicode: the fonts are loaded without TeX ligatures, so that
# ``--``, ``,,`` or two backticks in the text print as typed.
WRITER = "latex-smart"

MAIN_FONTS = ("Noto Serif", "DejaVu Serif", "Latin Modern Roman")
SANS_FONTS = ("Noto Sans", "DejaVu Sans", "Latin Modern Sans")
MONO_FONTS = ("DejaVu Sans Mono", "Noto Sans Mono", "Latin Modern Mono")
# Tried first, in this order, for a glyph the main font lacks; then any other installed font.
FALLBACK_FONTS = ("DejaVu Serif", "DejaVu Sans", "Noto Sans Math", "Noto Sans Symbols", "Noto Sans Symbols2")
CJK_FONTS = ("Noto Serif CJK {}", "Noto Sans CJK {}", "Noto Sans Mono CJK {}")
LINK_SCHEMES = ("http", "https", "ftp", "mailto")
MAX_NESTING = 4  # lists and quotes inside each other; LaTeX stops at 4 itemize or enumerate levels
LONG_RUN = 30  # characters without a break opportunity before one is added
BREAK_EVERY = 12

# Ranges set in the CJK font first (xeCJK's CJK and HangulJamo classes).
_CJK_RANGES = (
    (0x02EA, 0x02EB), (0x1100, 0x11FF), (0x2E80, 0x2FDF), (0x2FF0, 0x303F), (0x3040, 0x31FF),
    (0x3200, 0x4DBF), (0x4DC0, 0x9FFF), (0xA000, 0xA4CF), (0xA960, 0xA97F), (0xAC00, 0xD7FF),
    (0xF900, 0xFAFF), (0xFE10, 0xFE1F), (0xFE30, 0xFE4F), (0xFF00, 0xFFEF), (0x16FE0, 0x18D7F),
    (0x1AFF0, 0x1B2FF), (0x1F200, 0x1F2FF), (0x20000, 0x3134F),
)
_EMOJI_RANGES = ((0x2300, 0x23FF), (0x2600, 0x27BF), (0x2B00, 0x2BFF), (0x1F000, 0x1FAFF))
_SAFE_FAMILY = re.compile(r"[A-Za-z0-9][A-Za-z0-9 .+-]*")
_CITATION = re.compile(r"\[(\d{1,4}(?:,\s*\d{1,4})*)\]")
_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)
_LONG_WORD = re.compile(r"[^\s\u2e80-\ufaff]{%d,}" % (LONG_RUN + 1))  # noqa: UP031

# The report's fixed headings and notes per language (the template's own words).
LABELS: dict[str, dict[str, str]] = json.loads(TEMPLATE.with_name("labels.json").read_text(encoding="utf-8"))


# --- fonts -------------------------------------------------------------------------------------


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


class _FontPlan:
    """Which font typesets each character; records the fallback fonts one document uses.

    CJK text is one more fallback (Noto Serif/Sans Mono CJK in the document's regional variant),
    with XeTeX's ICU line breaking, so no CJK package is needed.
    """

    def __init__(self, language: str, texts: Iterable[str]) -> None:
        self.faces = installed_faces()
        self.main = _first_installed(MAIN_FONTS, self.faces)
        self.sans = _first_installed(SANS_FONTS, self.faces)
        self.mono = _first_installed(MONO_FONTS, self.faces)
        region = _cjk_region(language, texts)
        self.cjk = tuple(name.format(region) for name in CJK_FONTS)
        others = sorted((f for f in self.faces if f not in FALLBACK_FONTS), key=_fallback_rank)
        self.order = [f for f in FALLBACK_FONTS if f in self.faces] + others
        self.used: dict[str, str] = {}  # fallback family -> LaTeX command name
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
        return next((f for f in order if f in self.faces and self.faces[f].covers(cp)), None)

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


# --- characters --------------------------------------------------------------------------------


def clean_text(text: str) -> str:
    """NFC-normalize; control characters, lone surrogates and non-characters become U+FFFD."""
    text = "".join("\ufffd" if _is_bad(c) else c for c in text.replace("\r\n", "\n").replace("\r", "\n"))
    return unicodedata.normalize("NFC", text)


def _is_bad(ch: str) -> bool:
    cp = ord(ch)
    if ch in "\n\t":
        return False
    return unicodedata.category(ch) in ("Cc", "Cs") or (cp & 0xFFFE) == 0xFFFE or 0xFDD0 <= cp <= 0xFDEF


def placeholder(chars: str) -> str:
    """A visible stand-in for characters no installed font has, e.g. ``[emoji: rocket]``."""
    bases = [c for c in chars if not _is_extender(c) and c != "\u200d"]
    if len(bases) == 2 and all(0x1F1E6 <= ord(c) <= 0x1F1FF for c in bases):
        return "[flag: " + "".join(chr(ord(c) - 0x1F1E6 + ord("A")) for c in bases) + "]"
    names = [unicodedata.name(c, "").lower() for c in bases or chars]
    if all(_in(_EMOJI_RANGES, ord(c)) for c in bases or chars):
        return "[emoji: " + " + ".join(n or "unknown" for n in names) + "]"
    first = (bases or chars)[0]
    name = unicodedata.name(first, "")
    return f"[U+{ord(first):04X}{': ' + name.lower() if name else ''}]"


def _is_extender(ch: str) -> bool:
    cp = ord(ch)
    return (0xFE00 <= cp <= 0xFE0F or 0x1F3FB <= cp <= 0x1F3FF or cp == 0x20E3
            or 0xE0020 <= cp <= 0xE007F or 0xE0100 <= cp <= 0xE01EF)


def _clusters(text: str) -> Iterable[str]:
    """Split into base characters with their emoji modifiers, ZWJ sequences and flag pairs."""
    i, n = 0, len(text)
    while i < n:
        j = i + 1
        if 0x1F1E6 <= ord(text[i]) <= 0x1F1FF and j < n and 0x1F1E6 <= ord(text[j]) <= 0x1F1FF:
            j += 1
        while j < n and (_is_extender(text[j]) or (text[j] == "\u200d" and j + 1 < n)):
            j += 2 if text[j] == "\u200d" else 1
        yield text[i:j]
        i = j


def segments(text: str, plan: _FontPlan, base: str) -> list[tuple[str, str]]:
    """Split ``text`` into ``(family, text)`` runs: family ``""`` for the base font.

    Characters that no font has become a placeholder in the base font; invisible modifiers
    (variation selectors, skin tones, joiners) that no font has are left out.
    """
    out: list[tuple[str, str]] = []

    def add(family: str, piece: str) -> None:
        if out and out[-1][0] == family:
            out[-1] = (family, out[-1][1] + piece)
        else:
            out.append((family, piece))

    for cluster in _clusters(text):
        fonts = [plan.font_for(c, base) for c in cluster]
        bases = [f for c, f in zip(cluster, fonts, strict=True) if not _is_extender(c) and c != "\u200d"]
        if any(f is None for f in bases) or not bases:
            if all(unicodedata.category(c) == "Cf" or _is_extender(c) for c in cluster):
                continue  # invisible format characters: nothing to show
            add("", placeholder(cluster))
            continue
        family = bases[0]
        for c, f in zip(cluster, fonts, strict=True):
            if f == family or (f is not None and not (_is_extender(c) or c == "\u200d")):
                add(f, c)
                family = f
    return out


# --- pandoc AST --------------------------------------------------------------------------------

Node = dict
Attr = ["", [], []]


def _str(text: str) -> Node:
    return {"t": "Str", "c": text}


def _raw(tex: str) -> Node:
    return {"t": "RawInline", "c": ["latex", tex]}


def plain_inlines(text: str) -> list[Node]:
    """Pandoc inlines for a plain string: words and spaces, a line break for each newline."""
    out: list[Node] = []
    lines = [line for line in clean_text(text).strip().splitlines() if line.strip()]
    for n, line in enumerate(lines):
        if n:
            out.append({"t": "LineBreak"})
        for m, word in enumerate(line.split()):
            out.extend([{"t": "Space"}] if m else [])
            out.append(_str(word))
    return out


@dataclass
class _Sanitizer:
    """Rewrites a parsed fragment so that only text reaches the LaTeX writer.

    Raw HTML and math become literal text, images become links or text, links keep only web
    schemes, headings move to ``min_level``, ``[n]`` citation markers link to their source, and
    lists nested deeper than LaTeX allows are flattened.
    """

    min_level: int
    keep_ids: bool
    citations: set[int] = field(default_factory=set)
    shift: int = 0
    depth: int = 0  # lists and quotes around the node being rewritten
    in_link: bool = False  # a link's text holds no further links

    def blocks(self, blocks: list[Node]) -> list[Node]:
        levels = [b["c"][0] for b in _walk_nodes(blocks) if b.get("t") == "Header"]
        self.shift = self.min_level - min(levels) if levels else 0
        return self._list(blocks)

    def _list(self, items: list) -> list:
        out: list = []
        for item in items:
            if isinstance(item, dict) and "t" in item:
                out.extend(self._node(item))
            elif isinstance(item, list):
                out.append(self._list(item))
            else:
                out.append(item)
        return out

    def _node(self, node: Node) -> list[Node]:
        t, c = node["t"], node.get("c")
        if t == "RawInline":
            return [{"t": "LineBreak"}] if _BR.fullmatch(c[1].strip()) else [_str(c[1])]
        if t == "RawBlock":
            return [{"t": "CodeBlock", "c": [Attr, c[1]]}]
        if t == "Math":
            fence = "$$" if c[0]["t"] == "DisplayMath" else "$"
            return [_str(fence + c[1] + fence)]
        if t == "Image":
            alt = self._link_text(c[1]) or [_str("image")]
            return self._link(Attr, [_str("[image:"), {"t": "Space"}, *alt, _str("]")], c[2][0])
        if t == "Link":
            return self._link(c[0], self._link_text(c[1]), c[2][0])
        if t == "Header":
            attr = c[1] if self.keep_ids else ["", c[1][1], c[1][2]]
            text = [{"t": "Space"} if n["t"] == "LineBreak" else n for n in self._list(c[2])]
            return [{"t": "Header", "c": [max(1, min(6, c[0] + self.shift)), attr, text]}]
        if t in ("Para", "Plain"):
            inlines = self._list(c)
            while inlines and inlines[0]["t"] in ("LineBreak", "Space", "SoftBreak"):
                inlines.pop(0)  # LaTeX has no line to end there
            return [{"t": t, "c": inlines}] if inlines else []
        if t == "Str" and self.citations and "[" in c and not self.in_link:
            return self._cite(c)
        if t in ("BulletList", "OrderedList", "BlockQuote"):
            return self._nested(t, c)
        if t == "Strikeout":
            return [{"t": "Span", "c": [["", ["drb-strike"], []], self._list(c)]}]
        if isinstance(c, list):
            return [{"t": t, "c": self._list(c)}]
        return [node]

    def _nested(self, t: str, c: list) -> list[Node]:
        """Lists and quotes deeper than LaTeX allows become paragraphs with a bullet or number."""
        if self.depth < MAX_NESTING:
            self.depth += 1
            try:
                return [{"t": t, "c": self._list(c)}]
            finally:
                self.depth -= 1
        if t == "BlockQuote":
            return self._list(c)
        items, start = (c, 1) if t == "BulletList" else (c[1], c[0][0])
        out: list[Node] = []
        for k, item in enumerate(items):
            blocks = self._list(item)
            marker = [_str("•" if t == "BulletList" else f"{start + k}."), {"t": "Space"}]
            if blocks and blocks[0]["t"] in ("Plain", "Para"):
                blocks[0] = {"t": "Para", "c": marker + blocks[0]["c"]}
            else:
                blocks.insert(0, {"t": "Para", "c": marker[:1]})
            out.extend(blocks)
        return out

    def _link_text(self, inlines: list) -> list:
        outer, self.in_link = self.in_link, True
        try:
            return self._list(inlines)
        finally:
            self.in_link = outer

    def _link(self, attr: list, content: list[Node], target: str) -> list[Node]:
        """A link to a web URL (percent-encoded) or an anchor; any other target is shown as text."""
        if self.in_link:
            return content
        scheme = urlsplit(target).scheme.lower() if ":" in target else ""
        if target.startswith("#"):
            return [{"t": "Link", "c": [attr, content, [target, ""]]}]
        if scheme in LINK_SCHEMES:
            safe = quote(target, safe="!#$%&'()*+,-./:;=?@[]_~")
            if content == [_str(target)] and safe != target:
                content = [_str(safe)]
            return [{"t": "Link", "c": [attr, content, [safe, ""]]}]
        if content == [_str(target)] or not target:
            return content
        return [*content, {"t": "Space"}, _str(f"({target})")]

    def _cite(self, text: str) -> list[Node]:
        out: list[Node] = []
        pos = 0
        for m in _CITATION.finditer(text):
            numbers = [int(x) for x in m.group(1).split(",")]
            if not all(n in self.citations for n in numbers):
                continue
            out.append(_str(text[pos:m.start()] + "["))
            for k, n in enumerate(numbers):
                out.extend([_str(",")] if k else [])
                out.append({"t": "Link", "c": [Attr, [_str(str(n))], [f"#src-{n}", ""]]})
            out.append(_str("]"))
            pos = m.end()
        out.append(_str(text[pos:]))
        return [n for n in out if n["c"]]


def _walk_nodes(value: object) -> Iterable[Node]:
    if isinstance(value, dict):
        if "t" in value:
            yield value
        yield from _walk_nodes(value.get("c"))
    elif isinstance(value, list):
        for item in value:
            yield from _walk_nodes(item)


class _Typesetter:
    """Turns text nodes into runs of the right font, placeholders and break opportunities.

    Runs in a font other than the main one are wrapped in the fallback command; long words get
    a break opportunity (``\\drbbreak``, ragged if taken) every few characters; struck-out text
    is struck word by word. All text stays in ``Str``/``Code`` nodes, so pandoc still escapes
    every character.
    """

    def __init__(self, plan: _FontPlan) -> None:
        self.plan = plan

    def inlines(self, items: list, strike: bool = False) -> list:
        """Typeset a list of inline (or block) nodes; ``strike`` strikes out every word."""
        out: list = []
        run: list[Node] = []
        for item in items:
            t = item.get("t") if isinstance(item, dict) else None
            if t in ("Str", "Space", "SoftBreak"):
                run.append(item)
                continue
            out.extend(self._text(run, strike))
            run = []
            out.extend(self._node(item, strike))
        out.extend(self._text(run, strike))
        return out

    def _node(self, node: Node, strike: bool) -> list:
        t, c = node.get("t"), node.get("c")
        if t == "Code":
            return self._code(c[1])
        if t == "CodeBlock":
            return [self._code_block(c[1])]
        if t == "Link" and _is_autolink(c) and all(self.plan.font_for(ch, self.plan.main) == "" for ch in c[2][0]):
            return [node]  # written as \url{...}, which breaks long URLs itself
        if t == "Span" and "drb-strike" in c[0][1]:
            return [{"t": "Span", "c": [Attr, self.inlines(c[1], True)]}]
        if t == "BulletList":
            return [{"t": t, "c": [self._task_item(item) for item in c]}]
        if isinstance(c, list):
            return [{"t": t, "c": self._children(c, strike)}]
        return [node]

    def _children(self, value: list, strike: bool) -> list:
        """Lists of nodes are inline or block lists; anything else is a structural tuple."""
        if all(isinstance(v, dict) and "t" in v for v in value):
            return self.inlines(value, strike)
        return [self._children(v, strike) if isinstance(v, list) else
                self._node(v, strike)[0] if isinstance(v, dict) and "t" in v else v for v in value]

    def _task_item(self, blocks: list) -> list:
        """Keep pandoc's task-list boxes (☐ ☒ as the first word), which it draws itself."""
        first = blocks[0] if blocks else None
        if first and first["t"] in ("Plain", "Para") and first["c"][:1] in ([_str("☐")], [_str("☒")]):
            head = {"t": first["t"], "c": first["c"][:1] + self.inlines(first["c"][1:])}
            return [head, *self._children(blocks[1:], False)]
        return self._children(blocks, False)

    def _text(self, run: list[Node], strike: bool) -> list:
        out: list = []
        pending: list[tuple[str, list]] = []  # (family, nodes) groups; spaces join same-font groups
        for node in run:
            if node["t"] != "Str":
                pending.append((" ", [node]))
                continue
            for family, piece in segments(node["c"], self.plan, self.plan.main):
                nodes = self._words(piece, strike) if not family else [_str(piece)]
                if (family and len(pending) >= 2 and pending[-1][0] == " " and pending[-2][0] == family):
                    spaces = pending.pop()[1]
                    pending[-1][1].extend(spaces + nodes)
                elif pending and pending[-1][0] == family and family:
                    pending[-1][1].extend(nodes)
                else:
                    pending.append((family, nodes))
        for family, nodes in pending:
            if family == " " and strike:
                out.extend(_raw("\\drbstrikespace{}") for _ in nodes)
            elif family.strip():
                cmd = self.plan.command(family)
                body = [_raw("\\drbstrike{"), *nodes, _raw("}")] if strike else nodes
                out.extend([_raw(f"\\{cmd}{{"), *body, _raw("}")])
            else:
                out.extend(nodes)
        return out

    def _words(self, text: str, strike: bool) -> list[Node]:
        pieces = _break_long(text)
        out: list[Node] = []
        for k, piece in enumerate(pieces):
            out.extend([_raw("\\drbbreak{}")] if k else [])
            out.extend([_raw("\\drbstrike{"), _str(piece), _raw("}")] if strike else [_str(piece)])
        return out

    def _code(self, text: str) -> list[Node]:
        out: list[Node] = []
        for family, piece in segments(text, self.plan, self.plan.mono):
            if family:
                out.extend([_raw(f"\\{self.plan.command(family)}{{"), _str(piece), _raw("}")])
                continue
            for k, chunk in enumerate(_break_long(piece)):
                out.extend([_raw("\\drbbreak{}")] if k else [])
                out.append({"t": "Code", "c": [Attr, chunk]})
        return out

    def _code_block(self, text: str) -> Node:
        """Verbatim when the mono font has every glyph, else lines of inline code (fonts can switch)."""
        segs = segments(text, self.plan, self.plan.mono)
        if not any(family for family, _ in segs):
            return {"t": "CodeBlock", "c": [Attr, "".join(piece for _, piece in segs)]}
        lines: list[Node] = []
        for k, line in enumerate(text.strip("\n").split("\n")):
            lines.extend([{"t": "LineBreak"}] if k else [])
            lines.extend([_raw("\\mbox{}")] if line[:1].isspace() else [])  # keeps the indent
            lines.extend(self._code(line.rstrip() or " "))
        return {"t": "Para", "c": lines}


def _is_autolink(c: list) -> bool:
    """A link whose text is its URL: pandoc writes it as ``\\url``."""
    return c[1] == [_str(c[2][0])]


def _break_long(text: str) -> list[str]:
    """Split ``text`` so no piece holds more than LONG_RUN characters without a space or CJK glyph."""
    pieces, start = [], 0
    for m in _LONG_WORD.finditer(text):
        word = m.group()
        cuts = list(range(0, len(word), BREAK_EVERY))
        pieces.append(text[start:m.start()] + word[:BREAK_EVERY])
        pieces.extend(word[i:i + BREAK_EVERY] for i in cuts[1:])
        start = m.end()
    if pieces:
        pieces[-1] += text[start:]
        return pieces
    return [text]


# --- the document ------------------------------------------------------------------------------


@functools.cache
def _pandoc_setup() -> tuple[list[int], list[str]]:
    """The pandoc AST version and the writer's no-highlighting option for the bundled pandoc."""
    version = json.loads(pypandoc.convert_text("", "json", format="gfm", verify_format=False))
    pandoc = tuple(int(x) for x in re.findall(r"\d+", pypandoc.get_pandoc_version())[:2])
    flag = "--syntax-highlighting=none" if pandoc >= (3, 8) else "--no-highlight"
    return version["pandoc-api-version"], [flag, "--wrap=none", f"--template={TEMPLATE}"]


def parse_markdown(markdown: str) -> list[Node]:
    """Parse a Markdown fragment into pandoc AST blocks (JSON form); ``[]`` for blank text."""
    text = clean_text(markdown)
    if not text.strip():
        return []
    doc = json.loads(pypandoc.convert_text(text, "json", format=MARKDOWN_FORMAT, sandbox=True,
                                           verify_format=False))
    return doc["blocks"]


def _stringify(inlines: list[Node]) -> str:
    return "".join(n["c"] if n["t"] == "Str" else " " for n in _walk_nodes(inlines)
                   if n["t"] in ("Str", "Space", "SoftBreak"))


def _meta(value: object) -> dict:
    """Pandoc metadata for a Python value: str, bool, dict, list of nodes (inlines or blocks)."""
    if isinstance(value, bool):
        return {"t": "MetaBool", "c": value}
    if isinstance(value, str):
        return {"t": "MetaString", "c": value}
    if isinstance(value, dict):
        return {"t": "MetaMap", "c": {k: _meta(v) for k, v in value.items()}}
    if isinstance(value, tuple):
        return {"t": "MetaList", "c": [_meta(v) for v in value]}
    is_blocks = any(n.get("t") in _BLOCKS for n in value)
    return {"t": "MetaBlocks" if is_blocks else "MetaInlines", "c": value}


_BLOCKS = frozenset({"Para", "Plain", "Header", "BulletList", "OrderedList", "CodeBlock", "BlockQuote",
                     "Table", "Div", "HorizontalRule", "LineBlock", "DefinitionList", "Figure", "RawBlock"})


def labels_for(language: str) -> dict[str, str]:
    """The fixed headings and notes of the report in ``language`` (BCP-47), English if unknown."""
    return LABELS.get(language.lower().split("-")[0].split("_")[0], LABELS["en"])


def render_latex(doc: ReportDocument) -> str:
    """Render ``doc`` to the text of ``report.tex`` (XeLaTeX, UTF-8) through the report template.

    Markdown fields are parsed by pandoc (GitHub-flavoured, no raw LaTeX, no math) and every
    string, plain or Markdown, reaches LaTeX only through pandoc's escaping. Characters the main
    font lacks are set in an installed font that has them (found through fontconfig), and
    anything no font has becomes a visible placeholder (``[emoji: rocket]``).

    Raises:
        OSError / RuntimeError: pandoc could not run (pypandoc's errors, not caught here).
    """
    labels = labels_for(doc.language)
    texts = [doc.title, doc.question, doc.executive_summary, doc.body, doc.notice or "",
             *(s.title for s in doc.sources), *(getattr(r, f) for r in doc.review for f in _REVIEW_FIELDS),
             *labels.values()]
    plan = _FontPlan(doc.language, texts)
    typeset = _Typesetter(plan)
    cited = {s.number for s in doc.sources}

    def markdown(text: str, level: int, keep_ids: bool = False) -> list[Node]:
        blocks = parse_markdown(text)
        if keep_ids and blocks and blocks[0]["t"] == "Header" and blocks[0]["c"][0] == 1 and (
                _stringify(blocks[0]["c"][2]).split() == doc.title.split()):
            blocks = blocks[1:]  # the report's own title, already on top
        return typeset.inlines(_Sanitizer(level, keep_ids, cited).blocks(blocks))

    def plain(text: str) -> list[Node]:
        return typeset.inlines(plain_inlines(text))

    def field_blocks(text: str) -> list[Node]:
        return markdown(text, 4) or [{"t": "Para", "c": plain(labels["none"])}]

    meta: dict[str, object] = {
        "title": plain(doc.title) or plain(doc.question.split("\n")[0][:120]) or plain("Report"),
        "question": plain(doc.question) or [_str("—")],
        "date": plain(doc.date),
        "labels": {k: plain(v) for k, v in labels.items()},
        "mainfont": plan.main, "sansfont": plan.sans, "monofont": plan.mono,
    }
    if doc.notice and doc.notice.strip():
        meta["notice"] = plain(doc.notice)
    if summary := markdown(doc.executive_summary, 2):
        meta["summary"] = summary
    body = markdown(doc.body, 1, keep_ids=True)
    meta["review"] = tuple(
        {"heading": plain(labels["iteration"].format(n=r.iteration)),
         **{key: field_blocks(getattr(r, f)) for f, key in _REVIEW_FIELDS.items()}}
        for r in doc.review)
    meta["sources"] = tuple({"number": str(s.number), "entry": _source_entry(s.title, s.url, typeset)}
                            for s in doc.sources)
    if re.fullmatch(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*", doc.language):
        meta["lang"] = doc.language
    if plan.linebreak_locale:
        meta["linebreaklocale"] = plan.linebreak_locale
    meta["fallback"] = tuple({"family": family, "command": cmd, "font": cmd.replace("fallback", "font"),
                              **({"sans": plan.cjk[1]} if family == plan.cjk[0] and plan.cjk[1] in plan.faces else {})}
                             for family, cmd in plan.used.items())
    meta = {k: v for k, v in meta.items() if v != ()}
    version, args = _pandoc_setup()
    document = {"pandoc-api-version": version, "meta": {k: _meta(v) for k, v in meta.items()}, "blocks": body}
    return pypandoc.convert_text(json.dumps(document), WRITER, format="json", extra_args=args,
                                 sandbox=True, verify_format=False)


_REVIEW_FIELDS = {"what_changed": "changed", "critiques": "critiques", "answers": "answers",
                  "open_objections": "objections"}


def _source_entry(title: str, url: str, typeset: _Typesetter) -> list[Node]:
    """``Title`` then the link on its own line; a URL without a web scheme is shown as text."""
    link = _Sanitizer(1, False)._link(Attr, [_str(clean_text(url).strip())], clean_text(url).strip())
    heading = plain_inlines(title)
    inlines = [*heading, {"t": "LineBreak"}, *link] if heading and link else heading or link
    return typeset.inlines(inlines)
