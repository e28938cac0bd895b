"""The offline model's final synthesis: the report's findings, then what the review left open.

:func:`finalize` writes the final report from the research report, the review rounds
(:mod:`engine.offline_review`: solution, critique, perspective) and the sources found: the review's
outcome, the last critique's points the report settles, and the open objections, each checked
against the report itself (:func:`still_open`). :func:`read_sources` tells a report whose run read
no source.
"""

from __future__ import annotations

import re

from engine.citations import SID
from engine.offline_phrases import phrase
from engine.offline_quotes import _QUOTED, _unquoted
from engine.offline_review import (
    found_sources,
    listed_titles,
    phrase_fields,
    reads_as,
    tag_content,
    unanswered,
)
from engine.offline_text import _cited_sentences
from engine.text import markdown_unescape, ordinary_spaces


def _is_sources_count_point(point: str, language: str) -> bool:
    """True for the critique's point counting the sources the solution cites of those found (in either
    form): the synthesis counts the report's own instead. Not the point that the solution rests on one
    source, an objection the report may still give cause for (:func:`_still_raised`)."""
    return reads_as(point, ("unused_sources", "all_sources_used"), language)


def finalize(prompt: str, language: str, notice: str) -> str:
    """The final synthesis: the research report's findings, then the review's outcome (rounds, the
    sources the report cites of those found, counted here, the last critique's other points) and
    the open objections.

    The open objections agree with the last critique: each of its points (up to five) the final report
    still gives cause for (:func:`_still_raised`) is open, said by the critique there and only there; the
    review's outcome quotes the critique's other points, a point the report settles (the report quotes
    no longer the code line, names the word, has a second source on the topic) marked so. The point that
    the solution rests on one source is left out when a point names the topic on one source. After them come the last perspective's objections the
    report does not answer (:func:`still_open`), less one naming the same words of the question as an
    open point of the critique. "(none)" only when nothing is open and the report quotes a finding;
    when it quotes none, that it quotes none."""
    report, review = tag_content(prompt, "Research Report"), tag_content(prompt, "Review")
    lines = report.splitlines()
    title = next((ln for ln in lines if ln.startswith("# ")), "# Research report")
    body = [ln for ln in lines if not ln.startswith("# ") and notice not in ln and "offline extractive" not in ln]
    findings = "\n".join(body)
    rounds = len(re.findall(r"^### Solution", review, re.MULTILINE))
    last_critique = review.rsplit("### Critique", 1)[-1] if "### Critique" in review else ""
    last_critique = last_critique.split("### Perspective", 1)[0]
    points = [re.sub(r"^\d+\.\s*", "", ln.strip()) for ln in last_critique.splitlines() if re.match(r"^\d+\.", ln.strip())]
    points = [p for p in points if not _is_sources_count_point(p, language)]
    if any(reads_as(p, ("single_source_topic",), language) for p in points):  # it says where: said once
        points = [p for p in points if not reads_as(p, ("one_source",), language)]
    points = points[:5]
    raised = [_still_raised(p, findings, language) for p in points]
    role = phrase("role_critique", language)
    open_points = [phrase("role_says", language, role=role, text=p) for p, r in zip(points, raised, strict=True) if r]
    asked = {_words_of(p, language) for p, r in zip(points, raised, strict=True) if r} - {None}
    last_persp = review.rsplit("### Perspective", 1)[-1] if "### Perspective" in review else ""
    objections = [ln for ln in still_open(last_persp, findings, language).splitlines()
                  if _words_of(ln, language) not in asked][:4]  # said once: the critique said it
    out = [title, "", f"*{notice}*", ""] + body
    out += ["", f"## {phrase('review_outcome', language)}", "",
            phrase("sources_outcome", language, rounds, n=str(rounds),
                   sources=_report_sources(findings, tag_content(prompt, "Sources"), language)).strip(), ""]
    # an open point is said once, under the open objections; above it, what the critique said that is not open
    told = [(p, r) for p, r in zip(points, raised, strict=True) if r is not True]
    if told:
        settled = " " + phrase("settled_in_report", language)
        out += [phrase("last_critique", language), ""] + [
            f"{i}. {p}{'' if r is not False else settled}" for i, (p, r) in enumerate(told, 1)]
    # a report that quotes nothing leaves the question itself open: never "(none)"
    quiet = phrase("none", language) if any(SID.search(ln) for ln in body) else phrase("no_claims", language)
    opened = [f"- {ln}" for ln in open_points] + objections
    out += ["", f"## {phrase('open_objections', language)}", ""] + (opened or [f"- {quiet}"])
    return "\n".join(out).replace("\n\n\n", "\n\n") + "\n"


def _in_report(quoted: str, report: str) -> bool:
    """True when ``report`` (Markdown) carries the text a review quote ``quoted`` (its marks included)
    quotes, as :func:`_answered_by` reads one: its start up to a shortening "…", quotation marks alike."""
    text = (_QUOTED.findall(quoted) or [quoted])[0].rstrip("…").strip()
    return bool(text) and _unquoted(text) in _unquoted(report)


