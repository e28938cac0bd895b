"""Render a ReportDocument to report.tex: Markdown through pandoc's AST and LaTeX writer, one template."""

from __future__ import annotations

import functools
import itertools
import json
import re
import threading
from collections.abc import Mapping
from pathlib import Path

import pypandoc
import regex

from engine.chinese import TRADITIONAL, TraditionalTexts, chinese_variant
from engine.render import ReportDocument, bidi
from engine.render.fonts import (
    FontPlan,
    grapheme_ends,
    installed_faces,
    is_sequence,
    needs_actual_text,
    script_of,
    segments,
)
from engine.render.fonts import placeholder as placeholder  # re-exported
from engine.render.markdown import (
    Attr,
    Node,
    Sanitizer,
    field_inlines,
    pandoc_api_version,
    parse_markdown,
    plain_inlines,
    str_node,
    stringify,
    url_inlines,
)
from engine.render.markdown import clean_text as clean_text  # re-exported
from engine.render.notes import FIRST, REPEAT, latex_note, note_keys, notes_after_table, share_notes
from engine.render.pandoc import convert_text
from engine.render.tables import fit_table
from engine.source_links import source_text, web_link
from engine.text import BREAKING_SPACE

TEMPLATE = Path(__file__).with_name("templates") / "report.tex"
# Unicode quotes and dashes stay Unicode: the fonts are loaded without TeX ligatures, so that
# ``--``, ``,,`` or two backticks in the text print as typed.
WRITER = "latex-smart"
LONG_RUN = 30  # characters without a break opportunity before one is added
BREAK_EVERY = 12
# Inline code (and long tokens of text) may break after a dot, underscore, slash, hyphen or colon between word characters
# (``ssl.SSLContext.check_hostname``, ``path/to/file``), so identifiers never run off the page.
_CODE_BREAK = re.compile(r"(?<=\w[./_:\\-])(?=\w)")
IDENTIFIER_RUN = 16  # text tokens this long break like inline code (``ssl.SSLContext.check_hostname``)
# Scripts written without spaces between words, whose words ICU's line breaker finds in its dictionaries.
_NO_SPACES = regex.compile(r"[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]")
# Runs XeTeX itself never breaks: all but spaces and the ideographs, kana and Hangul it breaks between (ICU line
# break classes ID, CJ, H2, H3, JL, JV, JT of the Han, Hiragana, Katakana, Hangul and Bopomofo scripts). Yi, Vai or
# Javanese, though near them in code points, are not broken by XeTeX.
_UNBROKEN_RUN = regex.compile(
    r"[^\s[[\p{lb=ID}\p{lb=CJ}\p{lb=H2}\p{lb=H3}\p{lb=JL}\p{lb=JV}\p{lb=JT}]"
    r"&&[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}\p{scx=Bopomofo}]]]+",
    regex.V1,
)

# The report's fixed headings and notes per language (the template's own words).
LABELS: dict[str, Mapping[str, str]] = json.loads(TEMPLATE.with_name("labels.json").read_text(encoding="utf-8"))
# Traditional Chinese: the Chinese labels in Traditional characters (OpenCC), no second copy in the file
LABELS[TRADITIONAL] = TraditionalTexts(LABELS["zh"])  # written when read: OpenCC only for such a report


# --- typesetting -------------------------------------------------------------------------------


def _raw(tex: str) -> Node:
    return {"t": "RawInline", "c": ["latex", tex]}


