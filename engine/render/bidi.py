"""Right-to-left runs of a left-to-right paragraph, by the Unicode Bidirectional Algorithm (UAX #9).

The report's paragraphs are left to right; the levels of their characters are resolved over the
paragraph's whole inline sequence (bold, italic, link text and inline code included, as a browser
or Word does), and :func:`mark` puts the level changes into the sequence as raw LaTeX: the
template's ``\\drbbeginR``/``\\drbendR`` (XeTeX's TeX--XeT ``\\beginR``/``\\endR``) around a
right-to-left run, ``\\drbbeginL``/``\\drbendL`` around a number inside one (level 2). TeX--XeT
matches these by position in the line, not by TeX group, so a run may start inside ``\\textbf``
and end after it. Explicit embeddings and overrides (U+202A, U+202B, U+202D, U+202E, closed by
U+202C) are resolved; an isolate (U+2066–U+2069) is neutral to the text around it. A link whose
text changes level is set as one link of the same target per level.
"""

from __future__ import annotations

import unicodedata

from engine.render.markdown import Node

_NEUTRAL = frozenset({"B", "S", "WS", "ON", "LRI", "RLI", "FSI", "PDI"})
_REMOVED = frozenset({"LRE", "RLE", "LRO", "RLO", "PDF", "BN"})  # X9: no level of their own
_EMBEDDINGS = {"LRE": (0, None), "RLE": (1, None), "LRO": (0, "L"), "RLO": (1, "R")}
_ISOLATES = frozenset({"LRI", "RLI", "FSI"})
_EXPLICIT = frozenset("\u202a\u202b\u202d\u202e")  # LRE, RLE, LRO, RLO
_LINE = "\u2028"  # a line break in the sequence: a segment separator (L1)
_OBJECT = "\ufffc"  # a note, image or other node with no text in the paragraph: neutral
_CONTAINERS = {
    "Emph": None,
    "Underline": None,
    "Strong": None,
    "Strikeout": None,
    "Superscript": None,
    "Subscript": None,
    "SmallCaps": None,
    "Quoted": 1,
    "Span": 1,
    "Link": 1,
    "Cite": 1,
}
# (where a container's inlines are in its ``c``: ``c`` itself, or that item of it)
_NOTES = frozenset({"drb-note", "drb-noteref"})
# Paired brackets (UAX #9 BD14, BD15): the common ones.
_PAIRS = dict(
    zip(
        "([{\u27e8\u2329\u3008\u2045\u2308\u230a\u300a\u300c\u300e\u3010",
        ")]}\u27e9\u232a\u3009\u2046\u2309\u230b\u300b\u300d\u300f\u3011",
        strict=True,
    )
)
_CLOSERS = {close: open_ for open_, close in _PAIRS.items()}


def _type(ch: str) -> str:
    if ch == _LINE:
        return "S"
    return unicodedata.bidirectional(ch) or "L"


def levels(text: str) -> list[int]:
    """The embedding level of each character of ``text`` as a left-to-right paragraph: 0 left to
    right, 1 right to left, 2 a number inside right-to-left text, higher inside explicit embeddings
    and overrides (UAX #9 X1–X10, W1–W7, N0–N2, I1–I2, L1)."""
    return _resolve(text)[0]


def _explicit(original: list[str]) -> tuple[list[int], list[str]]:
    """X1–X9: each character's explicit level and its type after any override; the embedding and
    override controls (and BN) get the type ``"X"``. An
    isolate's content is not overridden, and is not given a level of its own: its characters are
    neutral to the text around it."""
    stack: list[tuple[int, str | None, bool]] = [(0, None, False)]  # level, override, isolate
    overflow = 0
    found: list[int] = []
    types: list[str] = []
    for t in original:
        level, override, _ = stack[-1]
        if t in _EMBEDDINGS:
            parity, kind = _EMBEDDINGS[t]
            new = level + 1 if (level + 1) % 2 == parity else level + 2
            if new <= 125 and not overflow:
                stack.append((new, kind, False))
            else:
                overflow += 1
        elif t == "PDF":
            if overflow:
                overflow -= 1
            elif len(stack) > 1 and not stack[-1][2]:
                stack.pop()
        elif t in _ISOLATES:
            stack.append((level, None, True))
        elif t == "PDI" and any(entry[2] for entry in stack):
            while not stack[-1][2]:
                stack.pop()
            stack.pop()
            overflow = 0
            level, override, _ = stack[-1]
        if t in _REMOVED:
            found.append(level)
            types.append("X")
        else:
            found.append(level)
            types.append(override if override and t not in ("S", "B") else t)
    return found, types


