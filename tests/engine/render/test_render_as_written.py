"""`deepresearch render` shows what report.md says: its language and labels, only the sections it has,
and every CommonMark link destination of its Sources list and body as written."""

from __future__ import annotations

import html
import shutil
from pathlib import Path

import panflute as pf
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from bots.cli import app
from engine.citations import Cited, source_id, sources_section
from engine.render.docx import docx_document
from engine.render.latex import LABELS, labels_for, render_latex
from engine.render.reread import document_from_markdown, parse_sources, read_report
from engine.text import squeeze

needs_tex = pytest.mark.skipif(not all(shutil.which(p) for p in ("latexmk", "xelatex", "pdftotext")),
                               reason="latexmk, xelatex and pdftotext are needed")

#: Questions full of English technical words, in the languages report.md has labels for.
QUESTIONS = {
    "de": "Wie bricht asyncio Tasks ab und wie funktionieren Timeouts?",
    "fr": "Comment asyncio annule-t-il les Tasks et gère-t-il les Timeouts ?",
    "es": "¿Cómo cancela asyncio las Tasks y cómo funcionan los Timeouts?",
    "ja": "asyncio は Task をどのようにキャンセルし、Timeout をどう扱いますか？",
    "zh": "asyncio 如何取消 Task 并处理 Timeout？",
    "it": "Come gestisce asyncio la cancellazione dei Task e come funzionano i Timeout?",
    "nl": "Hoe annuleert asyncio Tasks en hoe werken Timeouts?",
    "pt": "Como o asyncio cancela as Tasks e como funcionam os Timeouts?",
    "sv": "Hur avbryter asyncio Tasks och hur fungerar Timeouts?",
}
#: What an offline run quotes from English documents: the report's prose is English whatever its language.
SUMMARY = ("See also LOOPBACK_TIMEOUT, INTERNET_TIMEOUT and SHORT_TIMEOUT. [1] In timeout mode, operations "
           "fail if they cannot be completed within the timeout specified for the socket. [2]")
BODY = ("## Timeouts\n\n- The timeout value depends on the regrtest --timeout command line option. [1]\n"
        "- Invocations with a timeout value of None (the default) set the timeout period to infinite. [2]\n\n"
        "## Cancellation\n\n- Tasks can be cancelled with the cancel() method of the Task object. [2]\n")
STATE = {
    "solutions": ["## Recommendation\n\n- Use asyncio.timeout() [Sabc123]."],
    "critiques": ["1. Cites 2 of 9 sources."], "perspectives": ["- Operator: which timeout wins?"],
    "sources": {"Sabc123": {"title": "Coroutines and Tasks", "url": "https://docs.python.org/3/library/asyncio-task.html"}},
    "numbering": {"Sabc123": 1},
}
#: The keys of the fields under the title.
FRONT_KEYS = ("date", "question", "clarification")
CITED = [Cited(1, "Sabc123", "https://docs.python.org/3/library/asyncio-task.html", "Coroutines and Tasks"),
         Cited(2, "Sdef456", "https://docs.python.org/3/library/socket.html", "socket — Low-level networking")]


def _run(folder: Path, language: str, summary: str = SUMMARY) -> Path:
    """A run's files as ``deepresearch ask`` writes them (report.md, review.md, usage.json, the PDF
    and the Word document) for a ``language`` question whose report quotes English documents."""
    from engine.artifacts import write_artifacts
    from engine.settings import load_settings

    state = {**STATE, "question": QUESTIONS.get(language, "How does asyncio cancel tasks?"),
             "title": QUESTIONS.get(language, "Tasks"), "language": language, "executive_summary": summary,
             "final_report": f"# Title\n\n{BODY}"}
    settings = load_settings(data_dir=folder / "data", llm="offline", search="none")
    paths = write_artifacts(state, CITED, folder / "run", settings, "2026-12-04")
    assert "pdf" in paths and "docx" in paths, paths
    return folder / "run"


