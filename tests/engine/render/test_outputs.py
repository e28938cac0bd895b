"""report.md read back, `deepresearch render`, atomic writes, and one output failing without the others."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bots.cli import app
from engine.render import docx as docx_module
from engine.render.outputs import render_outputs, write_atomic
from engine.render.reread import document_from_markdown, read_report
from tests.waiting import LONG

needs_tex = pytest.mark.skipif(not all(shutil.which(p) for p in ("latexmk", "xelatex", "pdftotext")),
                               reason="latexmk, xelatex and pdftotext are needed")

REPORT = """# Heat pumps in Europe

*Made in offline extractive mode, without a language model.*

## Executive summary

Adoption grew fast [1]; scores on the interval \\[0, 1\\] [2].

## Findings

Heat pumps [1, 2] are common; [3] is no source here.

## Sources

Kept as body text: a heading named Sources in the middle.

## Conclusion

The end [2].

## Sources

1. [European Heat Pump Association \\[EHPA\\]](<https://example.org/ehpa.pdf>)
2. [Running costs](<https://example.com/costs?a=1&b=2>)
"""


def test_report_md_is_read_back_into_its_parts():
    doc = document_from_markdown(REPORT)
    assert doc.title == "Heat pumps in Europe"
    assert doc.notice == "Made in offline extractive mode, without a language model."
    assert doc.executive_summary.startswith("Adoption grew fast [1]")
    assert "Kept as body text" in doc.body and "The end [2]." in doc.body and "## Findings" in doc.body
    assert [(s.number, s.title, s.url) for s in doc.sources] == [
        (1, "European Heat Pump Association [EHPA]", "https://example.org/ehpa.pdf"),
        (2, "Running costs", "https://example.com/costs?a=1&b=2")]
    assert doc.language == "en"


def test_hand_edited_sources_and_missing_parts():
    doc = document_from_markdown("Just a body [1].\n\n## Quellen\n\n[1] Ein Titel - https://example.de/x\n")
    assert doc.title == "" and doc.executive_summary == "" and doc.body == "Just a body [1]."
    assert [(s.number, s.title, s.url) for s in doc.sources] == [(1, "Ein Titel", "https://example.de/x")]
    not_a_list = document_from_markdown("Body.\n\n## Sources\n\nSome prose about sources.\n\n- a bullet\n")
    assert not_a_list.sources == [] and "Some prose" in not_a_list.body and "- a bullet" in not_a_list.body
    note = document_from_markdown("Body.\n\n## Sources\n\nNo sources were found for this question.\n")
    assert note.sources == [] and note.body == "Body."
    mixed = document_from_markdown("Body.\n\n## Sources\n\nProse first.\n\n1. [A](https://a.example)\n")
    assert mixed.sources == [] and "Prose first." in mixed.body


def test_run_folder_gives_question_review_and_date(tmp_path):
    (tmp_path / "report.md").write_text(REPORT, encoding="utf-8")
    (tmp_path / "review.md").write_text(
        "# Review of: How fast?\n\n## Round 1\n\n### Solution (t)\n\nS.\n\n### Critique (t)\n\n"
        "- First critique [Sabc123] and [Sdef456]\n\n### Perspective (t)\n\n- Open\n\n"
        "## Sources the review cites\n\n(The roles cite sources by id.)\n\n"
        "- [Sabc123] [EHPA](<https://example.org/ehpa.pdf>) (source 1 of the report)\n"
        "- [Sdef456] [Other](<https://example.org/other>)\n", encoding="utf-8")
    (tmp_path / "usage.json").write_text('{"generated_at": "2024-05-01T10:00:00+00:00"}', encoding="utf-8")
    doc = read_report(tmp_path / "report.md")
    assert doc.question == "How fast?" and doc.date == "2024-05-01"
    assert len(doc.review) == 1 and "First critique [1] and [Sdef456]" in doc.review[0].critiques


def test_the_date_and_the_question_under_the_title_are_read_back_and_kept_out_of_the_body(tmp_path):
    markdown = ("# Night tariffs\n\n*Made in offline extractive mode, without a language model.*\n\n"
                "**Datum:** 2026-12-01\n\n**Question:** What does the $/kWh \\& \\<b\\>night\\</b\\> tariff\n"
                "cost \\(a\\\\b\\)?\n\n## Executive summary\n\nCheap at night [1].\n\n## Findings\n\nBody.\n")
    doc = document_from_markdown(markdown, question="an older question", date="2020-01-01")
    assert doc.question == "What does the $/kWh & <b>night</b> tariff cost (a\\b)?" and doc.date == "2026-12-01"
    assert doc.executive_summary == "Cheap at night [1]." and doc.body == "## Findings\n\nBody."
    (tmp_path / "review.md").write_text("# Review of: Is \\<b\\>night\\</b\\> \\& \\*day\\* cheaper?\n", encoding="utf-8")
    (tmp_path / "report.md").write_text(REPORT, encoding="utf-8")
    assert read_report(tmp_path / "report.md").question == "Is <b>night</b> & *day* cheaper?"


@pytest.mark.parametrize("content, message", [
    (None, "does not exist"), (b"", "is empty"), (b"\xff\xfe bad", "is not UTF-8 text")])
def test_render_refuses_bad_input_with_exit_code_2(tmp_path, content, message):
    path = tmp_path / "report.md"
    if content is not None:
        path.write_bytes(content)
    result = CliRunner().invoke(app, ["render", str(path)])
    assert result.exit_code == 2
    assert message in result.output and result.output.count("\n") == 1


def test_render_to_an_out_that_is_a_file_is_bad_input_with_exit_code_2(tmp_path):
    """As ``ask --out``: a file given for the folder is the command line's mistake, said before any work."""
    (tmp_path / "report.md").write_text(REPORT, encoding="utf-8")
    (tmp_path / "taken").write_text("a file")
    result = CliRunner().invoke(app, ["render", str(tmp_path / "report.md"), "--out", str(tmp_path / "taken")])
    assert result.exit_code == 2, result.output
    assert result.output == f"deepresearch: --out {tmp_path / 'taken'} is a file; give a folder (it is created when missing).\n"
    assert not (tmp_path / "report.tex").exists()


@needs_tex
def test_render_writes_tex_pdf_and_docx_with_citations_as_written(tmp_path):
    from tests.engine.render import fidelity

    (tmp_path / "report.md").write_text(REPORT, encoding="utf-8")
    result = CliRunner().invoke(app, ["render", str(tmp_path / "report.md"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert result.output.split() == [str(tmp_path / "out" / n) for n in ("report.tex", "report.pdf", "report.docx")]
    pdf = tmp_path / "out" / "report.pdf"
    links = [dest for _, dest in fidelity.pdf_citation_links(pdf)]
    assert links == ["src-1", "src-2", "src-1", "src-2", "src-2"]  # [3] names no source: text
    text = fidelity.pdf_text(pdf)
    assert "interval [0, 1]" in text and "[3] is no source here" in text and "Kept as body text" in text
    internal, bookmarks, external = fidelity.docx_links(tmp_path / "out" / "report.docx")
    assert [d for _, d in internal] == links and {"src-1", "src-2"} <= bookmarks
    assert {"https://example.org/ehpa.pdf", "https://example.com/costs?a=1&b=2"} <= external


@needs_tex
def test_sources_without_a_web_address_show_their_place_as_text_in_the_pdf_and_the_docx(tmp_path):
    from engine.render import ReportDocument, SourceEntry
    from tests.engine.render import fidelity

    doc = ReportDocument(title="Tides", question="How do tides work?", date="2026-01-02", executive_summary="Tides [1].",
                         body="Lagoons [2], pages [3] and sites [4].",
                         sources=[SourceEntry(1, "Tidal Energy Primer", "sub/tides%20%26%20waves.html"),
                                  SourceEntry(2, "Notes", "file:///home/alice/corpus/notes%20v2.md"),
                                  SourceEntry(3, "report.pdf, page 2", "local-file:0f1e2d3c4b5a/report.pdf#page=2"),
                                  SourceEntry(4, "Alpha", "https://a.example/1")])
    paths = render_outputs(doc, tmp_path)
    pdf = " ".join(fidelity.pdf_text(Path(paths["pdf"])).split())
    docx = " ".join(fidelity.docx_text(Path(paths["docx"])).split())
    for text in (pdf, docx):
        assert "Tidal Energy Primer (sub/tides & waves.html)" in text and "Notes (notes v2.md)" in text, text
        assert "report.pdf, page 2" in text and "https://a.example/1" in text
        assert "file:" not in text and "/home/alice" not in text and "local-file" not in text
    _, _, external = fidelity.docx_links(Path(paths["docx"]))
    assert external == {"https://a.example/1"}  # a place without a web address is no link


@needs_tex
def test_a_failed_pdf_still_writes_the_docx_and_the_reason(tmp_path):
    doc = document_from_markdown(REPORT)
    paths = render_outputs(doc, tmp_path, timeout=0.001)
    assert "pdf" not in paths and paths["pdf_error"].startswith("LaTeX build timed out")
    assert (tmp_path / "pdf-error.log").read_text(encoding="utf-8").startswith("LaTeX build timed out")
    assert Path(paths["docx"]).stat().st_size > 5000 and Path(paths["report_tex"]).is_file()


@needs_tex
def test_a_failed_docx_never_blocks_the_pdf(tmp_path, monkeypatch):
    broken = tmp_path / "broken-reference.docx"
    broken.write_bytes(b"not a zip file")
    monkeypatch.setattr(docx_module, "REFERENCE", broken)
    paths = render_outputs(document_from_markdown(REPORT), tmp_path / "out")
    assert Path(paths["pdf"]).is_file() and "docx" not in paths and paths["docx_error"]
    assert not list((tmp_path / "out").glob("*.docx*")) and not list((tmp_path / "out").glob(".report-*"))


@needs_tex
def test_a_build_that_succeeds_removes_the_error_log_an_earlier_one_left(tmp_path, monkeypatch):
    doc = document_from_markdown(REPORT)
    broken = tmp_path / "broken-reference.docx"
    broken.write_bytes(b"not a zip file")
    with monkeypatch.context() as patch:
        patch.setattr(docx_module, "REFERENCE", broken)
        first = render_outputs(doc, tmp_path / "run", timeout=0.001)
    assert first["pdf_error"].startswith("LaTeX build timed out") and first["docx_error"]
    assert (tmp_path / "run" / "pdf-error.log").read_text(encoding="utf-8").startswith("LaTeX build timed out")
    assert (tmp_path / "run" / "docx-error.log").read_text(encoding="utf-8").strip() == first["docx_error"]
    second = render_outputs(doc, tmp_path / "run")  # --resume, or `deepresearch render` again
    assert Path(second["pdf"]).is_file() and Path(second["docx"]).is_file()
    assert not list((tmp_path / "run").glob("*-error.log"))


@pytest.mark.parametrize("when", ["before", "during"])
def test_a_cancelled_build_leaves_no_error_log(tmp_path, monkeypatch, when):
    """Ctrl-C (or a stop) while the files are built: the outputs say they were cancelled, but no
    pdf-error.log or docx-error.log is written, which would read as the PDF's or the Word
    document's failure; one an earlier build left (a real failure) is kept as it was."""
    from engine.render import pdf as pdf_module

    doc = document_from_markdown(REPORT)
    run = tmp_path / "run"
    run.mkdir()
    (run / "docx-error.log").write_text("pandoc: an earlier failure\n", encoding="utf-8")
    cancelled = threading.Event()
    if when == "before":
        cancelled.set()
    else:  # cancelled as the LaTeX build starts, while the Word build runs (made to wait for it here:
        # one that finished first was built, and rightly removes the log, as a later build does)
        build_pdf, render_docx = pdf_module.build_pdf, docx_module.render_docx

        def build_cancelled(*args, **kwargs):
            cancelled.set()
            return build_pdf(*args, **kwargs)

        def docx_under_way(*args, **kwargs):
            assert cancelled.wait(LONG)
            return render_docx(*args, **kwargs)

        monkeypatch.setattr(pdf_module, "build_pdf", build_cancelled)
        monkeypatch.setattr(docx_module, "render_docx", docx_under_way)
    paths = render_outputs(doc, run, cancel=cancelled)
    assert "pdf" not in paths and paths["pdf_error"] == "LaTeX build cancelled", paths
    assert not (run / "pdf-error.log").exists()
    assert (run / "docx-error.log").read_text(encoding="utf-8") == "pandoc: an earlier failure\n"


def test_atomic_writes_are_seen_whole_or_not_at_all(tmp_path):
    path = tmp_path / "report.md"
    versions = [("a" * 200_000).encode(), ("b" * 300_000).encode()]
    write_atomic(path, versions[0])
    whole: set[bool] = set()
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            whole.add(path.read_bytes() in versions)

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for k in range(200):
            write_atomic(path, versions[k % 2])
    finally:
        stop.set()
        thread.join()
    assert path.read_bytes() == versions[1]
    assert whole == {True}
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]  # no temp file left behind


SOLUTION_1 = ("## Recommendation\n\n- Heat pumps cut running costs [Sabc123].\n\n"
              "## Supporting evidence\n\n- Sales doubled [Sdef456].\n")
SOLUTION_2 = ("## Recommendation\n\n- Heat pumps cut running costs [Sabc123].\n\n"
              "## Changes\n\n- Kept only claims that carry a citation.\n")
STATE = {
    "question": "How do heat pumps work?",
    "solutions": [SOLUTION_1, SOLUTION_2],
    "critiques": ["1. Cites 2 of 9 sources.\n2. Missing evidence.", "1. Still thin [Sabc123]."],
    "perspectives": ["- Regulator: who pays?", "- User: noise at night."],
    "review_stamps": ["solution:0|2026-11-30T16:17:52+00:00", "critique:0|2026-11-30T16:17:52+00:00"],
    "sources": {"Sabc123": {"title": "EHPA", "url": "https://example.org/ehpa.pdf"},
                "Sdef456": {"title": "Other", "url": "https://example.org/other"}},
    "numbering": {"Sabc123": 1},
}


def test_review_md_as_a_run_writes_it_gives_the_runs_appendix(tmp_path):
    """Solutions have ``##`` sections of their own: they stay inside their round."""
    from engine.artifacts import review_markdown, review_rounds

    (tmp_path / "report.md").write_text(REPORT, encoding="utf-8")
    (tmp_path / "review.md").write_text(review_markdown(STATE), encoding="utf-8")
    doc = read_report(tmp_path / "report.md")
    assert doc.question == STATE["question"]
    assert doc.review == review_rounds(STATE)
    assert [r.iteration for r in doc.review] == [1, 2] and "Still thin [1]" in doc.review[1].critiques


@needs_tex
def test_render_of_a_run_folder_keeps_the_appendix_and_the_warnings(tmp_path):
    """`deepresearch render` beside review.md shows Round 1 and 2 (as review.md heads them); PDF warnings go to usage.json, not the log."""
    import json
    import logging

    from engine.artifacts import review_markdown
    from tests.engine.render import fidelity

    # a chain of 60 words joined by no-break spaces cannot be broken: one overfull line
    (tmp_path / "report.md").write_text(REPORT.replace("The end [2].", "a" + "\u00a0b" * 60), encoding="utf-8")
    (tmp_path / "review.md").write_text(review_markdown(STATE), encoding="utf-8")
    (tmp_path / "usage.json").write_text('{"generated_at": "2024-05-01T10:00:00+00:00"}', encoding="utf-8")
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.DEBUG)
    handler.emit = records.append
    logging.getLogger("engine.render").addHandler(handler)
    try:
        result = CliRunner().invoke(app, ["render", str(tmp_path / "report.md")])
    finally:
        logging.getLogger("engine.render").removeHandler(handler)
    assert result.exit_code == 0, result.output
    text = fidelity.pdf_text(tmp_path / "report.pdf")
    assert "Round 1" in text and "Round 2" in text and "not reviewed" not in text
    docx = fidelity.docx_text(tmp_path / "report.docx")
    assert "Round 2" in docx and "not reviewed" not in docx
    usage = json.loads((tmp_path / "usage.json").read_text(encoding="utf-8"))
    assert usage["generated_at"].startswith("2024-05-01")
    assert usage["pdf_warnings"] and usage["pdf_warnings"][0].startswith("Overfull \\hbox")
    assert not [r for r in records if r.levelno >= logging.WARNING], [r.getMessage() for r in records]


def _run_folder(tmp_path_factory, language: str) -> Path:
    """A run's files as ``write_artifacts`` writes them for a ``language`` question whose five
    sources were found and none cited (the offline run of issue: its notes and headings)."""
    from engine.artifacts import write_artifacts
    from engine.offline_phrases import phrase
    from engine.settings import load_settings

    folder = tmp_path_factory.mktemp(f"run-{language}")
    note = phrase("no_passages", language, 5, n="5")
    body = (f"# T\n\n*{phrase('offline_notice', language)}*\n\n{note}\n\n## {phrase('review_outcome', language)}\n\n"
            f"{phrase('sources_outcome', language, 2, n='2', sources='')}\n\n## {phrase('open_objections', language)}\n\n"
            f"- {phrase('none', language)}\n")
    state = {"question": "Q?", "title": "T", "language": language, "final_report": body, "executive_summary": note,
             "sources": {f"S00000{i}": {"title": f"Doc {i}", "url": f"https://example.org/{i}"} for i in range(5)},
             "solutions": ["- A.", "- B."], "critiques": ["1. C.", "1. D."], "perspectives": ["- E.", "- F."]}
    settings = load_settings(data_dir=folder / "data", llm="offline", search="none")
    paths = write_artifacts(state, [], folder / "run", settings, "2026-01-02")
    assert "pdf" in paths and "docx" in paths, paths
    return folder / "run"


@pytest.fixture(scope="module")
def run_folders(tmp_path_factory):
    if not all(shutil.which(p) for p in ("latexmk", "xelatex", "pdftotext")):
        pytest.skip("latexmk, xelatex and pdftotext are needed")
    return {language: _run_folder(tmp_path_factory, language) for language in ("de", "ja")}


def _fixed_phrases(report_md: str) -> list[str]:
    """report.md's fixed words: the notice, the labels under the title with their colons (ASCII, or
    the full-width one of Chinese and Japanese), every heading below it and the note under the
    Sources heading."""
    import re

    phrases = re.findall(r"^\*([^*\n]+)\*$", report_md, re.MULTILINE)
    phrases += re.findall(r"^\*\*([^*\n]+[:：])\*\*", report_md, re.MULTILINE)
    phrases += re.findall(r"^## (.+)$", report_md, re.MULTILINE)
    phrases.append(report_md.rstrip().rsplit("\n", 1)[-1])  # the note under the Sources heading
    return phrases


@pytest.mark.parametrize("language", ["de", "ja"])
@pytest.mark.parametrize("fmt", ["pdf", "docx"])
def test_the_pdf_and_the_word_document_say_the_fixed_phrases_of_report_md(run_folders, language, fmt):
    import re

    from tests.engine.render import fidelity

    folder = run_folders[language]
    report_md = (folder / "report.md").read_text(encoding="utf-8")
    text = fidelity.pdf_text(folder / "report.pdf") if fmt == "pdf" else fidelity.docx_text(folder / "report.docx")
    flat = "".join(text.split())  # pdftotext breaks lines, and Japanese anywhere
    rounds = re.findall(r"^## (.+)$", (folder / "review.md").read_text(encoding="utf-8"), re.MULTILINE)
    phrases = _fixed_phrases(report_md) + rounds  # the appendix heads a round as review.md does
    assert len(phrases) >= 9 and len(rounds) == 2, report_md
    assert [p for p in phrases if "".join(p.split()) not in flat] == [], text


@needs_tex
@pytest.mark.parametrize("language", ["en", "de"])
def test_a_report_rendered_without_its_review_md_does_not_say_it_was_not_reviewed(tmp_path, language):
    """report.md says "The report went through 2 review rounds"; without review.md beside it the
    appendix says that the review record is not there, in the report's language, never that the
    report was not reviewed. Beside a review.md of no rounds it says that no review ran."""
    from engine.offline_phrases import phrase
    from engine.render.latex import labels_for
    from tests.engine.render import fidelity

    labels = labels_for(language)
    rounds = phrase("sources_outcome", language, 2, n="2", sources="")
    (tmp_path / "report.md").write_text(f"# T\n\n## {phrase('review_outcome', language)}\n\n{rounds}\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["render", str(tmp_path / "report.md"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    for text in (fidelity.pdf_text(tmp_path / "out" / "report.pdf"), fidelity.docx_text(tmp_path / "out" / "report.docx")):
        flat = " ".join(text.split())
        assert rounds.strip() in flat and labels["noreview"] not in flat, flat
        assert labels["review_not_beside"] in flat, flat
    (tmp_path / "review.md").write_text("# Review of: Q?\n\nNo review rounds were run.\n", encoding="utf-8")
    assert read_report(tmp_path / "report.md").review_absent == "noreview"


@pytest.mark.parametrize("language", ["de", "ja", "zh", "fr", "es", "it", "nl", "pt", "sv", "en"])
def test_review_md_speaks_the_questions_language_and_reads_back(tmp_path, language):
    """review.md's own words (its title, the rounds, the roles, the legend) are in the question's
    language, as the texts of the rounds are; `deepresearch render` reads it back all the same."""
    import re

    from engine.artifacts import review_markdown, review_rounds
    from engine.offline_phrases import phrase

    state = {**STATE, "language": language}
    review = review_markdown(state)
    words = [phrase("review_round", language, n="2"), phrase("role_critique", language), phrase("review_legend", language),
             phrase("source_of_report", language, n="1")]
    assert all(w in review for w in words), review
    heads = [phrase(key, code, q="Q", n="2") for key in ("review_of", "review_round") for code in (language, "en")]
    assert language == "en" or (heads[0] != heads[1] and heads[2] != heads[3]), heads  # no English stand-in
    keys = ("review_of", "review_round", "role_solution", "role_critique", "role_perspective", "review_legend",
            "review_legend_note", "source_of_report")
    english = [max(re.split(r"\{\w\}", phrase(key, "en", q="{q}", n="{n}")), key=len).strip() for key in keys
               if phrase(key, language, q="", n="") != phrase(key, "en", q="", n="")]  # French says "Critique" too
    assert [w for w in english if w in review] == [], review
    (tmp_path / "report.md").write_text(REPORT, encoding="utf-8")
    (tmp_path / "review.md").write_text(review, encoding="utf-8")
    doc = read_report(tmp_path / "report.md")
    assert doc.question == STATE["question"] and doc.review == review_rounds(state)
    assert "Still thin [1]" in doc.review[1].critiques
    assert phrase("no_review_rounds", language) in review_markdown({"question": "Q?", "language": language})