class _Typesetter:
    """Turns text nodes into runs of the right font, placeholders and break opportunities.

    Runs in a font other than the main one are wrapped in the fallback command; long words get
    a break opportunity (``\\drbbreak``, ragged if taken) every few characters; struck-out text
    is struck word by word. All text stays in ``Str``/``Code`` nodes, so pandoc still escapes
    every character.
    """

    def __init__(self, plan: FontPlan, max_run: int = LONG_RUN) -> None:
        self.plan = plan
        self.max_run = max_run
        self._in_paragraph = False  # inside a paragraph's inlines, whose right-to-left runs are marked

    def _cell(self, blocks: list, max_run: int) -> list:
        """A table cell's blocks, long runs broken to fit a column ``max_run`` characters wide."""
        outer, self.max_run = self.max_run, min(self.max_run, max_run)
        try:
            return self.inlines(blocks)
        finally:
            self.max_run = outer

    def inlines(self, items: list, strike: bool = False) -> list:
        """Typeset a list of inline (or block) nodes; ``strike`` strikes out every word.

        A paragraph's inlines (the outermost list of inlines, a note's paragraphs apart) get their
        right-to-left runs marked over the whole sequence first (:func:`engine.render.bidi.mark`)."""
        inline = bool(items) and all(isinstance(n, dict) and n.get("t") not in _BLOCKS for n in items)
        if inline == self._in_paragraph:
            return self._inlines(items, strike)
        outer, self._in_paragraph = self._in_paragraph, inline
        try:
            return self._inlines(bidi.mark(items) if inline else items, strike)
        finally:
            self._in_paragraph = outer

    def _inlines(self, items: list, strike: bool) -> list:
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
        if t == "Link" and "drb-cite" in c[0][1]:
            n = int(c[2][0].removeprefix("#src-"))  # minted by Sanitizer: digits only
            return [_raw("\\drbcite{"), str_node(str(n)), _raw("}")]
        if t == "Table":
            return notes_after_table(node, fit_table(node, self._cell))
        if t == "Span" and {FIRST, REPEAT} & set(c[0][1]):
            return latex_note(c, lambda blocks: self._children(blocks, False))
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
        if first and first["t"] in ("Plain", "Para") and first["c"][:1] in ([str_node("☐")], [str_node("☒")]):
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
                nodes = self._words(piece, strike and not family)  # a fallback run is struck whole
                nodes = _as_sequence(nodes) if is_sequence(piece) else nodes
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
                out.extend([_raw(f"\\{cmd}{{"), *_actual_text(body), _raw("}")])
            else:
                out.extend(nodes)
        return out

    def _words(self, text: str, strike: bool) -> list[Node]:
        out: list[Node] = []
        for brk, piece in _pieces(text, self.max_run, IDENTIFIER_RUN):
            out.extend([_raw(brk)] if brk else [])
            out.extend([_raw("\\drbstrike{"), str_node(piece), _raw("}")] if strike else [str_node(piece)])
        return out

    def _code(self, text: str) -> list[Node]:
        out: list[Node] = []
        for family, piece in segments(text, self.plan, self.plan.mono):
            nodes: list[Node] = []
            for brk, chunk in _pieces(piece, self.max_run, 0):  # in any font: a long run breaks
                nodes.extend([_raw(brk)] if brk else [])
                nodes.append(str_node(chunk) if family else {"t": "Code", "c": [Attr, chunk]})
            if family:
                nodes = [_raw(f"\\{self.plan.command(family)}{{"), *_actual_text(nodes), _raw("}")]
            out.extend(_as_sequence(nodes) if is_sequence(piece) else nodes)
        return out

    def _code_block(self, text: str) -> Node:
        """Verbatim when the mono font has every glyph, else lines of inline code (fonts can switch)."""
        segs = segments(text, self.plan, self.plan.mono)
        if not any(family or is_sequence(piece) for family, piece in segs) and not bidi.has_rtl(text):
            return {"t": "CodeBlock", "c": [Attr, "".join(piece for _, piece in segs)]}
        lines: list[Node] = []
        for k, line in enumerate(text.strip("\n").split("\n")):
            lines.extend([{"t": "LineBreak"}] if k else [])
            lines.extend([_raw("\\mbox{}")] if line[:1].isspace() else [])  # keeps the indent
            for node in bidi.mark([{"t": "Code", "c": [Attr, line.rstrip() or " "]}]):  # each line its own paragraph
                lines.extend(self._code(node["c"][1]) if node["t"] == "Code" else [node])
        return {"t": "Para", "c": lines}


def _as_sequence(nodes: list[Node]) -> list[Node]:
    """``nodes`` of an emoji sequence's run in ``\\drbsequence`` (its code points are the PDF's text)."""
    return [_raw("\\drbsequence{"), *nodes, _raw("}")]


def _actual_text(nodes: list[Node]) -> list[Node]:
    """A fallback font's run, in ``\\drbactualtext`` when it holds a letter of a script whose glyphs
    are drawn in another order than its characters (:func:`engine.render.fonts.needs_actual_text`):
    XeTeX writes each of its words' characters as the word's ActualText, so the PDF's text is the
    text as written. Only such runs: the others' glyphs are their text, and right-to-left runs
    (TeX--XeT) would read reversed."""
    text = "".join(n["c"] for n in nodes if n.get("t") == "Str")
    return [_raw("\\drbactualtext{"), *nodes, _raw("}")] if needs_actual_text(text) else nodes


