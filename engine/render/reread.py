"""Read a (possibly hand-edited) report.md back into a ReportDocument: title, summary, body, Sources list."""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

from engine.artifacts import ROLE_HEADING_LEVEL, review_rounds, split_notice
from engine.citations import SOURCES_TITLE
from engine.headings import DEEPEST, heading_levels, shift_headings, split_lines, top_headings
from engine.language import detect_language
from engine.offline_phrases import PHRASES
from engine.render import ReportDocument, SourceEntry
from engine.render.markdown import clean_text, field_text, heading_text
from engine.text import markdown_unescape, ordinary_spaces, split_urls, squeeze

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$", re.MULTILINE)
_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_ENTRY = re.compile(r"^\s*(?:(\d+)[.)]|\[(\d+)\])\s+(.+?)\s*$")
#: The colons a label may end with: the ASCII one, and the full-width one (U+FF1A) that Chinese and
#: Japanese write after a label, with no space before it (``**日期：**``). Either reads with the
#: labels of any language: a person may type either.
COLONS = ":："
#: A line ``**Label:** text`` or ``**Label**: text`` (the colon after the bold, spaces or character
#: references before it: ``**Date** :``, ``**Date**&nbsp;:``), either colon of :data:`COLONS`: a field
#: of the lines under the title, which one paragraph may hold several of. A label with its colon after
#: the bold neither starts nor ends with whitespace, which would leave its stars as text (CommonMark
#: 0.31, §6.2: no such run is flanking): ``**Date **:`` is no label.
_FIELD = re.compile(rf"[ \t]*\*\*(?:([^*\n]{{1,20}})([{COLONS}])\*\*|([^*\s]|[^*\s][^*\n]{{0,18}}[^*\s])\*\*"
                    rf"((?:\s|&#?\w{{1,8}};)*)([{COLONS}]))[ \t]*(.*)")
#: A line that starts a block of its own (a heading, fence, quote, list, HTML): no field's text goes on in it.
_BLOCK_START = re.compile(r" {0,3}(?:#{1,6}(?:[ \t]|$)|```|~~~|>|[-+*](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)|<)")


class ReportFileError(ValueError):
    """The file cannot be read as a report: missing, unreadable, not UTF-8 text, or empty."""


@dataclass
class _Heading:
    level: int
    text: str
    start: int
    end: int


def _headings(text: str) -> list[_Heading]:
    """ATX headings outside fenced code blocks."""
    fences = [(m.start(), m.end()) for m in _FENCE.finditer(text)]
    return [_Heading(len(m.group(1)), m.group(2).strip(), m.start(), m.end()) for m in _HEADING.finditer(text)
            if not any(a <= m.start() < b for a, b in fences)]


class _AsWritten(MarkdownIt):
    """A CommonMark parser (markdown-it) whose links keep their destination as the file writes it:
    escapes and character references resolved (CommonMark 0.31, §6.3), neither percent-encoded
    nor refused for its scheme (:func:`engine.source_links.web_link` decides what is a link)."""

    def normalizeLink(self, url: str) -> str:  # noqa: N802 (markdown-it's name)
        return url

    def validateLink(self, url: str) -> bool:  # noqa: N802
        return True


_LINK_PARSER = _AsWritten("commonmark")


def _plain(tokens: list) -> str:
    """What a reader sees of inline tokens: their text and code, markup gone, a break as a space."""
    return "".join(t.content if t.type in ("text", "code_inline", "html_inline") else
                   " " if t.type in ("softbreak", "hardbreak") else _plain(t.children or []) if t.type == "image" else ""
                   for t in tokens)


def _or_url(title: str, url: str) -> str:
    """``title``, or ``url`` when the title shows nothing (empty, or no-break spaces alone)."""
    return title if title.strip() else url