def _resolve(text: str) -> tuple[list[int], list[bool]]:
    """The levels of ``text``'s characters, and which of them an override turns against their own
    direction (a Latin letter under U+202E): the font's shaping would not, so each is set apart."""
    original = [_type(ch) for ch in text]
    explicit, types = _explicit(original)
    out = list(explicit)
    kept = [i for i, t in enumerate(types) if t != "X"]
    k = 0
    while k < len(kept):  # X10: each level run on its own, sos and eos from the levels beside it
        m = k
        while m < len(kept) and explicit[kept[m]] == explicit[kept[k]]:
            m += 1
        run, level = kept[k:m], explicit[kept[k]]
        sos = "R" if max(level, explicit[kept[k - 1]] if k else 0) % 2 else "L"
        eos = "R" if max(level, explicit[kept[m]] if m < len(kept) else 0) % 2 else "L"
        resolved = _run([types[i] for i in run], "".join(text[i] for i in run), sos, eos, level)
        for i, t in zip(run, resolved, strict=True):  # I1, I2
            if level % 2:
                out[i] = level + 1 if t in ("L", "EN", "AN") else level
            else:
                out[i] = level + 2 if t in ("EN", "AN") else level + 1 if t == "R" else level
        k = m
    for i, t in enumerate(types):  # a removed control takes the level of the text before it
        if t == "X":
            out[i] = out[i - 1] if i else 0
    at_end = True
    for i in range(len(text) - 1, -1, -1):  # L1: separators, and whitespace before one or at the end
        if original[i] in ("S", "B"):
            out[i], at_end = 0, True
        elif at_end and (original[i] in ("WS", "LRI", "RLI", "FSI", "PDI") or types[i] == "X"):
            out[i] = 0
        else:
            at_end = False
    apart = [
        t in ("L", "R") and t != o and (t, o) != ("R", "AL") for t, o in zip(types, original, strict=True)
    ]
    return out, apart


def _run(types: list[str], text: str, sos: str, eos: str, level: int) -> list[str]:
    """W1–W7, N0–N2 over one level run's types."""
    types = list(types)
    n = len(types)
    e = "R" if level % 2 else "L"
    prev = sos
    for i, t in enumerate(types):  # W1
        if t == "NSM":
            types[i] = "ON" if prev in ("LRI", "RLI", "FSI", "PDI") else prev
        prev = types[i]
    strong = sos
    for i, t in enumerate(types):  # W2, W3
        if t in ("L", "R", "AL"):
            strong = t
        elif t == "EN" and strong == "AL":
            types[i] = "AN"
    types = ["R" if t == "AL" else t for t in types]
    for i in range(1, n - 1):  # W4
        if types[i] in ("ES", "CS") and types[i - 1] == types[i + 1] == "EN":
            types[i] = "EN"
        elif types[i] == "CS" and types[i - 1] == types[i + 1] == "AN":
            types[i] = "AN"
    i = 0
    while i < n:  # W5
        if types[i] != "ET":
            i += 1
            continue
        j = i
        while j < n and types[j] == "ET":
            j += 1
        if (i > 0 and types[i - 1] == "EN") or (j < n and types[j] == "EN"):
            types[i:j] = ["EN"] * (j - i)
        i = j
    types = ["ON" if t in ("ES", "ET", "CS") else t for t in types]  # W6
    strong = sos
    for i, t in enumerate(types):  # W7
        if t in ("L", "R"):
            strong = t
        elif t == "EN" and strong == "L":
            types[i] = "L"
    _brackets(text, types, sos, e)
    i = 0
    while i < n:  # N1, N2
        if types[i] not in _NEUTRAL:
            i += 1
            continue
        j = i
        while j < n and types[j] in _NEUTRAL:
            j += 1
        before = sos if i == 0 else "L" if types[i - 1] == "L" else "R"
        after = eos if j == n else "L" if types[j] == "L" else "R"
        types[i:j] = [before if before == after else e] * (j - i)
        i = j
    return types


def _pairs(text: str, types: list[str]) -> list[tuple[int, int]]:
    """BD16: the bracket pairs of ``text``, by their opening bracket's place."""
    stack: list[tuple[str, int]] = []
    pairs: list[tuple[int, int]] = []
    for i, ch in enumerate(text):
        if types[i] != "ON":
            continue
        if ch in _PAIRS:
            if len(stack) == 63:
                break
            stack.append((ch, i))
        elif ch in _CLOSERS:
            for k in range(len(stack) - 1, -1, -1):
                if stack[k][0] == _CLOSERS[ch]:
                    pairs.append((stack[k][1], i))
                    del stack[k:]
                    break
    return sorted(pairs)


def _strong(t: str) -> str | None:
    return "L" if t == "L" else "R" if t in ("R", "EN", "AN") else None


