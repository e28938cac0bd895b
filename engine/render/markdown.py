"""Markdown and plain text to pandoc AST blocks that hold only text: the cleanup before typesetting."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import quote, urlsplit

import pypandoc

# GitHub-flavoured Markdown without the parts that would let text reach LaTeX unescaped (math) or
# vanish (a YAML block read as metadata). Raw HTML is parsed, then shown literally (see Sanitizer).
MARKDOWN_FORMAT = "gfm-tex_math_dollars-tex_math_gfm-yaml_metadata_block"
LINK_SCHEMES = ("http", "https", "ftp", "mailto")
MAX_NESTING = 4  # lists and quotes inside each other; LaTeX stops at 4 itemize or enumerate levels
_CITATION = re.compile(r"\[(\d{1,4}(?:,\s*\d{1,4})*)\]")
_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)


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


# --- pandoc AST --------------------------------------------------------------------------------

Node = dict
Attr = ["", [], []]


def str_node(text: str) -> Node:
    """A pandoc ``Str`` node."""
    return {"t": "Str", "c": text}


def plain_inlines(text: str) -> list[Node]:
    """Pandoc inlines for a plain string: words and spaces, a line break for each newline."""
    out: list[Node] = []
    lines = [line for line in clean_text(text).strip().splitlines() if line.strip()]
    for n, line in enumerate(lines):
        if n:
            out.append({"t": "LineBreak"})
        for m, word in enumerate(line.split()):
            out.extend([{"t": "Space"}] if m else [])
            out.append(str_node(word))
    return out


@dataclass
class Sanitizer:
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
            return [{"t": "LineBreak"}] if _BR.fullmatch(c[1].strip()) else [str_node(c[1])]
        if t == "RawBlock":
            return [{"t": "CodeBlock", "c": [Attr, c[1]]}]
        if t == "Math":
            fence = "$$" if c[0]["t"] == "DisplayMath" else "$"
            return [str_node(fence + c[1] + fence)]
        if t == "Image":
            alt = self._link_text(c[1]) or [str_node("image")]
            return self._link(Attr, [str_node("[image:"), {"t": "Space"}, *alt, str_node("]")], c[2][0])
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
            marker = [str_node("•" if t == "BulletList" else f"{start + k}."), {"t": "Space"}]
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
            if content == [str_node(target)] and safe != target:
                content = [str_node(safe)]
            return [{"t": "Link", "c": [attr, content, [safe, ""]]}]
        if content == [str_node(target)] or not target:
            return content
        return [*content, {"t": "Space"}, str_node(f"({target})")]

    def _cite(self, text: str) -> list[Node]:
        out: list[Node] = []
        pos = 0
        for m in _CITATION.finditer(text):
            numbers = [int(x) for x in m.group(1).split(",")]
            if not all(n in self.citations for n in numbers):
                continue
            out.append(str_node(text[pos:m.start()] + "["))
            for k, n in enumerate(numbers):
                out.extend([str_node(",")] if k else [])
                out.append({"t": "Link", "c": [Attr, [str_node(str(n))], [f"#src-{n}", ""]]})
            out.append(str_node("]"))
            pos = m.end()
        out.append(str_node(text[pos:]))
        return [n for n in out if n["c"]]


def _walk_nodes(value: object) -> Iterable[Node]:
    if isinstance(value, dict):
        if "t" in value:
            yield value
        yield from _walk_nodes(value.get("c"))
    elif isinstance(value, list):
        for item in value:
            yield from _walk_nodes(item)


def parse_markdown(markdown: str) -> list[Node]:
    """Parse a Markdown fragment into pandoc AST blocks (JSON form); ``[]`` for blank text."""
    text = clean_text(markdown)
    if not text.strip():
        return []
    doc = json.loads(pypandoc.convert_text(text, "json", format=MARKDOWN_FORMAT, sandbox=True,
                                           verify_format=False))
    return doc["blocks"]


def stringify(inlines: list[Node]) -> str:
    """The plain text of pandoc inlines, each space or soft break as one space."""
    return "".join(n["c"] if n["t"] == "Str" else " " for n in _walk_nodes(inlines)
                   if n["t"] in ("Str", "Space", "SoftBreak"))


def url_inlines(url: str) -> list[Node]:
    """A link to ``url`` (cleaned) when it has a web scheme or is an anchor, else the URL as text."""
    target = clean_text(url).strip()
    return Sanitizer(1, False)._link(Attr, [str_node(target)], target)