def _render(report: Path, out: Path) -> Path:
    result = CliRunner().invoke(app, ["render", str(report), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


# --- the language is the report's own --------------------------------------------------------------


@pytest.mark.parametrize("language", sorted(QUESTIONS))
def test_a_report_in_english_words_keeps_the_language_its_labels_are_written_in(language):
    """The prose reads as English (quotes of English documents); the labels say the report's language."""
    labels = labels_for(language)
    markdown = (f"# {QUESTIONS[language]}\n\n**{labels['date']}:** 2026-12-04\n\n**{labels['question']}:** "
                f"{QUESTIONS[language]}\n\n## {labels['summary']}\n\n{SUMMARY}\n\n{BODY}\n## {labels['sources']}\n\n"
                "1. [Coroutines and Tasks](<https://docs.python.org/3/library/asyncio-task.html>)\n")
    assert document_from_markdown(markdown).language == language
    alone = markdown.split("\n## ", 1)[0] + "\n\nSee LOOPBACK_TIMEOUT and SHORT_TIMEOUT in the test.support module now.\n"
    assert document_from_markdown(alone).language == language  # the labels under the title alone tell it


def test_labels_shared_by_two_languages_are_settled_by_the_runs_record():
    """French and English both say "Date", "Question" and "Sources": the run's record (usage.json's
    ``language``, else review.md's) decides between them; labels of another language win over it."""
    markdown = (f"# T\n\n**Date:** 2026-12-04\n\n**Question:** {QUESTIONS['fr']}\n\n{BODY}\n## Sources\n\n"
                "1. [A](<https://a.example/>)\n")
    assert document_from_markdown(markdown, recorded="fr").language == "fr"
    assert document_from_markdown(markdown, recorded="en").language == "en"
    assert document_from_markdown(markdown.replace("**Date:**", "**Datum:**").replace("**Question:**", "**Frage:**")
                                  .replace("## Sources", "## Quellen"), recorded="fr").language == "de"
    # a language without labels of its own (Korean) writes the English ones: its record still says Korean
    assert document_from_markdown(markdown, recorded="ko").language == "ko"


def test_labels_of_two_languages_each_render_as_written():
    """An edited report whose labels mix languages shows each label as it is written."""
    markdown = (f"# T\n\n**Datum:** 2026-12-04\n\n**Question:** Q?\n\n## Zusammenfassung\n\n{SUMMARY}\n\n"
                f"{BODY}\n## Sources\n\n1. [A](<https://a.example/>)\n")
    doc = document_from_markdown(markdown)
    tex = render_latex(doc)
    for label in (r"\textbf{Datum:}", r"\textbf{Question:}", r"\section{Zusammenfassung}", r"\section{Sources}"):
        assert label in tex, label
    text = pf.stringify(docx_document(doc))
    assert all(w in text for w in ("Datum:", "Question:", "Zusammenfassung", "Sources")), text


@needs_tex
@pytest.mark.parametrize("language", sorted(QUESTIONS))
def test_render_of_an_unedited_report_says_what_ask_wrote(tmp_path, language):
    """`render` of report.md as `ask` left it, in place or elsewhere, makes the PDF and the Word
    document `ask` made, word for word; report.md alone (no record beside it) keeps its labels."""
    from tests.engine.render import fidelity

    run = _run(tmp_path, language)
    out = _render(run / "report.md", tmp_path / "out")
    assert fidelity.pdf_text(out / "report.pdf") == fidelity.pdf_text(run / "report.pdf")
    assert fidelity.docx_text(out / "report.docx") == fidelity.docx_text(run / "report.docx")
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(run / "report.md", alone)
    _render(alone / "report.md", alone)
    labels = labels_for(language)
    english = labels_for("en")
    for text in (fidelity.pdf_text(alone / "report.pdf"), fidelity.docx_text(alone / "report.docx")):
        flat = "".join(text.split())
        for key in ("date", "question", "summary", "sources", "review", "review_not_beside"):
            assert "".join(labels[key].split()) in flat, key
            assert labels[key] == english[key] or "".join(english[key].split()) not in flat, key


# --- only the sections report.md has ---------------------------------------------------------------


def test_a_report_without_a_summary_section_renders_none():
    doc = document_from_markdown("# Notes\n\nJust the text [1].\n\n## Sources\n\n1. [A](<https://a.example/>)\n")
    assert doc.executive_summary == "" and doc.body == "Just the text [1]."
    tex = render_latex(doc)
    assert "Executive summary" not in tex and "This section is empty." not in tex
    text = pf.stringify(docx_document(doc))
    assert "Executive summary" not in text and "This section is empty." not in text and "Just the text" in text


def test_a_summary_heading_with_nothing_under_it_stays_a_heading():
    doc = document_from_markdown("# Notes\n\n## Executive summary\n\n## Findings\n\nText.\n")
    tex = render_latex(doc)
    assert tex.count(r"\section{Executive summary}") == 1 and r"\section{Findings}" in tex
    assert "This section is empty." not in tex


def test_a_report_of_a_title_and_sources_only_adds_no_text():
    doc = document_from_markdown("# Notes\n\n## Sources\n\n1. [A](<https://a.example/>)\n")
    for text in (render_latex(doc), pf.stringify(docx_document(doc))):
        assert "This section is empty." not in text and "Executive summary" not in text


def _rendered_texts(markdown: str, folder: Path) -> tuple[str, str]:
    """The PDF's and the Word document's text of ``markdown`` rendered as ``report.md`` in ``folder``."""
    from tests.engine.render import fidelity

    (folder / "report.md").write_text(markdown, encoding="utf-8")
    _render(folder / "report.md", folder)
    return fidelity.pdf_text(folder / "report.pdf"), fidelity.docx_text(folder / "report.docx")


@needs_tex
def test_hand_written_report_without_summary_renders_only_what_it_says(tmp_path):
    for text in _rendered_texts("# Field notes\n\nThe pump ran quietly [1].\n\n## Sources\n\n"
                                "1. [A site](<https://example.com/a>)\n", tmp_path):
        assert "Executive summary" not in text and "This section is empty." not in text, text
        assert "The pump ran quietly" in text


@needs_tex
def test_a_run_without_a_summary_has_no_summary_section_in_any_format(tmp_path):
    from tests.engine.render import fidelity

    run = _run(tmp_path, "en", summary="")
    assert "## Executive summary" not in (run / "report.md").read_text(encoding="utf-8")
    for text in (fidelity.pdf_text(run / "report.pdf"), fidelity.docx_text(run / "report.docx")):
        assert "Executive summary" not in text and "This section is empty." not in text, text


def test_a_report_without_a_sources_section_renders_none():
    """No "Sources" heading and no "No sources were cited." the report does not say: its [1] may cite a list kept elsewhere."""
    doc = document_from_markdown("# Notes\n\n**Date:** 2020-01-01\n\nThe pump ran quietly [1].\n")
    assert doc.body == "The pump ran quietly [1]."
    tex, text = render_latex(doc), pf.stringify(docx_document(doc))
    assert r"\section{Sources}" not in tex and "No sources were cited." not in tex
    assert "Sources" not in text and "No sources were cited." not in text and "The pump ran quietly" in text


def test_a_sources_section_saying_none_is_cited_is_kept_as_written():
    doc = document_from_markdown("# Notes\n\nText.\n\n## Sources\n\n(none cited)\n")
    tex, text = render_latex(doc), pf.stringify(docx_document(doc))
    assert r"\section{Sources}" in tex and "(none cited)" in tex
    assert "Sources" in text and "(none cited)" in text


@needs_tex
def test_render_of_a_report_without_sources_adds_no_sources_section(tmp_path):
    for text in _rendered_texts("# Field notes\n\n**Date:** 2020-01-01\n\n**Question:** Is it quiet?\n\n"
                                "The pump ran quietly.\n", tmp_path):
        assert "Sources" not in text and "No sources were cited." not in text, text
        assert "The pump ran quietly." in text


@needs_tex
def test_a_report_without_a_question_line_shows_none_in_the_pdf_or_word(tmp_path):
    """Without a ``**Question:**`` line (and no review.md beside it) neither output shows a Question
    line; the PDF showed "Question: —" where the Word document showed nothing."""
    pdf, docx = _rendered_texts("# Field notes\n\n**Date:** 2020-01-01\n\nThe pump ran quietly.\n", tmp_path)
    for text in (pdf, docx):
        flat = " ".join(text.split())
        assert "Question" not in flat and "—" not in flat, flat
        assert "Date: 2020-01-01 The pump ran quietly." in flat, flat


#: Characters no installed font has (CJK Extension B, Nandinagari, Garay), each shown as a placeholder.
NO_FONT = {"\U0002A6D6": "U+2A6D6", "\U000119A0": "U+119A0", "\U00010D50": "U+10D50"}


@needs_tex
def test_render_warns_of_the_characters_shown_as_placeholders(tmp_path):
    """A character no installed font has is a placeholder in the PDF (``[U+2A6D6]``); ``render`` says
    which (their code points), first among its warnings, and usage.json keeps the warning."""
    import json

    rare = list(NO_FONT)
    (tmp_path / "usage.json").write_text("{}", encoding="utf-8")
    (tmp_path / "report.md").write_text(
        f"# Rare letters\n\n**Date:** 2020-01-01\n\n**Question:** What is {rare[0]}?\n\n"
        f"The letters {rare[1]} and `{rare[2]}` and {rare[0]} again.\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["render", str(tmp_path / "report.md")], prog_name="deepresearch")
    assert result.exit_code == 0, result.output
    lines = result.stderr.strip().splitlines()
    assert lines and lines[0].startswith("deepresearch: warning: "), lines
    assert all(code in lines[0] for code in NO_FONT.values()) and "placeholder" in lines[0], lines
    assert lines[0].count("U+2A6D6") == 1, lines  # each character named once
    kept = json.loads((tmp_path / "usage.json").read_text(encoding="utf-8"))["pdf_warnings"]
    assert kept[0] == lines[0].removeprefix("deepresearch: warning: "), kept


def test_the_placeholder_warning_names_each_character_once_and_counts_the_rest():
    from engine.render.fonts import NAMED_PLACEHOLDERS, placeholder_warning

    many = [chr(0x2A6D6 + k) for k in range(NAMED_PLACEHOLDERS + 3)]
    line = placeholder_warning([*many, many[0], "a\u20dd"])
    assert line.startswith("No installed font has U+2A6D6, U+2A6D7, ") and line.count("U+2A6D6") == 1, line
    assert " and 4 more: the PDF shows them as placeholders" in line, line
    assert placeholder_warning([]) is None
    assert placeholder_warning(["a\u20dd"]).startswith("No installed font has U+0061+U+20DD: the PDF shows it as")


# --- the lines under the title as written -----------------------------------------------------------

#: (name, the lines under the title, the date, the question and the clarification they give)
FRONT = [
    ("one paragraph", "**Date:** 2020-01-01\n**Question:** Is water wet?", "2020-01-01", "Is water wet?", ""),
    ("date as written", "**Date:** 1 March 2021 (revised)\n\n**Question:** Is water wet?",
     "1 March 2021 (revised)", "Is water wet?", ""),
    ("date as written, one paragraph", "**Date:** March 2021\n**Question:** Is water wet?", "March 2021",
     "Is water wet?", ""),
    ("three in one paragraph", "**Date:** 2020-01-01\n**Question:** Is water wet?\n**Clarification:** Which? — Tap.",
     "2020-01-01", "Is water wet?", "Which? — Tap."),
    ("a question over two lines", "**Date:** 2020-01-01\n\n**Question:** Is water\nwet?", "2020-01-01",
     "Is water wet?", ""),
    ("German labels in one paragraph", "**Datum:** 1. März 2021\n**Frage:** Ist Wasser nass?", "1. März 2021",
     "Ist Wasser nass?", ""),
    ("colons after the bold labels in one paragraph",
     "**Date**: 2020-01-01\n**Question** : Is water\nwet?\n**Clarification**\u00a0: Which? — Tap.",
     "2020-01-01", "Is water wet?", "Which? — Tap."),
]


@pytest.mark.parametrize("front, date, question, clarification", [f[1:] for f in FRONT], ids=[f[0] for f in FRONT])
def test_every_line_under_the_title_is_read_as_written(front, date, question, clarification):
    doc = document_from_markdown(f"# Water\n\n{front}\n\nBody.\n", date="2026-01-02")
    assert (doc.date, doc.question, doc.clarification, doc.body) == (date, question, clarification, "Body.")


@needs_tex
@pytest.mark.parametrize("front, date, question, clarification", [f[1:] for f in FRONT[:4]], ids=[f[0] for f in FRONT[:4]])
def test_render_shows_every_line_under_the_title_as_written(tmp_path, front, date, question, clarification):
    from tests.engine.render import fidelity

    (tmp_path / "report.md").write_text(f"# Water\n\n{front}\n\nBody.\n", encoding="utf-8")
    _render(tmp_path / "report.md", tmp_path)
    for text in (fidelity.pdf_text(tmp_path / "report.pdf"), fidelity.docx_text(tmp_path / "report.docx")):
        flat = " ".join(text.split())
        assert f"Date: {date} Question: {question} " in flat, flat
        assert not clarification or f"Clarification: {clarification} Body." in flat, flat


#: Lines under the title with inline Markdown: bold, emphasis, code, a link.
MARKED_FRONT = ("**Date:** **2024-05-01**\n\n**Question:** Is *water* `H2O` and [wet](https://example.com/wet)?\n\n"
                "**Clarification:** Which? — The **tap** one.")


@needs_tex
def test_markdown_in_the_lines_under_the_title_is_shown_as_the_body_shows_it(tmp_path):
    """Stars, backticks and link brackets of the Date, Question and Clarification lines are markup in the
    PDF and the Word document, as in the body, not text shown as written."""
    from docx import Document

    pdf, docx = _rendered_texts(f"# Water\n\n{MARKED_FRONT}\n\nBody.\n", tmp_path)
    for text in (pdf, docx):
        flat = " ".join(text.split())
        assert ("Date: 2024-05-01 Question: Is water H2O and wet? Clarification: Which? — The tap one. Body."
                in flat), flat
    tex = (tmp_path / "report.tex").read_text(encoding="utf-8")
    for marked in ("\\textbf{2024-05-01}", "\\emph{water}", "\\texttt{H2O}", "\\href{https://example.com/wet}",
                   "\\textbf{tap}"):
        assert marked in tex, marked
    runs = [r for p in Document(str(tmp_path / "report.docx")).paragraphs[:8] for r in p.runs]
    assert any(r.text == "2024-05-01" and r.bold for r in runs), [(r.text, r.bold) for r in runs]
    assert any(r.text == "tap" and r.bold for r in runs), [(r.text, r.bold) for r in runs]
    assert any(r.text == "H2O" and r.style.name == "Verbatim Char" for r in runs), [(r.text, r.style.name) for r in runs]
    assert "https://example.com/wet" in fidelity_links(tmp_path / "report.docx")


def fidelity_links(path: Path) -> set[str]:
    from tests.engine.render import fidelity

    return fidelity.docx_links(path)[2]


def test_word_properties_of_marked_lines_under_the_title_are_their_plain_text(tmp_path):
    """A report without a title is named by its question: the Word document's title property is the
    question's words, and a bold ISO date still dates the document."""
    from docx import Document

    from engine.render.docx import render_docx

    doc = document_from_markdown(f"{MARKED_FRONT}\n\nBody.\n")
    properties = Document(str(render_docx(doc, tmp_path / "report.docx"))).core_properties
    assert properties.title == "Is water H2O and wet?"
    assert properties.created.date().isoformat() == "2024-05-01"


# --- link destinations as written ------------------------------------------------------------------

#: Every form of a CommonMark link destination (spec 0.31, §6.3), and what a reader sees of the entry.
LINKS = [
    ("[A site](<https://example.com/a b>)", "A site", "https://example.com/a b"),
    ("[Paren](https://en.wikipedia.org/wiki/Foo_(bar))", "Paren", "https://en.wikipedia.org/wiki/Foo_(bar)"),
    ("[Escaped](https://e.org/a\\)b\\(c)", "Escaped", "https://e.org/a)b(c"),
    ('[Titled](https://e.org/t "A title")', "Titled", "https://e.org/t"),
    ("[Both](<https://e.org/x y> 'tt')", "Both", "https://e.org/x y"),
    ("[Paren title](https://e.org/p (the title))", "Paren title", "https://e.org/p"),
    ("[Angle](<https://e.org/a\\>b>)", "Angle", "https://e.org/a>b"),
    ("[Entity](https://e.org/?a=1&amp;b=2)", "Entity", "https://e.org/?a=1&b=2"),
    ("[*Emph* and `code` \\[x\\]](https://e.org/e)", "Emph and code [x]", "https://e.org/e"),
    ("<https://e.org/auto>", "https://e.org/auto", "https://e.org/auto"),
    ("Ein Titel - https://example.de/x", "Ein Titel", "https://example.de/x"),
    ("Ein Titel <https://example.de/y>", "Ein Titel", "https://example.de/y"),
]


@pytest.mark.parametrize("entry, title, url", LINKS, ids=[t for _, t, _ in LINKS])
def test_every_link_destination_form_of_a_sources_entry_is_read_as_written(entry, title, url):
    assert [(s.title, s.url) for s in parse_sources(f"1. {entry}\n")] == [(title, url)]
    assert [(s.title, s.url) for s in parse_sources(f"[1] {entry}\n")] == [(title, url)]


_URL_CHARS = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=20)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(title=st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=30),
       path=_URL_CHARS)
def test_the_sources_list_ask_writes_reads_back_as_its_sources(title, path):
    """Whatever a source's title and address hold (spaces, brackets, ``<>``, ``\\``, ``&amp;``),
    report.md's Sources list reads back as that title and that address."""
    url = f"https://example.org/{path}"
    cited = [Cited(1, source_id(url), url, title)]
    section = sources_section(cited).split("\n", 2)[2]
    shown = squeeze(title)  # runs of spaces one; no-break spaces as written
    assert [(s.title, s.url) for s in parse_sources(section)] == [(shown if shown.strip() else url, url)], section


@needs_tex
def test_link_destinations_come_out_as_written_in_the_pdf_and_the_word_document(tmp_path):
    from tests.engine.render import fidelity
    from tests.engine.render.test_pdf import link_uris

    sources = "\n".join(f"{n}. {entry}" for n, (entry, _, _) in enumerate(LINKS[:9], 1))
    body = " ".join(f"{entry} [{n}]." for n, (entry, _, _) in enumerate(LINKS[:9], 1))
    (tmp_path / "report.md").write_text(f"# Links\n\n{body}\n\n## Sources\n\n{sources}\n", encoding="utf-8")
    _render(tmp_path / "report.md", tmp_path)
    shown = [f"{title} {url}" for _, title, url in LINKS[:9]]
    targets = {"https://example.com/a%20b", "https://en.wikipedia.org/wiki/Foo_(bar)", "https://e.org/a)b(c",
               "https://e.org/t", "https://e.org/x%20y", "https://e.org/p", "https://e.org/a%3Eb",
               "https://e.org/?a=1&b=2", "https://e.org/e"}
    pdf = " ".join(fidelity.pdf_text(tmp_path / "report.pdf").split())
    docx = " ".join(fidelity.docx_text(tmp_path / "report.docx").split())
    for text in (pdf, docx):
        sources_part = text.split("Sources", 1)[1]
        assert [s for s in shown if s not in sources_part] == [], sources_part
        assert "( b>)" not in text and "A title" not in text
    assert targets <= link_uris(tmp_path / "report.pdf")
    assert targets <= fidelity.docx_links(tmp_path / "report.docx")[2]


def test_read_report_takes_the_recorded_language_from_usage_json(tmp_path):
    markdown = f"# T\n\n**Date:** 2026-12-04\n\n**Question:** Q?\n\n{BODY}\n## Sources\n\n1. [A](<https://a.example/>)\n"
    (tmp_path / "report.md").write_text(markdown, encoding="utf-8")
    (tmp_path / "usage.json").write_text('{"generated_at": "2026-12-04T10:00:00+00:00", "language": "fr"}',
                                         encoding="utf-8")
    assert read_report(tmp_path / "report.md").language == "fr"



#: A title with inline Markdown: emphasis, code, an escaped star.
MARKED_TITLE = "# Why is `asyncio.gather` *faster* than a loop\\*?"


@needs_tex
def test_markdown_in_the_title_is_shown_as_the_body_shows_it(tmp_path):
    """The title's emphasis and code are markup in the PDF and the Word document, as under it; the PDF's
    and the Word document's title properties are its plain words."""
    from docx import Document
    from pypdf import PdfReader

    pdf, docx = _rendered_texts(f"{MARKED_TITLE}\n\n**Date:** 2024-05-01\n\nBody.\n", tmp_path)
    for text in (pdf, docx):
        assert "Why is asyncio.gather faster than a loop*?" in " ".join(text.split()), text
    tex = (tmp_path / "report.tex").read_text(encoding="utf-8")
    title_line = next(line for line in tex.splitlines() if "\\LARGE" in line)
    for marked in ("\\texttt{asyncio.}", "\\texttt{gather}", "\\emph{faster}"):  # code may break after its dot
        assert marked in title_line, title_line
    assert PdfReader(str(tmp_path / "report.pdf")).metadata.title == "Why is asyncio.gather faster than a loop*?"
    document = Document(str(tmp_path / "report.docx"))
    runs = [r for p in document.paragraphs[:2] for r in p.runs]
    assert any(r.text == "faster" and r.italic for r in runs), [(r.text, r.italic) for r in runs]
    assert any(r.text == "asyncio.gather" and r.style.name == "Verbatim Char" for r in runs), \
        [(r.text, r.style.name) for r in runs]
    assert document.core_properties.title == "Why is asyncio.gather faster than a loop*?"


@pytest.mark.parametrize(("written", "space", "tex"), [(" ", " ", "Date :"), ("\u00a0", "\u00a0", "Date~:"),
                                                   ("\u202f", "\u202f", "Date\\,:"), ("&nbsp;", "\u00a0", "Date~:")])
def test_a_label_written_with_french_spacing_is_read_as_its_field(written, space, tex):
    """``**Date :**`` (French typography puts a space, often a no-break one, before the colon) was not
    read as the date: the front fields stayed in the body and the report had no date. Each label reads
    with the spacing as written (``&nbsp;`` is the no-break space it stands for), and keeps it in both
    outputs (the PDF had ``Date:``, the Word document ``Date :``)."""
    markdown = (f"# Pompes à chaleur\n\n**Date{written}:** 1er mars 2021\n\n**Question{written}:** {QUESTIONS['fr']}"
                f"\n\n{BODY}\n## Sources\n\n1. [A](<https://a.example/>)\n")
    doc = document_from_markdown(markdown, recorded="fr")
    assert (doc.date, doc.question, doc.language) == ("1er mars 2021", QUESTIONS["fr"], "fr")
    assert "Date" not in doc.body and "1er mars" not in doc.body
    assert doc.labels["date"] == f"Date{space}" and doc.labels["question"] == f"Question{space}"
    text = pf.stringify(docx_document(doc))
    assert f"Date{space}:" in text and "1er mars 2021" in text, text
    latex = render_latex(doc)
    assert f"\\textbf{{{tex}}} 1er mars 2021" in latex and f"\\textbf{{{tex.replace('Date', 'Question')}}}" in latex


def test_no_break_spaces_of_plain_text_stay_no_break_spaces():
    """A question typed on a French keyboard ("Combien coûte une pompe\u202f?", "1\u00a0000\u00a0€") lost its
    no-break spaces in the title, the labels and every other plain line: they became spaces a line may
    break at, so "?" or "€" could start a line. Only breaking whitespace separates words."""
    from engine.render.markdown import plain_inlines

    words = [node.get("c") for node in plain_inlines("Combien coûte une pompe\u202f? Environ 1\u00a0000\u00a0€.\n Suite")]
    assert words == ["Combien", None, "coûte", None, "une", None, "pompe\u202f?", None, "Environ", None,
                     "1\u00a0000\u00a0€.", None, "Suite"]
    doc = document_from_markdown("# Combien coûte une pompe\u202f?\n\nCorps.\n", question="Combien coûte une pompe\u202f?")
    assert "pompe\u202f?" in pf.stringify(docx_document(doc))


def test_a_french_question_keeps_its_no_break_spaces_in_report_md_and_both_outputs():
    """A question typed "…délais d’attente\u00a0?" (a French keyboard's no-break space) kept it in the PDF
    and the Word document but lost it in report.md's title and question line, and a re-read report lost
    it everywhere: the three files no longer said the same. Titles, fields, headings and source titles
    keep each no-break space as written."""
    from engine.artifacts import front_matter
    from engine.text import markdown_literal

    question = "Comment asyncio gère-t-il les délais d’attente\u00a0?  Et   l’annulation\u202f?"
    one_line = "Comment asyncio gère-t-il les délais d’attente\u00a0? Et l’annulation\u202f?"
    lines = front_matter(question, "2026-12-07", "fr")
    assert f"**Question\u00a0:** {one_line}" in lines
    markdown = (f"# {markdown_literal(question)}\n\n" + "\n".join(lines) + "\n\n## Coûts\u00a0: 1\u00a0000\u00a0€\n\n"
                f"{BODY}\n## Sources\n\n1. [Guide\u00a0: asyncio](<https://a.example/>)\n")
    doc = document_from_markdown(markdown, recorded="fr")
    assert doc.title == doc.question == one_line
    assert "## Coûts\u00a0: 1\u00a0000\u00a0€" in doc.body and doc.sources[0].title == "Guide\u00a0: asyncio"
    text = pf.stringify(docx_document(doc))
    assert one_line in text and "Coûts\u00a0: 1\u00a0000\u00a0€" in text and "Guide\u00a0: asyncio" in text


def test_no_break_spaces_of_the_front_fields_and_the_sources_titles_stay_no_break_spaces():
    """A report.md edited on a French keyboard ("**Question :** Combien coûte une pompe\u202f?", a source
    "Guide\u00a0ADEME\u202f: prix") lost those no-break spaces in the question, the clarification and the
    Sources titles of the PDF and the Word document, while the title and the body kept them: "?" or ":"
    could start a line there."""
    question = "Combien coûte une pompe\u202f?"
    markdown = (f"# {question}\n\n**Date\u00a0:** 1er\u00a0mars 2021\n\n**Question\u00a0:** {question}\n\n"
                "**Précision\u00a0:** 10\u00a0000\u00a0€\n\n## Coûts\n\nCorps.\n\n"
                "## Sources\n\n1. [Guide\u00a0ADEME\u202f: prix](<https://a.example/>)\n")
    doc = document_from_markdown(markdown, recorded="fr")
    assert (doc.date, doc.question, doc.clarification) == ("1er\u00a0mars 2021", question, "10\u00a0000\u00a0€")
    assert [s.title for s in doc.sources] == ["Guide\u00a0ADEME\u202f: prix"]
    text = pf.stringify(docx_document(doc))
    for kept in ("1er\u00a0mars", "pompe\u202f?\n", "10\u00a0000\u00a0€", "Guide\u00a0ADEME\u202f: prix"):
        assert kept in text, (kept, text)
    tex = str(render_latex(doc))
    # the title, the PDF's title property and the question line
    assert tex.count("pompe\\,?") == 3 and "Guide~ADEME\\,: prix" in tex, tex[tex.index("Question"):]


@pytest.mark.parametrize("space", [" ", "\t"])
def test_a_label_written_with_a_space_before_its_colon_keeps_it_in_the_pdf_as_in_the_word_document(space):
    """``**Date :**`` (French spacing with an ordinary space) showed "Date :" in the Word document but
    "Date:" in the PDF: the label's trailing space was dropped on the way to LaTeX."""
    doc = document_from_markdown(f"# Pompes\n\n**Date{space}:** 1er mars 2021\n\n**Question{space}:** Combien\u202f?\n\n"
                                 "Corps.\n", recorded="fr")
    assert "Date :" in pf.stringify(docx_document(doc))
    tex = str(render_latex(doc))
    assert any(f"textbf{{{label}}}" in tex for label in ("Date :", "Date~:")), tex[tex.index("textbf{Date"):][:40]


@pytest.mark.parametrize(("entry", "title", "url"), [
    ("[Beispiel](https://example.com/a b)", "[Beispiel](https://example.com/a b)", "https://example.com/a"),
    ("Heat pump guide (https://e.org/guide)", "Heat pump guide (https://e.org/guide)", "https://e.org/guide"),
    ("Heat pump guide https://e.org/guide", "Heat pump guide", "https://e.org/guide"),
    ("https://e.org/guide — Heat pump guide", "Heat pump guide", "https://e.org/guide"),
])
def test_a_sources_entry_whose_address_stands_inside_other_text_is_shown_as_written(entry, title, url):
    """A hand-edited entry ``[Beispiel](https://example.com/a b)`` (a space in the address: no link in
    CommonMark) came out as "[1] [Beispiel]( b)" with "https://example.com/a" on a line of its own: the
    address was cut out of the text around it. Only an address beside the title, with spaces around
    it, is taken out of the title; otherwise the entry shows as written, the address it holds linked."""
    doc = document_from_markdown(f"# T\n\nBody [1].\n\n## Sources\n\n1. {entry}\n")
    assert [(s.title, s.url) for s in doc.sources] == [(title, url)]
    text = pf.stringify(docx_document(doc))
    assert f"[1] {title}" in text, text


#: The spacing a report.md may write between a bold label and the colon after it, and how LaTeX writes it.
COLON_GAPS = {"": "", " ": " ", "\u00a0": "~", "\u202f": "\\,", "&nbsp;": "~"}


def _front_lines(language: str, gap: str) -> str:
    """The Date, Question and Clarification lines in the labels of ``language``, each colon after its bold label."""
    labels = LABELS[language]
    return (f"**{labels['date']}**{gap}: 2026-01-05\n\n**{labels['question']}**{gap}: Is water wet?\n\n"
            f"**{labels['clarification']}**{gap}: Which? — Tap.")


@pytest.mark.parametrize("gap", list(COLON_GAPS), ids=["none", "space", "nbsp", "nnbsp", "entity"])
@pytest.mark.parametrize("language", list(LABELS))
def test_a_label_with_its_colon_after_the_bold_is_read_as_its_field(language, gap):
    """``**Date**: 2026-01-05`` and ``**Date** : 2026-01-05`` (the colon after the bold label) were not
    read as the date: the lines under the title stayed in the body as paragraphs and the report had no
    date. Every front label of every language reads so, with or without spacing before the colon, and
    keeps the label as written."""
    doc = document_from_markdown(f"# Water\n\n{_front_lines(language, gap)}\n\nBody.\n", recorded=language)
    assert (doc.date, doc.question, doc.clarification, doc.body) == ("2026-01-05", "Is water wet?", "Which? — Tap.",
                                                                     "Body.")
    assert {key: doc.labels[key] for key in FRONT_KEYS} == {key: LABELS[language][key] for key in FRONT_KEYS}
    assert doc.language == language


@pytest.mark.parametrize("gap", list(COLON_GAPS), ids=["none", "space", "nbsp", "nnbsp", "entity"])
def test_a_label_with_its_colon_after_the_bold_shows_so_in_the_pdf_as_in_the_word_document(gap):
    """The label is bold and the colon after it is not, with the spacing before it as written
    (``&nbsp;`` the no-break space it stands for), in the LaTeX of the PDF as in the Word document:
    neither moves the colon into the bold nor drops or adds a space."""
    space = html.unescape(gap)
    doc = document_from_markdown(f"# Pompes\n\n{_front_lines('fr', gap)}\n\nCorps.\n", recorded="fr")
    fields = {pf.stringify(para.content[0]): para for para in docx_document(doc).content
              if isinstance(para, pf.Para) and para.content and isinstance(para.content[0], pf.Strong)}
    assert fields.keys() == {"Date", "Question", "Précision"}, fields.keys()
    assert pf.stringify(fields["Date"]).rstrip("\n") == f"Date{space}: 2026-01-05"
    for label in ("Question", "Précision"):
        assert pf.stringify(fields[label]).rstrip("\n") == f"{label}{space}:"
        assert not any(isinstance(e, pf.Strong) for e in fields[label].content[1:]), fields[label]
    tex = str(render_latex(doc))
    assert f"\\textbf{{Date}}{COLON_GAPS[gap]}: 2026-01-05" in tex, tex[tex.index("textbf{Date"):][:40]
    for label in ("Question", "Précision"):
        assert f"\\textbf{{{label}}}{COLON_GAPS[gap]}:" in tex, tex[tex.index(f"textbf{{{label}"):][:40]


@needs_tex
def test_render_shows_labels_with_their_colons_after_the_bold_as_written(tmp_path):
    """``deepresearch render`` of a report.md whose labels have their colons after the bold shows the
    date, question and clarification under the title in the PDF and the Word document, each label bold
    and its colon not, as written; none of them stays in the body."""
    from docx import Document

    front = "**Date** : 2026-01-05\n\n**Question**: Is water wet?\n\n**Clarification**\u00a0: Which? — Tap."
    pdf, docx = _rendered_texts(f"# Water\n\n{front}\n\nBody.\n", tmp_path)
    for text in (pdf, docx):
        flat = " ".join(text.split())
        assert "Date : 2026-01-05 Question: Is water wet? Clarification : Which? — Tap. Body." in flat, flat
        assert flat.count("2026-01-05") == 1 and flat.count("Is water wet?") == 1, flat
    # the question and the clarification are the quotes under the title, in italics, in both outputs
    tex = (tmp_path / "report.tex").read_text(encoding="utf-8")
    assert "\\itshape Is water wet?" in tex and "\\itshape Which? — Tap." in tex, tex[tex.index("Date"):][:400]
    runs = [(r.text, bool(r.bold), bool(r.italic)) for p in Document(str(tmp_path / "report.docx")).paragraphs[:8]
            for r in p.runs]
    for label in ("Date", "Question", "Clarification"):
        assert (label, True, False) in runs, runs
    assert ("Is water wet?", False, True) in runs and ("Which? — Tap.", False, True) in runs, runs
    assert not any(":" in text and bold for text, bold, _ in runs), runs


#: Paragraphs that start with a bold word and a colon but are no field under the title: the body's own.
BODY_BOLD = ("**Note**: the pump is new.\n\n**Date**: the day it failed.\n\nIt ran quietly.\n\n"
             "**Question** : why did it fail?\n\n**Datum**\u00a0: 3. März")


@pytest.mark.parametrize(("front", "date", "kept"), [
    ("**Date**: 2026-01-05", "2026-01-05", ""),  # the first paragraph after the fields is no field
    ("**Date:** 2026-01-05", "2026-01-05", ""),
    ("", "", ""),  # a report that opens with a bold word and a colon: no fields at all
    ("**Date**: 2026-01-05\n\n**Date** : 2026-02-01", "2026-01-05", "**Date** : 2026-02-01"),  # one date
    ("**Date **: 2026-02-01", "", "**Date **: 2026-02-01"),  # not bold in CommonMark: no label
    ("** Date**: 2026-02-01", "", "** Date**: 2026-02-01"),
    ("**Date** then: 2026-03-01", "", "**Date** then: 2026-03-01"),
])
def test_a_body_paragraph_opening_with_a_bold_word_and_a_colon_stays_as_written(front, date, kept):
    """Only the lines right under the title (and notice) are fields, each key once (the clarification
    once per question asked): a later paragraph ``**Date**: …`` or ``**Question** : …``, one that is
    no label (``**Note**:``), a label not bold in CommonMark (``**Date **:``) or one with words before
    the colon stays in the body as written, in both outputs."""
    doc = document_from_markdown(f"# Water\n\n{front}\n\n{BODY_BOLD}\n")
    assert (doc.date, doc.question, doc.body) == (date, "", f"{kept}\n\n{BODY_BOLD}".strip())
    text = pf.stringify(docx_document(doc))
    assert "Note: the pump is new.\n\nDate: the day it failed." in text and "Question : why" in text, text
    tex = str(render_latex(doc))
    assert "\\textbf{Date}: the day it failed." in tex and "\\textbf{Question} : why" in tex, tex