def _brackets(text: str, types: list[str], sos: str = "L", e: str = "L") -> None:
    """N0: a bracket pair takes the direction of the text inside it, or of the text before it
    when the inside is opposite to the embedding direction ``e``."""
    for a, b in _pairs(text, types):
        inside = {_strong(t) for t in types[a + 1 : b]}
        if e in inside:
            side = e
        elif inside - {None}:
            side = next((s for t in reversed(types[:a]) if (s := _strong(t))), sos)
        else:
            continue
        types[a] = types[b] = side
        for k in (a, b):
            j = k + 1
            while j < len(text) and _type(text[j]) == "NSM":
                types[j], j = side, j + 1


def has_rtl(text: str) -> bool:
    """Whether ``text`` holds a right-to-left letter (Hebrew, Arabic)."""
    return any(unicodedata.bidirectional(ch) in ("R", "AL") for ch in text)


def _leaf(node: Node) -> str | None:
    """The text a node stands for in the paragraph, or None for a container of inlines."""
    t, c = node.get("t"), node.get("c")
    if t == "Str":
        return c
    if t == "Code":
        return c[1]
    if t in ("Space", "SoftBreak"):
        return " "
    if t == "LineBreak":
        return _LINE
    if t == "Link" and ("drb-cite" in c[0][1] or c[1] == [{"t": "Str", "c": c[2][0]}]):
        return "".join(_text(c[1])) or _OBJECT  # a citation number or an autolink: set whole
    if t == "Span" and _NOTES & set(c[0][1]):
        return _OBJECT
    if t in _CONTAINERS:
        return None
    return _OBJECT


def _text(inlines: list) -> list[str]:
    out: list[str] = []
    for node in inlines:
        text = _leaf(node)
        out.extend([text] if text is not None else _text(_children(node)))
    return out


def _children(node: Node) -> list:
    k = _CONTAINERS[node["t"]]
    return node["c"] if k is None else node["c"][k]


def _marker(level: int, begin: bool) -> Node:
    return _raw(f"\\drb{'begin' if begin else 'end'}{'R' if level % 2 else 'L'}{{}}")


def _like(node: Node, text: str) -> Node:
    return {"t": "Str", "c": text} if node["t"] == "Str" else {"t": "Code", "c": [node["c"][0], text]}


def _mirrored(node: Node, text: str) -> list[Node]:
    """A right-to-left piece of ``node``'s text, each mirrored character (brackets, L4) drawn
    mirrored by ``\\drbmirror`` (the PDF's text keeps the character)."""
    pieces: list[list] = []  # [text, mirrored]; a combining mark stays with its base
    for ch in text:
        mirrored = unicodedata.mirrored(ch) == 1
        if pieces and not mirrored and (not pieces[-1][1] or unicodedata.combining(ch)):
            pieces[-1][0] += ch
        else:
            pieces.append([ch, mirrored])
    out: list[Node] = []
    for piece, mirrored in pieces:
        out.extend(
            [_raw("\\drbmirror{"), _like(node, piece), _raw("}")] if mirrored else [_like(node, piece)]
        )
    return out


def _raw(tex: str) -> Node:
    return {"t": "RawInline", "c": ["latex", tex]}