def _is_autolink(c: list) -> bool:
    """A link whose text is its URL: pandoc writes it as ``\\url``."""
    return c[1] == [str_node(c[2][0])]


def _pieces(text: str, max_run: int, identifier_run: int) -> list[tuple[str, str]]:
    """``(break command or "", piece)`` pairs that make up ``text``.

    Tokens of at least ``identifier_run`` characters may break after ``.``, ``_``, ``/``, ``\\``, ``-``
    or ``:`` between word characters (``\\drbcodebreak``); any run longer than ``max_run`` also
    every few characters (``\\drbbreak``, see :func:`_break_long`).
    """
    cuts = sorted({m.start() + cut.end() for m in re.finditer(r"\S{%d,}" % max(1, identifier_run), text)  # noqa: UP031
                   for cut in _CODE_BREAK.finditer(m.group())})
    out: list[tuple[str, str]] = []
    for j, (a, b) in enumerate(zip([0, *cuts], [*cuts, len(text)], strict=True)):
        for k, chunk in enumerate(_break_long(text[a:b], max_run)):
            out.append(("\\drbbreak{}" if k else "\\drbcodebreak{}" if j else "", chunk))
    return out


def _break_long(text: str, max_run: int = LONG_RUN) -> list[str]:
    """Split ``text`` so no piece holds more than ``max_run`` characters without a space or CJK glyph.

    A longer run is cut every :data:`BREAK_EVERY` characters or fewer, only between two grapheme
    clusters (Unicode UAX #29 by ICU: a vowel sign, virama or mark stays with its letter, an Indic
    conjunct whole). A run in Thai, Lao, Khmer or Burmese (:data:`_NO_SPACES`) is cut between its
    words (ICU's line breaker and its dictionaries), however short, and a word still longer than
    ``max_run`` between clusters."""
    every = min(BREAK_EVERY, max_run)
    cuts: list[int] = []
    for m in _UNBROKEN_RUN.finditer(text):
        run = m.group()
        if len(run) <= max_run and not _NO_SPACES.search(run):
            continue
        parts = _line_parts(run) if _NO_SPACES.search(run) else [run]
        at = m.start()
        for k, part in enumerate(parts):
            cuts.extend([at] if k else [])
            cuts.extend(at + cut for cut in (_cluster_cuts(part, every) if len(part) > max_run else ()))
            at += len(part)
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def _line_parts(run: str) -> list[str]:
    """``run`` (no spaces) in the pieces between ICU's line break opportunities (root locale: the
    dictionaries for Thai, Lao, Khmer and Burmese words)."""
    from icu4py.breakers import LineBreaker

    return list(LineBreaker(run, "root")) or [run]


def _cluster_cuts(word: str, every: int) -> list[int]:
    """Offsets that cut ``word`` into pieces of at most ``every`` characters, between grapheme
    clusters only (a cluster longer than ``every`` is one piece)."""
    cuts: list[int] = []
    last = prev = 0
    for end in sorted(grapheme_ends(word)):
        if end - last > every and prev > last:
            cuts.append(prev)
            last = prev
        prev = end
    return cuts


# --- the document ------------------------------------------------------------------------------


@functools.cache
def _pandoc_setup() -> tuple[list[int], list[str]]:
    """The pandoc AST version and the writer's no-highlighting option for the bundled pandoc."""
    pandoc = tuple(int(x) for x in re.findall(r"\d+", pypandoc.get_pandoc_version())[:2])
    flag = "--syntax-highlighting=none" if pandoc >= (3, 8) else "--no-highlight"
    return pandoc_api_version(), [flag, "--wrap=none", f"--template={TEMPLATE}"]


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
    """The fixed headings and notes of the report in ``language`` (BCP-47), English if unknown:
    the PDF's and Word document's own labels (``templates/labels.json``) and, from the tables
    report.md is written from, its executive-summary heading (the ``executive_summary`` phrase),
    its Sources heading (:data:`engine.citations.SOURCES_TITLE`), the Sources section's note
    when nothing is cited (the ``no_sources`` phrase) and, from review.md's, the heading of a
    review round (the ``review_round`` template, ``{n}`` its number), so every format says the same words."""
    from engine.citations import SOURCES_TITLE
    from engine.offline_phrases import PHRASES, phrase

    code = chinese_variant(language)  # zh-TW, zh-Hant-HK: Traditional Chinese; zh-CN: Chinese
    code = code if code == TRADITIONAL else code.lower().split("-")[0].split("_")[0]
    return {**LABELS.get(code, LABELS["en"]), "summary": phrase("executive_summary", code),
            "sources": SOURCES_TITLE.get(code, SOURCES_TITLE["en"]), "nosources": phrase("no_sources", code),
            "iteration": PHRASES["review_round"].get(code, PHRASES["review_round"]["en"])}