def parse_entry(text: str) -> tuple[str, str]:
    """``(title, url)`` of one Sources entry after its number, read as CommonMark inline text:
    ``[title](url)`` in any form of link destination (``<a b>``, ``a\\)b``, ``(x)``, ``&amp;``,
    a title ``"t"``), an autolink ``<url>`` or a bare http(s) URL beside the title (as GFM's
    autolink extension finds one: :func:`engine.text.split_urls`); ``url`` is "" when the entry
    names none, and the title is then the whole entry's text. A bare URL is taken out of the title
    only when it stands beside it, spaces around it (``Title https://…``, ``https://… — Title``); one
    inside other text (``Title (https://…)``, ``[a](https://… b)``, no link in CommonMark) leaves the
    entry's text whole, as written.
    """
    tokens = _LINK_PARSER.parseInline(text)[0].children or []
    opens = [k for k, t in enumerate(tokens) if t.type == "link_open"]
    if opens:
        first = opens[0]
        close = next(k for k in range(first, len(tokens)) if tokens[k].type == "link_close")
        url = str(tokens[first].attrGet("href") or "")
        if tokens[first].markup == "autolink":  # ``title <url>``: the title beside it
            return _or_url(squeeze(_plain(tokens[:first] + tokens[close + 1:])).strip(" -–—:"), url), url
        return _or_url(squeeze(_plain(tokens)), url), url
    plain = _plain(tokens)
    pieces = split_urls(plain)
    at = next((k for k, (is_url, _) in enumerate(pieces) if is_url), None)
    if at is None:
        return squeeze(plain), ""
    url = pieces[at][1]
    before, after = "".join(p for _, p in pieces[:at]), "".join(p for _, p in pieces[at + 1:])
    if (before and not before[-1].isspace()) or (after and not after[0].isspace()):
        return squeeze(plain), url  # inside other text ("(https://…)", "[a](https://… b)"): as written
    return _or_url(squeeze((before + after).strip(" -–—:")), url), url


def parse_sources(section: str) -> list[SourceEntry] | None:
    """Entries of a Sources list (``n. [title](<url>)``, ``[n] title url``: :func:`parse_entry`);
    None if it is not one."""
    entries, notes = [], 0
    for line in (ln for ln in section.splitlines() if ln.strip()):
        m = _ENTRY.match(line)
        if not m:
            notes += 1  # one line alone is the "no sources" note: the list is empty
            continue
        title, url = parse_entry(m.group(3))
        entries.append(SourceEntry(int(m.group(1) or m.group(2)), title, url))
    if notes and (entries or notes > 1):
        return None  # prose, not the generated list
    return entries


def _field(line: str) -> tuple[str, str, bool, str] | None:
    """``(label, colon, bold, text)`` of a line ``**Label:** text`` or ``**Label** : text``
    (:data:`_FIELD`), as Markdown reads it (``&nbsp;`` the no-break space it stands for): ``label``
    the bold text without its colon, the spacing before a colon in the bold kept (``"Date "`` of
    ``**Date :**``); ``colon`` the colon as written (``":"``, ``"："``), with the spacing written
    before it when it is after the bold (``" :"``, ``"\u00a0:"``); ``bold`` whether the colon is in
    the bold; None for any other line."""
    m = _FIELD.fullmatch(line)
    if not m:
        return None
    if m.group(1) is not None:  # "**Date:**", "**Date :**", "**日期：**"
        return html.unescape(m.group(1)), m.group(2), True, m.group(6)
    gap = html.unescape(m.group(4))  # "**Date**&amp;:": none
    return None if gap.strip() else (html.unescape(m.group(3)), gap + m.group(5), False, m.group(6))


def _front_matter(text: str) -> tuple[str, dict[str, str], dict[str, str], dict[str, str], dict[str, str]]:
    """``(text without them, {"date": ..., "question": ..., "clarification": ...}, labels, colons,
    bold colons)``: the ``**Date:** …``, ``**Question:** …`` and ``**Clarification:** …`` fields
    (labels of any language, with or without spaces before the colon as French writes them:
    ``**Date :**``, with the colon in the bold or after it: ``**Date**: …``, ``**Date** : …``, the
    colon ASCII or full-width as Chinese and Japanese write it: ``**日期：**``) that open a report.md after
    its title and notice (:func:`engine.artifacts.front_matter` writes each as a paragraph; one
    paragraph may hold several, each on a line of its own, and a field's text goes on to the end of
    its paragraph or to the next such line), their Markdown as written (a date in any form), each
    field on one line, the clarifications (one per question asked) one line each; ``labels`` the
    label of each key as the file writes it in bold, its spacing included (``{"date": "Datum"}``,
    ``{"date": "Date "}``); ``colons`` the colon of each key whose label has it after the bold, with
    the spacing before it as written (``{"date": " :"}`` for ``**Date** : …``; :func:`_field`);
    ``bold colons`` the colon of each key whose label has it in the bold (``{"date": "："}`` for
    ``**日期：** …``). The first field of a key gives its label; a line that is no field of a key not
    yet read (a second date, ``**Note**: …``) and all after it are the body's, as written."""
    from engine.render.latex import LABELS

    keys = ("date", "question", "clarification")
    names = {labels[key].lower(): key for labels in LABELS.values() for key in keys}
    found: dict[str, str] = {}
    written: dict[str, str] = {}
    colons: dict[str, str] = {}
    bold_colons: dict[str, str] = {}
    lines = text.split("\n")
    at = 0
    while True:
        while at < len(lines) and not lines[at].strip():
            at += 1
        field = _field(lines[at]) if at < len(lines) else None
        key = names.get(field[0].strip().lower()) if field else None  # "**Date :**": French spacing
        if key is None or (key in found and key != "clarification"):  # one clarification per question asked
            return "\n".join(lines[at:]), found, written, colons, bold_colons
        label, colon, bold, first = field
        parts = [first]
        at += 1
        # the field's text goes on to the end of its paragraph or the next line ``**Label:** …``
        while at < len(lines) and lines[at].strip() and not _field(lines[at]) and (
                not _BLOCK_START.match(lines[at])):
            parts.append(lines[at])
            at += 1
        line = squeeze(" ".join(parts))
        found[key] = f"{found[key]}\n{line}" if key in found else line
        if key not in written:
            written[key] = label
            (bold_colons if bold else colons)[key] = colon


