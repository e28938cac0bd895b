"""Markdown and plain text to pandoc AST blocks that hold only text: the cleanup before typesetting."""

from __future__ import annotations

import functools
import json
import re
import threading
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import quote

from engine.render.pandoc import convert_text
from engine.render.rawhtml import hide_elements
from engine.render.rawhtml import strip_html as strip_html  # re-exported
from engine.source_links import source_place
from engine.text import BREAKING_SPACE, parse_url, squeeze

# GitHub-flavoured Markdown without the parts that would let text reach LaTeX unescaped (math),
# vanish (a YAML block read as metadata) or change (``:cat:`` read as an emoji shortcode, so that
# ``animals::cat::new()`` would show a cat: the text stays as written, as in Slack and Teams). Raw HTML is parsed, then shown as a reader sees it (engine.render.rawhtml).
#: A ``file:`` URI written as text (RFC 8089), up to the next space or bracket.
_FILE_URI = re.compile(r"(?i)\bfile:[^\s<>()\[\]]+")
MARKDOWN_FORMAT = "gfm-tex_math_dollars-tex_math_gfm-yaml_metadata_block-emoji"
LINK_SCHEMES = ("http", "https", "ftp", "mailto")
MAX_NESTING = 4  # lists and quotes inside each other; LaTeX stops at 4 itemize or enumerate levels
# A citation group: ``[n]`` or ``[n, m, ...]``, written without backslashes (``\[1\]`` is text).
_CITATION = re.compile(r"\[(\d{1,4}(?:,[ \n]*\d{1,4})*)\]")
_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)
# Escaped brackets are held in noncharacters while pandoc parses (clean_text removes any in the input).
_ESCAPED = {"\\[": "\ufdd0", "\\]": "\ufdd1"}
_UNESCAPE_TEXT = str.maketrans({"\ufdd0": "[", "\ufdd1": "]"})
_UNESCAPE_CODE = str.maketrans({"\ufdd0": "\\[", "\ufdd1": "\\]"})


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
    """Pandoc inlines for a plain string: words and spaces, a line break for each newline. Words are
    separated by breaking whitespace only (:data:`engine.text.BREAKING_SPACE`): a no-break space, as French writes
    one before ``?`` or in ``1 000 €``, stays in its word."""
    out: list[Node] = []
    lines = [line for line in clean_text(text).splitlines() if line.strip()]
    for n, line in enumerate(lines):
        if n:
            out.append({"t": "LineBreak"})
        for m, word in enumerate(w for w in BREAKING_SPACE.split(line) if w):
            out.extend([{"t": "Space"}] if m else [])
            out.append(str_node(word))
    return out