def document_labels(doc: ReportDocument) -> dict[str, str]:
    """:func:`labels_for` the document's language, with the labels its report.md writes as written
    (``doc.labels``), its own note under an empty Sources list (``doc.no_sources``, as report.md says
    it) and under an appendix without rounds (``doc.review_absent``)."""
    labels = labels_for(doc.language)
    written = {key: text for key, text in doc.labels.items() if key in labels and text.strip()}
    return {**labels, **written, "nosources": doc.no_sources.strip() or labels["nosources"],
            "noreview": labels[doc.review_absent]}


def field_label(doc: ReportDocument, labels: Mapping[str, str], key: str) -> list[Node]:
    """Pandoc inlines of the label of the front field ``key`` (``date``, ``question``,
    ``clarification``) as report.md writes it, the PDF's and the Word document's alike: the label of
    ``labels`` (:func:`document_labels`) and its colon bold (``**Date :**``), or, when report.md writes
    the colon after the bold (``doc.label_colons``: ``**Date** : …``), the label bold and the colon
    after it not, with the spacing before it (a breaking one a space, a no-break one kept); the colon
    is the one report.md writes, ASCII or full-width (``doc.bold_colons``: ``**日期：**``, ``**日期:**``).
    A label report.md does not write takes the language's colon (``labels["colon"]``: French
    ``Date\u00a0:``, Chinese and Japanese ``日期：``)."""
    colon = doc.label_colons.get(key, "")
    after = plain_inlines(colon)
    if after and BREAKING_SPACE.match(colon):  # "**Date** :": the space before the colon, which plain_inlines drops
        after = [{"t": "Space"}, *after]
    # as written, its spacing in the label
    own = doc.bold_colons.get(key, ":") if doc.labels.get(key, "").strip() else labels["colon"]
    return [{"t": "Strong", "c": plain_inlines(labels[key] + ("" if colon else own))}, *after]


class LatexSource(str):
    """The text of ``report.tex`` (a ``str``), with ``placeholders``: each cluster (a character with
    its marks, an emoji sequence) that no installed font has and that the text shows as a
    placeholder instead, in the order first met (:attr:`engine.render.fonts.FontPlan.placeholders`)."""

    placeholders: tuple[str, ...]

    def __new__(cls, text: str, placeholders: tuple[str, ...] = ()) -> LatexSource:
        """``text`` with its ``placeholders``."""
        source = super().__new__(cls, text)
        source.placeholders = tuple(placeholders)
        return source