def report_language(labels: dict[str, str], notice: str | None, prose: str, recorded: str | None = None) -> str:
    """The language a report.md is written in (BCP-47 code), told by what the report says of itself.

    ``labels`` are its labels as written (keys of :func:`engine.render.latex.labels_for`: ``date``,
    ``question``, ``clarification``, ``summary``, ``sources``; each the catalogue's word of one or
    more languages) and ``notice`` its offline notice (the ``offline_notice`` phrase of one language).
    The languages whose words they are, most of them first, are the candidates; among several
    (French and English both say "Date" and "Sources"), ``recorded`` (the language the run recorded:
    usage.json's ``language``, review.md's title line) when it is one of them (a language without
    labels of its own, Korean, writes English ones), else the language of ``prose`` when it is one,
    else the first in :data:`engine.offline_phrases.LANGUAGES` order. Without labels or notice:
    ``recorded``, else the language of ``prose`` (:func:`engine.language.detect_language`). The prose
    alone never overrides the labels: a German report quoting English documents reads as English.
    """
    from engine.offline_phrases import LANGUAGES
    from engine.render.latex import LABELS, labels_for

    languages = list(dict.fromkeys([*([recorded] if recorded else []), *LANGUAGES, *LABELS]))
    votes = {code: sum(labels_for(code)[key].lower() == text.strip().lower() for key, text in labels.items())
             + (notice is not None and ordinary_spaces(PHRASES["offline_notice"].get(code, "")) == ordinary_spaces(notice))
             for code in languages}
    best = max(votes.values(), default=0)
    candidates = [code for code in languages if best and votes[code] == best]
    if not candidates:
        return recorded or detect_language(prose[:4000], default="en")
    if recorded in candidates or len(candidates) == 1:
        return recorded if recorded in candidates else candidates[0]
    guessed = detect_language(prose[:4000], default="")
    return guessed if guessed in candidates else next(c for c in [*LANGUAGES, *candidates] if c in candidates)


