"""The clarifying question and its answer under the question: in report.md, the PDF and the Word document, read back by `render`."""

from __future__ import annotations

import asyncio
import shutil

import panflute as pf
import pytest

from engine.artifacts import front_matter
from engine.render import ReportDocument
from engine.render.latex import LABELS, labels_for, render_latex
from engine.render.reread import document_from_markdown, read_report
from engine.runner import run_turn

needs_tex = pytest.mark.skipif(not all(shutil.which(p) for p in ("latexmk", "xelatex", "pdftotext")),
                               reason="latexmk, xelatex and pdftotext are needed")


def test_every_language_has_a_clarification_label_of_its_own():
    labels = {lang: LABELS[lang]["clarification"] for lang in ("en", "de", "fr", "es", "zh", "ja")}
    assert labels["en"] == "Clarification" and len(set(labels.values())) == len(labels)
    assert all(label != labels_for(lang)["question"] for lang, label in labels.items())


@pytest.mark.parametrize("language", ["en", "de", "fr", "es", "zh", "ja"])
def test_the_clarification_line_is_read_back_and_kept_out_of_the_body(language):
    asked = "Which region do you mean — *Europe* or <b>Asia</b>?"
    answers = [f"{asked} — Germany, for homes", "Since when? — 2020"]
    head = "\n".join(front_matter("heat pumps", "2026-01-02", language, answers))
    label = labels_for(language)["clarification"] + labels_for(language)["colon"]
    assert head.count(f"**{label}** ") == 2 and head.index(labels_for(language)["question"]) < head.index(label)
    doc = document_from_markdown(f"# Heat pumps for homes\n\n{head}\n## Findings\n\nBody.\n", language=language)
    assert doc.question == "heat pumps" and doc.date == "2026-01-02"
    assert doc.clarification == "\n".join(answers) and doc.body == "## Findings\n\nBody."


def test_the_pdf_and_the_word_document_show_the_clarification_under_the_question():
    from engine.render.docx import docx_document

    doc = ReportDocument(title="Heat pumps for homes", question="heat pumps", date="2026-01-02", executive_summary="",
                         body="Body.", clarification="Which region? — Germany & Austria", language="de")
    tex = render_latex(doc)
    front = tex[tex.index("\\begin{document}"):tex.index("\\noindent\\rule")]  # the rule under the front matter
    assert front.index("Frage:") < front.index("Präzisierung:") < front.index("Germany \\& Austria")
    blocks = docx_document(doc).content
    texts = [pf.stringify(b).strip() for b in blocks[:6]]
    at = texts.index("Präzisierung:")
    assert texts.index("Frage:") < at and texts[at + 1] == "Which region? — Germany & Austria"
    assert isinstance(blocks[at + 1], pf.BlockQuote)
    assert "Präzisierung" not in render_latex(ReportDocument(title="T", question="q", date="2026-01-02",
                                                              executive_summary="", body="B."))


def test_a_clarified_run_says_what_was_asked_and_answered_under_the_question(online_settings, script):
    script.clarify = True
    settings = online_settings(max_review_iterations=0)
    first = asyncio.run(run_turn("t:clarified", question="heat pumps", settings=settings))
    assert first.status == "clarify"
    done = asyncio.run(run_turn("t:clarified", answer="Germany,\nfor *homes*", settings=settings))
    report = done.artifacts.report_md.read_text(encoding="utf-8")
    assert "**Question:** heat pumps\n\n**Clarification:** Which region do you mean? — Germany, for \\*homes\\*\n" \
        in report, report[:600]
    doc = read_report(done.artifacts.report_md)
    assert doc.question == "heat pumps" and doc.clarification == "Which region do you mean? — Germany, for *homes*"
    assert "Clarification" not in doc.body


@needs_tex
def test_render_of_a_clarified_report_keeps_the_clarification(tmp_path):
    from typer.testing import CliRunner

    from bots.cli import app
    from tests.engine.render import fidelity

    head = "\n".join(front_matter("Wärmepumpen", "2026-01-02", "de", ["Welche Region? — Deutschland"]))
    body = "## Befunde\n\nWärmepumpen sind in Deutschland weit verbreitet und werden jedes Jahr günstiger.\n"
    (tmp_path / "report.md").write_text(f"# Wärmepumpen für Häuser\n\n{head}\n{body}", encoding="utf-8")
    result = CliRunner().invoke(app, ["render", str(tmp_path / "report.md")])
    assert result.exit_code == 0, result.output
    for text in (fidelity.pdf_text(tmp_path / "report.pdf"), fidelity.docx_text(tmp_path / "report.docx")):
        flat = " ".join(text.split())
        assert "Präzisierung:" in flat and "Welche Region? — Deutschland" in flat, flat
