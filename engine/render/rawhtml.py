"""Raw HTML in a report's Markdown as a reader of report.md sees it in a Markdown viewer: its text, not its markup.

The one rule for every output (PDF, Word; report.md keeps the HTML as written, and a viewer
applies the same rule): comments and the tags of ordinary HTML (:data:`HTML_TAGS`) are hidden,
their text stays, character references are read; an element whose content a browser does not
show as text (:data:`HIDDEN_ELEMENTS`: ``<script>``, ``<style>``, ``<iframe>`` …) is shown as a
stand-in naming it, ``[script]``, never as its code and never silently gone (as an image is
``[image: alt]``, and so is an ``<img>``); anything else in angle brackets (``List<String>``, ``<u8>``) is text as written.
Code spans and code blocks are not raw HTML: their tags are shown as written. The HTML is read
by the standard library's HTML tokenizer (:class:`html.parser.HTMLParser`), which reads a
``<script>`` or ``<style>`` element's content as raw text, the way a browser does.
"""

from __future__ import annotations

from html.parser import HTMLParser

# HTML markup a Markdown viewer hides (its text stays): the tags of ordinary HTML.
HTML_TAGS = frozenset("""a abbr b big blockquote br center cite code col colgroup dd del details dfn div dl dt em
    figcaption figure font h1 h2 h3 h4 h5 h6 hr i img ins kbd li mark ol p pre q s samp section small span
    strike strong sub summary sup table tbody td tfoot th thead tr tt u ul var wbr""".split())
#: Elements whose content is not shown as text: the HTML Living Standard's hidden elements
#: (§15.3.1 "Hidden elements": script, style, template, head, title, meta, link …), embedded
#: content shown as what it embeds, its content a fallback (§4.8: iframe, object, embed, video,
#: audio, canvas) and ``noscript`` (a viewer runs or strips scripts: GitHub removes all of these).
HIDDEN_ELEMENTS = frozenset("""applet area audio base basefont canvas datalist embed frame frameset head iframe link
    meta noembed noframes noscript object param rp script style template title video""".split())
#: Elements with no end tag (HTML Living Standard §13.1.2 "Void elements").
_VOID = frozenset("area base basefont embed frame link meta param".split())


def _image(attrs: dict) -> str:
    alt = " ".join((attrs.get("alt") or "").split())
    return f"[image: {alt}]" if alt else "[image]"


#: Ordinary tags that show something themselves: an image as a Markdown image is shown
#: (:class:`engine.render.markdown.Sanitizer`), a line break as one.
_SHOWN = {"img": _image, "br": lambda attrs: "\n"}


class _Reader(HTMLParser):
    """The text of an HTML fragment by the rule of this module; ``events`` are the tags it met."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.events: list[tuple[str, str]] = []  # ("start" | "end" | "empty", tag name)
        self.hidden: str | None = None  # the hidden element being skipped
        self.depth = 0  # of that element inside itself
        self._end_at = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self._tag("start", tag, self.get_starttag_text() or "", attrs)

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        self._tag("empty", tag, self.get_starttag_text() or "", attrs)

    def parse_endtag(self, i: int) -> int:
        self._end_at = i
        return super().parse_endtag(i)

    def handle_endtag(self, tag: str) -> None:
        end = self.rawdata.find(">", self._end_at)
        self._tag("end", tag, self.rawdata[self._end_at:end + 1] if end >= 0 else f"</{tag}>")

    def _tag(self, kind: str, tag: str, written: str, attrs: list | tuple = ()) -> None:
        self.events.append((kind, tag))
        if self.hidden is not None:
            if tag == self.hidden and kind != "empty":
                self.depth += 1 if kind == "start" else -1
                self.hidden = self.hidden if self.depth else None
            return
        if tag in HIDDEN_ELEMENTS and kind != "end":
            self.out.append(f"[{tag}]")
            if kind == "start" and tag not in _VOID:
                self.hidden, self.depth = tag, 1
        elif tag in _SHOWN and kind != "end":
            self.out.append(_SHOWN[tag](dict(attrs)))
        elif tag not in HTML_TAGS and tag not in HIDDEN_ELEMENTS:
            self.out.append(written)

    def handle_data(self, data: str) -> None:
        if self.hidden is None:
            self.out.append(data)

    def unknown_decl(self, data: str) -> None:
        if data.startswith("CDATA[") and self.hidden is None:
            self.out.append(data[len("CDATA["):])


def _read(raw: str) -> _Reader:
    reader = _Reader()
    reader.feed(raw)
    if reader.rawdata.startswith("<!--"):
        reader.rawdata = ""  # a comment left open hides the rest, as in a browser
    reader.close()
    return reader


def strip_html(raw: str) -> str:
    """``raw`` HTML as a reader sees its text (the module's rule): comments and ordinary tags
    (:data:`HTML_TAGS`) dropped, character references (``&amp;``, ``&lt;``, ``&#169;``) read, a
    hidden element (:data:`HIDDEN_ELEMENTS`) as ``[name]`` without its content, anything else in
    angle brackets (``List<String>``) as written."""
    return "".join(_read(raw).out)


def _only_tag(node: object) -> tuple[str, str] | None:
    """``(kind, tag)`` when ``node`` is a pandoc ``RawInline`` of HTML holding one tag, else None."""
    if not (isinstance(node, dict) and node.get("t") == "RawInline" and node["c"][0] == "html"):
        return None
    events = _read(node["c"][1]).events
    return events[0] if len(events) == 1 else None


def hide_elements(nodes: list) -> list:
    """``nodes`` (pandoc inlines, or any list) with each hidden element written inline replaced by
    its stand-in ``[name]``: pandoc gives its start tag, content and end tag as sibling nodes (the
    content as Markdown). An element left open hides the rest of its inlines, as in a browser."""
    out: list = []
    hidden, depth = None, 0
    for node in nodes:
        tag = _only_tag(node) if isinstance(node, dict) and node.get("t") == "RawInline" else None
        if hidden is not None:
            if tag is not None and tag[1] == hidden and tag[0] != "empty":
                depth += 1 if tag[0] == "start" else -1
                hidden = hidden if depth else None
            continue
        if tag is not None and tag[0] != "end" and tag[1] in HIDDEN_ELEMENTS:
            out.append({"t": "Str", "c": f"[{tag[1]}]"})
            if tag[0] == "start" and tag[1] not in _VOID:
                hidden, depth = tag[1], 1
            continue
        out.append(node)
    return out