def document_from_markdown(markdown: str, *, question: str = "", date: str = "", review: list | None = None,
                           language: str | None = None, recorded: str | None = None) -> ReportDocument:
    """The parts of a report.md as ``deepresearch ask`` writes it, edits included.

    The title is the first level-1 heading at the top (its words; its Markdown, when it has any, in
    ``front_markdown["title"]``); the ``**Date:**``, ``**Question:**`` and
    ``**Clarification:**`` paragraphs under it (and the notice) give the date, the question (before
    the ``question`` and ``date`` passed) and the clarifying questions asked with their answers (their
    plain text, and their Markdown as written in ``front_markdown``, shown with it); an
    executive summary is the first level-2 section when its heading is the summary label in any
    language and text stands under it (a summary heading with nothing under it is a heading of the
    body, and a report without one has no summary: the outputs show no section it does not have);
    the Sources list is the last level-2 section when its heading is a Sources label and every line
    in it is a numbered entry (a "Sources" heading elsewhere is body text), or the one line saying
    that none is cited (``no_sources``, shown as written); a report without one shows none
    (``sources_section``). The body's ``[n]`` markers link to the
    entries whose numbers they name, exactly as written.

    A report with no date written nor passed has none (``date`` ""): the outputs show no date line,
    never one it did not have.

    The labels (``Datum``, ``Zusammenfassung``, ``Quellen``) are kept as written (``labels``) and
    tell the report's language (:func:`report_language`, ``recorded`` the language the run
    recorded, if known), unless ``language`` is given.
    """
    text = clean_text(markdown).strip("\n") + "\n"
    title = written_title = ""
    heads = _headings(text)
    if heads and heads[0].level == 1 and not text[:heads[0].start].strip():
        written_title, text = heads[0].text, text[heads[0].end:]
        title = heading_text(written_title)
    text, notice = split_notice(text)
    text, front, labels, colons, bold_colons = _front_matter(text)
    front = {key: line for key, line in front.items() if field_text(line).strip()}  # "**Date:**" alone: none
    if title and written_title != title:  # markup or escapes in the title: shown as the body shows them
        front["title"] = written_title
    shown = {key: field_text(line) for key, line in front.items()}  # the words, markup gone: "**3 March**" → "3 March"
    question = shown.get("question") or question
    clarification = shown.get("clarification", "")
    date = shown.get("date") or date  # as written: "1 March 2021 (revised)" too
    heads = _headings(text)
    sources: list[SourceEntry] = []
    no_sources = ""
    has_sources = False  # without a Sources section, the outputs show none: none is made up
    top = [h for h in heads if h.level <= 2]
    if top and top[-1].level == 2:
        match = any(label.lower() == top[-1].text.lower() for label in SOURCES_TITLE.values())
        parsed = parse_sources(text[top[-1].end:]) if match else None
        if parsed is not None:  # a list, or the one line saying that nothing is cited: shown as written
            no_sources = "" if parsed else markdown_unescape(squeeze(text[top[-1].end:]))
            sources, labels["sources"], text = parsed, top[-1].text, text[:top[-1].start]
            has_sources = True
    summary = ""
    heads = [h for h in _headings(text) if h.level <= 2]
    names = {label.lower() for label in PHRASES["executive_summary"].values()}
    if heads and heads[0].level == 2 and heads[0].text.lower() in names and not text[:heads[0].start].strip():
        end = heads[1].start if len(heads) > 1 else len(text)
        if text[heads[0].end:end].strip():  # an empty one is a heading as written, in the body
            summary, labels["summary"], text = text[heads[0].end:end].strip(), heads[0].text, text[end:]
    body = text.strip()
    language = language or report_language(labels, notice, " ".join([title, summary, body]), recorded)
    return ReportDocument(title=title, question=question, date=date,
                          executive_summary=summary, body=body, review=review or [], sources=sources,
                          language=language, notice=notice, no_sources=no_sources, clarification=clarification,
                          labels=labels, label_colons=colons, bold_colons=bold_colons, sources_section=has_sources,
                          front_markdown=front)


def _alternatives(key: str, number: str = r"(\d+)") -> str:
    """A regex matching the phrase ``key`` of any language, its ``{n}`` as ``number`` (a captured
    number unless told otherwise)."""
    texts = set(PHRASES[key].values())
    return "|".join(re.escape(t).replace(re.escape("{n}"), number) for t in sorted(texts, key=len, reverse=True))