class _Marker:
    def __init__(self, levels: list[int], apart: list[bool] | None = None) -> None:
        self.levels = levels
        self.apart = apart or [False] * len(levels)
        self.pos = 0
        self.level = 0

    def to(self, level: int) -> list[Node]:
        out: list[Node] = []
        while self.level > level:
            out.append(_marker(self.level, False))
            self.level -= 1
        while self.level < level:
            self.level += 1
            out.append(_marker(self.level, True))
        return out

    def inlines(self, items: list) -> list:
        out: list = []
        for node in items:
            text = _leaf(node)
            if node["t"] in ("Link", "Note") or (node["t"] == "Span" and _NOTES & set(node["c"][0][1])):
                out.extend(self._unit(node, text))
                continue
            if text is None:
                k, inner = _CONTAINERS[node["t"]], self.inlines(_children(node))
                out.append(
                    {
                        "t": node["t"],
                        "c": inner if k is None else [*node["c"][:k], inner, *node["c"][k + 1 :]],
                    }
                )
                continue
            start, self.pos = self.pos, self.pos + len(text)
            if node["t"] not in ("Str", "Code") or not text:
                out.extend([*(self.to(self.levels[start]) if text else []), node])
                continue
            a = 0
            for b in range(1, len(text) + 1):
                if b == len(text) or self._cut(start, text, a, b):
                    level = self.levels[start + a]
                    if a and self.levels[start + a - 1] == level:
                        out.append(_raw("\\drbapart{}"))
                    out.extend(self.to(level))
                    out.extend(_mirrored(node, text[a:b]) if level % 2 else [_like(node, text[a:b])])
                    a = b
        return out

    def _cut(self, start: int, text: str, a: int, b: int) -> bool:
        """Whether a piece of ``text`` starting at ``a`` ends before ``b``: where the level changes,
        and around each character an override sets against its own direction (with its marks)."""
        if self.levels[start + b] != self.levels[start + a]:
            return True
        if unicodedata.combining(text[b]) or unicodedata.category(text[b]) in ("Mn", "Me"):
            return False
        return self.apart[start + b] or self.apart[start + b - 1] or self.apart[start + a]

    def _unit(self, node: Node, text: str | None) -> list:
        """A link or note: its colour and link specials (push before, pop after) must keep their
        order, so inside a right-to-left run it is a left-to-right segment of its own, which TeX--XeT
        turns back, its own text's runs marked inside it. A link whose text changes level is set as
        one link of the same target per level, so that its words keep the paragraph's order."""
        start = self.pos
        length = len(text) if text is not None else len("".join(_text(_children(node))))
        if not length:
            return [node]
        cuts = [i for i in range(1, length) if self.levels[start + i] != self.levels[start + i - 1]]
        if text is None and node["t"] == "Link" and cuts:
            bounds = list(zip([0, *cuts], [*cuts, length], strict=True))
            pieces = [_slice(node["c"][1], a, b, b == length) for a, b in bounds]
            if all(piece is not None for piece in pieces):
                out: list = []
                for piece in pieces:  # a space at a piece's edge stays in its place, outside the link
                    head = tail = 0
                    while head < len(piece) and piece[head]["t"] in ("Space", "SoftBreak"):
                        head += 1
                    while tail < len(piece) - head and piece[-1 - tail]["t"] in ("Space", "SoftBreak"):
                        tail += 1
                    if head + tail >= len(piece):
                        out.extend(self.inlines(piece))
                        continue
                    inner = piece[head : len(piece) - tail]
                    out.extend(self.inlines(piece[:head]))
                    out.extend(
                        self._one(
                            {"t": "Link", "c": [node["c"][0], inner, node["c"][2]]}, None, _width(inner)
                        )
                    )
                    out.extend(self.inlines(piece[len(piece) - tail :]))
                return out
        return self._one(node, text, length)

    def _one(self, node: Node, text: str | None, length: int) -> list:
        start = self.pos
        out = self.to(self.levels[start])
        if text is None:
            inner = _Marker(self.levels)
            inner.pos = start
            inlines = [*inner.inlines(_children(node)), *inner.to(0)]
            k = _CONTAINERS[node["t"]]
            node = {"t": node["t"], "c": [*node["c"][:k], inlines, *node["c"][k + 1 :]]}
        self.pos = start + length
        return [*out, *([_marker(2, True), node, _marker(2, False)] if self.level % 2 else [node])]


def _width(inlines: list) -> int:
    return sum(_length(node) for node in inlines)


def _length(node: Node) -> int:
    text = _leaf(node)
    return len(text) if text is not None else len("".join(_text(_children(node))))


def _slice(inlines: list, a: int, b: int, last: bool) -> list | None:
    """The inlines of characters ``a`` to ``b`` of ``inlines``' text, formatting kept; None when
    that would cut a node that is set whole. An empty node goes with the piece it starts, or the last."""
    out: list = []
    pos = 0
    for node in inlines:
        n = _length(node)
        lo, hi = max(a, pos), min(b, pos + n)
        if n == 0:
            if a <= pos < b or (last and pos == b):
                out.append(node)
        elif lo >= hi:
            pass
        elif lo == pos and hi == pos + n:
            out.append(node)
        elif node["t"] in ("Str", "Code"):
            out.append(_like(node, _leaf(node)[lo - pos : hi - pos]))
        elif _leaf(node) is None and node["t"] in _CONTAINERS and node["t"] not in ("Quoted", "Cite"):
            inner = _slice(_children(node), lo - pos, hi - pos, last and hi == b)
            if inner is None:
                return None
            k = _CONTAINERS[node["t"]]
            out.append(
                {"t": node["t"], "c": inner if k is None else [*node["c"][:k], inner, *node["c"][k + 1 :]]}
            )
        else:
            return None
        pos += n
    return out


def mark(inlines: list) -> list:
    """``inlines`` (one paragraph's) with its right-to-left runs between ``\\drbbeginR{}`` and
    ``\\drbendR{}`` and the numbers inside them between ``\\drbbeginL{}`` and ``\\drbendL{}``;
    a ``Str`` or ``Code`` node split where the level changes inside it. Left unchanged when the
    paragraph has no right-to-left letter."""
    text = "".join(_text(inlines))
    if not has_rtl(text) and not _EXPLICIT & set(text):
        return inlines
    marker = _Marker(*_resolve(text))
    out = marker.inlines(inlines)
    return [*out, *marker.to(0)]