def _still_raised(point: str, report: str, language: str) -> bool | None:
    """Whether the final report (``report``: its findings, Markdown, source ids as minted) still gives
    cause for a point of the last critique: the words of the question it names that no claim of the
    report mentions (:func:`unanswered`); a code line, a sentence whose subject is lost, a claim without
    a citation, or two differing figures, while the report quotes them; a topic on one source while the
    report's findings under its heading cite one; the solution resting on one source while the report
    cites one or none. None for a point that objects to nothing (the critique found no flaw, or nothing
    to check: the report then says it quotes no finding); True for a point in no form the offline
    critique writes (it stays open)."""
    if reads_as(point, ("no_flaw", "nothing_to_check"), language):
        return None
    if (f := phrase_fields(point, "unanswered", language)) is not None:
        words_ = [markdown_unescape(w) for w in _QUOTED.findall(f["terms"])]
        claims = [c for c in _cited_sentences(report) if SID.search(c)]
        return bool(unanswered(" ".join(words_), claims, language)) if words_ else True
    for key in ("code_line", "dangling"):
        if (f := phrase_fields(point, key, language)) is not None:
            return _in_report(f["q"], report)
    if (f := phrase_fields(point, "uncited", language)) is not None:
        return _in_report(f["example"], report)
    if (f := phrase_fields(point, "numbers_differ", language)) is not None:
        return _in_report(f["a"], report) and _in_report(f["b"], report)
    if (f := phrase_fields(point, "single_source_topic", language)) is not None:
        cited = _cited_under(markdown_unescape((_QUOTED.findall(f["topic"]) or [f["topic"]])[0]), report)
        return cited is None or len(cited) <= 1
    if reads_as(point, ("one_source",), language):
        return len(set(SID.findall(report))) <= 1
    return True


def _cited_under(topic: str, report: str) -> set[str] | None:
    """The source ids cited under the report's heading (any level) that names ``topic`` (plain text,
    maybe shortened with "…"), up to the next heading of its level or above; None when no heading
    names it."""
    start = _unquoted(topic.rstrip("…").strip())
    ids: set[str] | None = None
    level = 0
    for line in report.splitlines():
        heading = re.match(r"^(#{1,6})\s+(.*)$", line)
        if heading and ids is not None and len(heading.group(1)) <= level:
            return ids
        if heading and ids is None and start and start in _unquoted(markdown_unescape(heading.group(2))):
            ids, level = set(), len(heading.group(1))
        elif ids is not None:
            ids.update(SID.findall(line))
    return ids


def _words_of(objection: str, language: str) -> frozenset[str] | None:
    """The words of the question an objection says no claim answers (the critique's ``unanswered``
    point or the reader's ``not_addressed`` line, ``- Role: text`` or bare), as a set; None for any
    other objection."""
    text = re.sub(r"^\s*[-*]\s+", "", objection.strip())
    for key in ("unanswered", "not_addressed"):
        for candidate in (text, text.split(":", 1)[-1].strip(), text.split("：", 1)[-1].strip()):
            if (f := phrase_fields(candidate, key, language)) is not None:
                return frozenset(_QUOTED.findall(f["terms"]))
    return None


def still_open(objections: str, report: str, language: str) -> str:
    """The objection lines (``- Role: text``) of a perspective's Markdown ``objections`` that ``report``
    (the final report's findings, Markdown, without its review sections) does not answer
    (:func:`_answered_by`): the report's Open objections, and what its follow-up questions are drawn
    from. Other lines are left out."""
    return "\n".join(ln for ln in objections.splitlines()
                     if ln.strip().startswith("- ") and not _answered_by(ln, report, language))


def _answered_by(objection: str, report: str, language: str) -> bool:
    """True when ``report`` (the final report's Markdown) answers ``objection``: a perspective's
    "… leaves out" line (it cites a source) when the report says every finding it quotes, since the
    final report carries what the solution left out; a line naming words of the question when a
    claim of the report mentions each of them (:func:`unanswered`: its headings, which repeat the
    question, answer nothing). An objection without quotes stays."""
    quoted = [q.rstrip("…").strip() for q in _QUOTED.findall(objection)]
    if not quoted:
        return False
    if SID.search(objection):
        return all(q and _unquoted(q) in _unquoted(report) for q in quoted)  # its quotations nested
    claims = [c for c in _cited_sentences(report) if SID.search(c)]
    return not unanswered(" ".join(quoted), claims, language)


def _report_sources(body: str, sources: str, language: str) -> str:
    """How many of the sources found ``body`` cites, and which it does not (by title)."""
    found, titles, _ = found_sources(sources)
    cited = set(SID.findall(body))
    if not found:
        return ""
    if len(cited) >= found:
        return phrase("all_sources_cited", language, found, m=str(found))
    not_cited = [title for sid, title in titles.items() if sid not in cited]
    return phrase("report_sources", language, found, n=str(len(cited)), m=str(found),
                  titles=listed_titles(not_cited, found - len(cited), language))


def read_sources(report: str, language: str) -> bool:
    """False when the run behind ``report`` (the final report, Markdown, in ``language``) read no
    source: the report cites no source id and says that none was found (the ``no_findings`` phrase
    :func:`engine.offline_text.extractive_report` writes when the search found nothing, or there was
    no search); True otherwise, also when sources were found and none had a passage to quote. The
    phrase is found whatever spaces stand where it has no-break ones (French: an earlier version
    wrote ordinary spaces before ";" and ":")."""
    said = ordinary_spaces(phrase("no_findings", language))
    return bool(SID.search(report)) or said not in ordinary_spaces(report)