def review_state_from_markdown(markdown: str) -> dict:
    """What a run's review.md (as :func:`engine.artifacts.review_markdown` writes it, its headings in
    any language of :data:`engine.offline_phrases.LANGUAGES`) holds, as the run's state has it:
    ``question``, the roles' texts ``solutions``, ``critiques`` and ``perspectives`` in order,
    ``numbering`` (``{id: n}`` of the sources the legend says the report cites: ``(source n of the
    report)``) and ``language`` (of its title line).

    The file's own headings split it (a round's ``##``, a role's ``###``, the legend's ``##``), as
    a Markdown reader finds them: a line in a code block that reads like one does not. A role's
    headings go back up the :data:`~engine.artifacts.ROLE_HEADING_LEVEL` levels review.md moved them
    down, so a text comes back as the role wrote it (a setext heading as the same ATX one; one the
    role wrote below level 3, which review.md keeps at level 6, at level 3); a text with a heading at
    level 1 to 3 (review.md of an earlier version, or edited) is read as written.
    """
    first = markdown.split("\n", 1)[0]
    heads = {f"# {text.split('{q}')[0]}": lang for lang, text in PHRASES["review_of"].items()}
    head = next((h for h in sorted(heads, key=len, reverse=True)
                 if ordinary_spaces(first).startswith(ordinary_spaces(h))), None)
    question = markdown_unescape(first[len(head):].strip()) if head else ""
    roles = {PHRASES[f"role_{role}"][lang]: role for role in ("solution", "critique", "perspective")
             for lang in PHRASES[f"role_{role}"]}
    kinds = {2: {"round": re.compile(_alternatives("review_round", number=r"\d+")),
                 "legend": re.compile(_alternatives("review_legend"))},
             ROLE_HEADING_LEVEL: {"role": re.compile(f"({'|'.join(re.escape(name) for name in roles)})(?: \\([^)]*\\))?")}}
    marks = [(kind, h, m) for h in top_headings(markdown) for kind, pattern in kinds.get(h.level, {}).items()
             if (m := pattern.fullmatch(h.text))]
    lines = split_lines(markdown)
    lists: dict[str, list[str]] = {"solution": [], "critique": [], "perspective": []}
    legend, section = "", ""
    for k, (kind, heading, match) in enumerate(marks):
        content = "".join(lines[heading.end:marks[k + 1][1].start if k + 1 < len(marks) else len(lines)])
        section = kind if kind != "role" else section
        if kind == "legend":
            legend += content
        elif kind == "role" and section == "round":
            text = content.strip()
            if min(heading_levels(text), default=DEEPEST) > ROLE_HEADING_LEVEL:
                text = shift_headings(text, -ROLE_HEADING_LEVEL)
            lists[roles[match.group(1)]].append(text)
    numbering = {m.group(1): int(next(g for g in m.groups()[1:] if g)) for m in re.finditer(
        rf"^- \[(S[0-9a-f]{{6}})\] .* (?:{_alternatives('source_of_report')})\s*$", legend, re.MULTILINE)}
    return {"question": question, "solutions": lists["solution"], "critiques": lists["critique"],
            "perspectives": lists["perspective"], "numbering": numbering, "language": heads[head] if head else "en"}


def review_from_markdown(markdown: str) -> tuple[str, list]:
    """``(question, review rounds)`` from a run's review.md (:func:`review_state_from_markdown`); the
    appendix's own notes are in the language of its title line.

    Source ids that the legend says the report cites (``(source n of the report)``) read as ``[n]``.
    """
    state = review_state_from_markdown(markdown)
    return state["question"], review_rounds(state)


def read_report(path: Path) -> ReportDocument:
    """The report at ``path`` (report.md), with the question, review and date of its run when beside it.

    ``review.md`` gives the question and the review appendix, ``usage.json`` the run's date; the
    language the run recorded (usage.json's ``language``, else review.md's) settles the report's
    language where its labels are words of several (:func:`report_language`).
    Without a readable review.md the appendix says that the review record was not beside the
    report (``review_absent``), not that the report was not reviewed.

    Raises:
        ReportFileError: ``path`` is missing, unreadable, not UTF-8 or blank.
    """
    path = Path(path)
    try:
        markdown = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ReportFileError(f"{path} is not UTF-8 text") from None
    except IsADirectoryError:
        raise ReportFileError(f"{path} is a folder, not a report.md") from None
    except FileNotFoundError:
        raise ReportFileError(f"{path} does not exist") from None
    except OSError as err:
        raise ReportFileError(f"cannot read {path}: {err.strerror or err}") from None
    if not markdown.strip():
        raise ReportFileError(f"{path} is empty")
    question, review, date, review_absent, recorded = "", [], "", "noreview", None
    try:
        state = review_state_from_markdown((path.parent / "review.md").read_text(encoding="utf-8"))
        question, review = state["question"], review_rounds(state)
        recorded = state["language"] if question or review else None  # a title line it could read
    except (OSError, UnicodeDecodeError):  # the report may say it was reviewed: the appendix says the record is away
        review_absent = "review_not_beside"
    try:
        usage = json.loads((path.parent / "usage.json").read_text(encoding="utf-8"))
        date = str(usage.get("generated_at", ""))[:10]
        recorded = usage["language"] if isinstance(usage.get("language"), str) and usage["language"] else recorded
    except (OSError, ValueError, AttributeError):
        pass
    doc = document_from_markdown(markdown, question=question, review=review, recorded=recorded,
                                 date=date if re.fullmatch(r"\d{4}-\d\d-\d\d", date) else "")
    doc.review_absent = review_absent
    return doc