@dataclass
class Sanitizer:
    """Rewrites a parsed fragment so that only text reaches the LaTeX and Word writers.

    Raw HTML is shown as a reader of report.md sees it (:mod:`engine.render.rawhtml`: comments and
    ordinary tags hidden, their text kept, ``<script>`` and the other hidden elements as ``[script]``),
    other raw text and math are literal text, images become ``[image: alt]`` (a link when the URL is on the web, never
    fetched), links keep only web schemes, headings move to ``min_level``, citation groups whose
    every number is a source link each number to ``#src-n``, and lists and quotes nested deeper
    than LaTeX allows are flattened.
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
        for item in hide_elements(items):
            if isinstance(item, dict) and "t" in item:
                out.extend(self._node(item))
            elif isinstance(item, list):
                out.append(self._list(item))
            else:
                out.append(item)
        if self.citations and not self.in_link and any(isinstance(n, dict) and n.get("t") == "Str" for n in out):
            out = self._cite(out)
        return [_unescape(n) if isinstance(n, dict) and n.get("t") == "Str" else n for n in out]

    def _node(self, node: Node) -> list[Node]:
        t, c = node["t"], node.get("c")
        handler = self._BY_TYPE.get(t)
        if handler is not None:
            return handler(self, t, c)
        if isinstance(c, list):
            return [{"t": t, "c": self._list(c)}]
        return [node]

    def _raw_inline(self, t: str, c: list) -> list[Node]:
        if _BR.fullmatch(c[1].strip()):
            return [{"t": "LineBreak"}]
        text = strip_html(c[1]) if c[0] == "html" else c[1]
        return [str_node(text.translate(_UNESCAPE_CODE))] if text else []

    def _raw_block(self, t: str, c: list) -> list[Node]:
        text = strip_html(c[1]) if c[0] == "html" else c[1]
        paras = [p for p in re.split(r"\n\s*\n", text.translate(_UNESCAPE_CODE)) if p.strip()]
        return [{"t": "Para", "c": plain_inlines(p)} for p in paras]

    def _math(self, t: str, c: list) -> list[Node]:
        fence = "$$" if c[0]["t"] == "DisplayMath" else "$"
        return [str_node(fence + c[1] + fence)]

    def _code(self, t: str, c: list) -> list[Node]:
        return [{"t": t, "c": [c[0], c[1].translate(_UNESCAPE_CODE)]}]

    def _image(self, t: str, c: list) -> list[Node]:
        alt = self._link_text(c[1])
        label = [str_node("[image:"), {"t": "Space"}, *alt, str_node("]")] if alt else [str_node("[image]")]
        target = c[2][0].translate(_UNESCAPE_TEXT)
        web = parse_url(target).scheme.lower() in LINK_SCHEMES if ":" in target else False
        return self._link(Attr, label, target) if web and not self.in_link else label

    def _link_node(self, t: str, c: list) -> list[Node]:
        return self._link(c[0], self._link_text(c[1]), c[2][0].translate(_UNESCAPE_TEXT))

    def _header(self, t: str, c: list) -> list[Node]:
        attr = c[1] if self.keep_ids else ["", c[1][1], c[1][2]]
        text = [{"t": "Space"} if n["t"] == "LineBreak" else n for n in self._list(c[2])]
        return [{"t": "Header", "c": [max(1, min(6, c[0] + self.shift)), attr, text]}]

    def _para(self, t: str, c: list) -> list[Node]:
        inlines = self._list(c)
        while inlines and inlines[0]["t"] in ("LineBreak", "Space", "SoftBreak"):
            inlines.pop(0)  # LaTeX has no line to end there
        return [{"t": t, "c": inlines}] if inlines else []

    def _str(self, t: str, c: str) -> list[Node]:
        """Text, a bare ``file:`` URI in it shown by its file name only (never a host's folders)."""
        return [{"t": t, "c": _FILE_URI.sub(lambda m: source_place(m.group()) or "file:", c)}]

    def _strikeout(self, t: str, c: list) -> list[Node]:
        return [{"t": "Span", "c": [["", ["drb-strike"], []], self._list(c)]}]

    _BY_TYPE = {
        "RawInline": _raw_inline, "RawBlock": _raw_block, "Math": _math, "Code": _code, "CodeBlock": _code,
        "Image": _image, "Link": _link_node, "Header": _header, "Para": _para, "Plain": _para,
        "BulletList": lambda self, t, c: self._nested(t, c), "OrderedList": lambda self, t, c: self._nested(t, c),
        "BlockQuote": lambda self, t, c: self._nested(t, c), "Strikeout": _strikeout, "Str": _str,
    }

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
        scheme = parse_url(target).scheme.lower() if ":" in target else ""
        if target.startswith("#"):
            return [{"t": "Link", "c": [attr, content, [target, ""]]}]
        if scheme in LINK_SCHEMES:  # the text stays as written (``Wärmepumpe``, ``{id}``), the target is encoded
            safe = quote(target, safe="!#$%&'()*+,-./:;=?@[]_~")
            return [{"t": "Link", "c": [attr, content, [safe, ""]]}]
        host_path = scheme == "file" or (not scheme and target.startswith("/") and not target.startswith("//"))
        place = source_place(target) if host_path else target  # a host's file by its name, never its folders
        if content in ([str_node(target)], [str_node(place)]):  # an autolink (its text already shortened)
            return [str_node(place)] if place else content
        if not place:
            return content
        return [*content, {"t": "Space"}, str_node(f"({place})")]

    def _cite(self, inlines: list[Node]) -> list[Node]:
        """Link each number of a citation group (which may span spaces) to its source."""
        out: list[Node] = []
        run: list[Node] = []
        for node in [*inlines, None]:
            if node is not None and node.get("t") in ("Str", "Space", "SoftBreak"):
                run.append(node)
                continue
            out.extend(self._cite_run(run))
            run = []
            if node is not None:
                out.append(node)
        return out

    def _cite_run(self, run: list[Node]) -> list[Node]:
        text = "".join(n["c"] if n["t"] == "Str" else " " if n["t"] == "Space" else "\n" for n in run)
        if "[" not in text:
            return run
        out: list[Node] = []
        pos = 0
        for m in _CITATION.finditer(text):
            parts = re.split(r"(,\s*)", m.group(1))  # numbers and the separators as written
            numbers = [int(x) for x in parts[::2]]
            if not all(n in self.citations for n in numbers):
                continue
            out.extend(_text_nodes(text[pos:m.start()] + "["))
            for k, n in enumerate(numbers):
                out.extend(_text_nodes(parts[2 * k - 1]) if k else [])
                out.append({"t": "Link", "c": [["", ["drb-cite"], []], [str_node(str(n))], [f"#src-{n}", ""]]})
            out.append(str_node("]"))
            pos = m.end()
        if not out:
            return run
        out.extend(_text_nodes(text[pos:]))
        return [n for n in out if n.get("c") != ""]


def _text_nodes(text: str) -> list[Node]:
    """Str, Space and SoftBreak nodes for a piece of inline text."""
    out: list[Node] = []
    for k, part in enumerate(re.split(r"([ \n])", text)):
        if k % 2:
            out.append({"t": "Space"} if part == " " else {"t": "SoftBreak"})
        elif part:
            out.append(str_node(part))
    return out


def _unescape(node: Node) -> Node:
    return {"t": "Str", "c": node["c"].translate(_UNESCAPE_TEXT)} if "\ufdd0" in node["c"] or "\ufdd1" in node["c"] else node


def _walk_nodes(value: object) -> Iterable[Node]:
    if isinstance(value, dict):
        if "t" in value:
            yield value
        yield from _walk_nodes(value.get("c"))
    elif isinstance(value, list):
        for item in value:
            yield from _walk_nodes(item)


def parse_markdown(markdown: str, cancel: threading.Event | None = None) -> list[Node]:
    """Parse a Markdown fragment into pandoc AST blocks (JSON form); ``[]`` for blank text.
    pandoc is stopped as soon as ``cancel`` is set (raises :class:`engine.render.pandoc.PandocCancelled`).

    Backslash-escaped brackets (``\\[1\\]``) come out of :class:`Sanitizer` as text that is never a
    citation; until then they are held as noncharacters U+FDD0/U+FDD1 in ``Str`` nodes.
    """
    text = clean_text(markdown)
    if not text.strip():
        return []
    protected = re.sub(r"\\\\|\\[\[\]]", lambda m: _ESCAPED.get(m.group(), m.group()), text)
    return json.loads(_pandoc_json(protected, cancel))["blocks"]


#: pandoc's JSON for the Markdown fragments parsed last (at most :data:`PARSED_KEPT`), by fragment: the
#: LaTeX and the Word build of one report parse the same fragments, each in a thread of its own.
_PARSED: dict[str, str] = {}
_PARSED_LOCK = threading.Lock()
PARSED_KEPT = 512


def _pandoc_json(protected: str, cancel: threading.Event | None) -> str:
    """pandoc's JSON for the Markdown fragment ``protected``: kept from an earlier parse, or parsed now
    (stopped as soon as ``cancel`` is set: :class:`engine.render.pandoc.PandocCancelled`). pandoc
    runs with ``--sandbox``, so the same fragment always gives the same JSON; each caller loads its
    own copy of the nodes."""
    with _PARSED_LOCK:
        found = _PARSED.get(protected)
    if found is None:
        found = convert_text(protected, "json", MARKDOWN_FORMAT, cancel=cancel)
        with _PARSED_LOCK:
            if len(_PARSED) >= PARSED_KEPT:
                del _PARSED[next(iter(_PARSED))]  # the oldest
            _PARSED[protected] = found
    return found


def stringify(inlines: list[Node]) -> str:
    """The plain text of pandoc inlines, each space or soft break as one space."""
    return "".join(n["c"] if n["t"] == "Str" else " " for n in _walk_nodes(inlines)
                   if n["t"] in ("Str", "Space", "SoftBreak"))


def heading_text(markdown: str) -> str:
    """The words a reader sees of a one-line Markdown heading's text: escapes and character
    references resolved, code as its text, emphasis and link markup gone (``R\\&D `x` *y*``: ``R&D x y``)."""
    blocks = parse_markdown("# " + squeeze(markdown))
    if not blocks or blocks[0]["t"] != "Header":
        return markdown.strip()
    return squeeze(_shown_text(Sanitizer(1, False).blocks(blocks)[0]["c"][2]))


def _shown_text(inlines: list[Node]) -> str:
    """The text a reader sees of sanitized inlines: words, code as its text, a space for each space or
    soft break and a newline for each line break; markup gone."""
    return "".join(n["c"] if n["t"] == "Str" else n["c"][1] if n["t"] == "Code" else
                   "\n" if n["t"] == "LineBreak" else " " for n in _walk_nodes(inlines)
                   if n["t"] in ("Str", "Code", "Space", "SoftBreak", "LineBreak"))


#: What a line under the title is parsed after, so its text is read where report.md has it: inside a
#: paragraph, after its bold label (``- x`` or ``1. x`` there is text, not a list).
_FIELD_LABEL = "**x:** "


def field_inlines(markdown: str, cancel: threading.Event | None = None) -> list[Node]:
    """Pandoc inlines of the text of a line under a report's title (``**Date:** **3 March**``,
    ``**Question:** Is *this* `x`?``) as report.md writes it, without its label: read where it stands
    (after the bold label, in a paragraph) and sanitized as the body is (:class:`Sanitizer`), so
    bold, emphasis, code and web links show as in the body. Each line of ``markdown`` is a field of
    its own (one clarification per line); their inlines are joined by line breaks. ``[]`` for blank
    text. pandoc is stopped as soon as ``cancel`` is set (raises :class:`engine.render.pandoc.PandocCancelled`)."""
    out: list[Node] = []
    for line in (ln.strip() for ln in markdown.split("\n") if ln.strip()):
        blocks = Sanitizer(1, False).blocks(parse_markdown(_FIELD_LABEL + line, cancel))
        inlines = blocks[0]["c"] if len(blocks) == 1 and blocks[0]["t"] in ("Para", "Plain") else []
        if inlines[:2] and inlines[0]["t"] == "Strong" and inlines[1]["t"] == "Space":
            inlines = inlines[2:]
        else:  # not read as a paragraph after its label (never seen): its text as written
            inlines = plain_inlines(line)
        out.extend([{"t": "LineBreak"}] if out else [])
        out.extend(inlines)
    return out


def field_text(markdown: str, cancel: threading.Event | None = None) -> str:
    """The text a reader sees of a line under the title (:func:`field_inlines`): markup gone, escapes
    resolved, its lines joined by newlines (``**3 March**``: ``3 March``; ``R\\&D`` : ``R&D``)."""
    return _shown_text(field_inlines(markdown, cancel))


def url_inlines(url: str) -> list[Node]:
    """A link to ``url`` (cleaned) when it has a web scheme or is an anchor, else the URL as text.

    The link shows ``url`` as written, its spaces as spaces (``<https://example.com/a b>`` in
    report.md), while its target is percent-encoded (:class:`Sanitizer`); a text of words and
    spaces also keeps pandoc's LaTeX writer from showing the encoded target instead (``\\url``)."""
    target = clean_text(url).strip()
    inlines = Sanitizer(1, False)._link(Attr, [str_node(target)], target)
    if len(inlines) == 1 and inlines[0]["t"] == "Link":
        inlines[0]["c"][1] = _text_nodes(target)
    return inlines


@functools.cache
def pandoc_api_version() -> list[int]:
    """The pandoc AST version of the bundled pandoc (``[1, 23, 1]`` for pandoc 3.x)."""
    return json.loads(convert_text("", "json", "gfm", sandbox=False))["pandoc-api-version"]


# A bracketed group of numbers in prose; not a link's text ``[1](url)``, label ``[x][1]`` or definition ``[1]:``.
_NUMBER_GROUP = re.compile(r"(?<![\\\]])\[(\d{1,4}(?:,[ \t]*\d{1,4})*)\](?![(\[:])")
_MARK = re.compile("\ue000(\\d+)\ue001")


def _numbers(group: str) -> list[int]:
    return [int(x) for x in re.split(r",\s*", group)]


def escape_number_groups(markdown: str) -> str:
    """``markdown`` with prose brackets shaped like a citation (``[3]``, ``[1, 2]``) written ``\\[3\\]``.

    Groups naming 0 (``[0, 1]``) cannot be citations and stay as written.

    Applied to what a model wrote before its source ids become ``[n]``, so that in report.md
    the only unescaped ``[n]`` are the citations the pipeline minted (the renderers link those
    alone). A Markdown reader shows ``\\[3\\]`` as ``[3]``. Code spans, code blocks, raw HTML
    and URLs are left as written (found by parsing with a private-use mark before each group).
    """
    # a group naming 0 is never a citation (sources are numbered from 1): it stays as written
    matches = [m for m in _NUMBER_GROUP.finditer(markdown) if 0 not in _numbers(m.group(1))]
    if not matches:
        return markdown
    marked, pos = [], 0
    for i, m in enumerate(matches):
        marked += [markdown[pos:m.start()], f"\ue000{i}\ue001"]
        pos = m.start()
    marked.append(markdown[pos:])
    doc = json.loads(convert_text("".join(marked), "json", MARKDOWN_FORMAT))
    prose: set[int] = set()
    in_urls: set[int] = set()
    for node in _walk_nodes(doc["blocks"]):
        if node["t"] == "Str":
            prose.update(int(x) for x in _MARK.findall(node["c"]))
        elif node["t"] in ("Link", "Image"):
            in_urls.update(int(x) for x in _MARK.findall(node["c"][2][0]))
    prose -= in_urls
    out, pos = [], 0
    for i, m in enumerate(matches):
        if i in prose:
            out += [markdown[pos:m.start()], f"\\[{m.group(1)}\\]"]
            pos = m.end()
    out.append(markdown[pos:])
    return "".join(out)