def render_latex(doc: ReportDocument, cancel: threading.Event | None = None) -> LatexSource:
    """Render ``doc`` to the text of ``report.tex`` (XeLaTeX, UTF-8) through the report template.

    Markdown fields are parsed by pandoc (GitHub-flavoured, no raw LaTeX, no math) and every
    string, plain or Markdown, reaches LaTeX only through pandoc's escaping. Characters the main
    font lacks are set in an installed font that has them (found through fontconfig), and
    anything no font has becomes a visible placeholder (``[emoji: rocket]``), listed in the
    result's ``placeholders`` (:class:`LatexSource`) so that the PDF's warnings can say so.

    Each pandoc call is stopped as soon as ``cancel`` is set, and none starts after it.

    Raises:
        engine.render.pandoc.PandocCancelled: ``cancel`` was set first.
        RuntimeError: pandoc could not run (see :func:`engine.render.pandoc.run_pandoc`; not caught here).
    """
    labels = document_labels(doc)
    texts = [doc.title, doc.question, doc.clarification, doc.executive_summary, doc.body, doc.notice or "",
             *(s.title for s in doc.sources), *(getattr(r, f) for r in doc.review for f in REVIEW_FIELDS),
             *labels.values()]
    plan = FontPlan(doc.language, texts, installed_faces())
    typeset = _Typesetter(plan)
    cited = {s.number for s in doc.sources}
    fields = itertools.count()

    def markdown(text: str, level: int, keep_ids: bool = False) -> list[Node]:
        blocks = parse_markdown(text, cancel)
        if keep_ids and blocks and blocks[0]["t"] == "Header" and blocks[0]["c"][0] == 1 and (
                stringify(blocks[0]["c"][2]).split() == doc.title.split()):
            blocks = blocks[1:]  # the report's own title, already on top
        blocks = share_notes(Sanitizer(level, keep_ids, cited).blocks(blocks), f"drbnote{next(fields)}",
                             note_keys(clean_text(text)))
        return typeset.inlines(blocks)

    def plain(text: str) -> list[Node]:
        return typeset.inlines(plain_inlines(text))

    def front(key: str) -> list[Node]:
        """A line under the title: its Markdown as report.md writes it, else its plain text."""
        written = doc.front_markdown.get(key)
        return typeset.inlines(field_inlines(written, cancel)) if written else plain(getattr(doc, key))

    def field_blocks(text: str) -> list[Node]:
        return markdown(text, 4) or [{"t": "Para", "c": plain(labels["none"])}]

    meta: dict[str, object] = {
        "title": front("title") or plain(doc.question.split("\n")[0][:120]) or plain("Report"),
        # the PDF's title property: plain words (hyperref drops the commands of markup, with a warning)
        "pdftitle": plain(doc.title) or plain(doc.question.split("\n")[0][:120]) or plain("Report"),
        "date": front("date") if doc.date.strip() else (),  # none written: no date line (left out below)
        "labels": {k: plain(v) for k, v in labels.items()},
        # a field's label with its colon, spaced and bold as report.md writes it ("**Date :**", "**Date** :")
        "fieldlabels": {k: typeset.inlines(field_label(doc, labels, k)) for k in ("date", "question", "clarification")},
        "mainfont": plan.main, "sansfont": plan.sans, "monofont": plan.mono,
    }
    if doc.notice and doc.notice.strip():
        meta["notice"] = plain(doc.notice)
    if question := front("question"):  # a report without a question shows no Question line, as in Word
        meta["question"] = question
    if clarification := front("clarification"):
        meta["clarification"] = clarification
    if summary := markdown(doc.executive_summary, 2):
        meta["summary"] = summary
    body = markdown(doc.body, 1, keep_ids=True)
    meta["review"] = tuple(
        {"heading": plain(labels["iteration"].format(n=r.iteration)),
         **{key: field_blocks(getattr(r, f)) for f, key in REVIEW_FIELDS.items()}}
        for r in doc.review)
    meta["sources"] = tuple({"number": str(s.number), "entry": _source_entry(s.title, s.url, typeset)}
                            for s in doc.sources)
    meta["sourcesection"] = doc.sources_section  # a report.md without one shows none
    meta.update(_language_meta(doc.language, plan))
    meta = {k: v for k, v in meta.items() if v != ()}
    version, args = _pandoc_setup()
    document = {"pandoc-api-version": version, "meta": {k: _meta(v) for k, v in meta.items()}, "blocks": body}
    tex = convert_text(json.dumps(document), WRITER, "json", extra_args=args, cancel=cancel)
    return LatexSource(tex, tuple(plan.placeholders))


def _language_meta(language: str, plan: FontPlan) -> dict[str, object]:
    """The template's ``lang`` (a BCP 47 tag only), ``linebreaklocale`` and the fallback fonts
    (one per family the text needs, with its script and, for CJK, its sans face)."""
    meta: dict[str, object] = {}
    if re.fullmatch(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*", language):
        meta["lang"] = language
    if plan.linebreak_locale:
        meta["linebreaklocale"] = plan.linebreak_locale
    meta["fallback"] = tuple({"family": family, "command": cmd, "font": cmd.replace("fallback", "font"),
                              **({"script": script} if (script := script_of(family)) else {}),
                              **({"sans": plan.cjk[1]} if family == plan.cjk[0] and plan.cjk[1] in plan.faces else {})}
                             for family, cmd in plan.used.items())
    return meta


REVIEW_FIELDS = {"what_changed": "changed", "critiques": "critiques", "answers": "answers",
                  "open_objections": "objections"}


def _source_entry(title: str, url: str, typeset: _Typesetter) -> list[Node]:
    """``Title`` then the link on its own line; a source without a web address is named as text
    on one line (:func:`engine.source_links.source_text`: ``Title (sub/doc.md)``)."""
    href = web_link(url)
    link = url_inlines(href) if href else []
    heading = plain_inlines(title if href else source_text(title, url))
    inlines = [*heading, {"t": "LineBreak"}, *link] if heading and link else heading or link
    return typeset.inlines(inlines)
