"""Table layout: natural widths when a table fits, content-based widths, smaller type, landscape."""

from __future__ import annotations

import shutil

import pytest

from engine.render import ReportDocument
from engine.render.latex import render_latex
from engine.render.markdown import parse_markdown
from engine.render.tables import layout
from tests.engine.render.corpus import CORPUS

CASES = dict(CORPUS)
CASES["nine columns"] = "| " + " | ".join(f"Header {i}" for i in range(9)) + " |\n|" + "---|" * 9 + "\n| " + " | ".join(
    f"cell text number {i} here" for i in range(9)) + " |"


def table_of(markdown: str) -> list:
    return next(b for b in parse_markdown(markdown) if b["t"] == "Table")["c"]


def test_a_narrow_table_keeps_its_natural_widths():
    plan = layout(table_of("| a | b |\n|---|---|\n| 1 | 2 |"))
    assert plan.widths is None and plan.size == "" and not plan.landscape


def test_sentence_long_cells_get_widths_from_their_content():
    plan = layout(table_of(CASES["wide table"]))
    assert plan.widths is not None and abs(sum(plan.widths) - 1) < 1e-9 and not plan.landscape
    assert plan.widths[1] > plan.widths[0]  # the longest column gets the most room
    tex = render_latex(ReportDocument(title="t", question="q", date="2024-05-01", executive_summary="",
                                      body=CASES["wide table"]))
    assert tex.count(r"\real{") == 3 and "\\raggedright" in tex


@pytest.mark.parametrize("case, size, landscape", [
    ("nine columns", "\\footnotesize", False), ("many columns", "\\scriptsize", True),
    ("extreme table", "\\scriptsize", True)])
def test_wide_tables_are_set_smaller_or_turned(case, size, landscape):
    plan = layout(table_of(CASES[case]))
    assert (plan.size, plan.landscape) == (size, landscape)
    tex = render_latex(ReportDocument(title="t", question="q", date="2024-05-01", executive_summary="",
                                      body=CASES[case]))
    assert ("\\begin{landscape}" in tex) == landscape and "{" + size in tex


#: Cherokee (capitals, as Cherokee is written), Tamil and Chinese: letters wider than Latin ones.
WIDE_SCRIPTS = {
    "cherokee": "ᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ ᎠᏍᎦᏯ ᎠᎨᏯ ᏗᏂᎳᏫᎩ ᏓᏂᎸᎢ ᎤᏁᎳᏅᎯ ᎪᏪᎵ ᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ ᎠᏍᎦ",
    "tamil": "தமிழ் அப்பா விழா கொண்டாட்டம் தமிழ் அப்பா விழா கொண்டாட்டம்",
    "chinese": "中文表格单元格里的代码比拉丁字母宽得多所以要按宽度排版",
}
#: The text block's right edge on an A4 page with 2.4 cm margins, in PDF points (595.28 − 68.03).
RIGHT_EDGE = 595.28 - 2.4 / 2.54 * 72


@pytest.mark.skipif(not all(shutil.which(p) for p in ("latexmk", "xelatex", "pdftotext")),
                    reason="latexmk, xelatex and pdftotext are needed")
@pytest.mark.parametrize("code", [True, False], ids=["code", "text"])
@pytest.mark.parametrize("script", WIDE_SCRIPTS)
def test_a_table_of_a_wide_script_fits_the_text_width(tmp_path, script, code):
    """Column widths come from the width the text takes, not its count of characters: Cherokee code in
    a cell ran 80 pt past the right margin, its table thought narrow enough for natural widths."""
    from engine.render.pdf import build_pdf, overfull_boxes
    from tests.engine.render.fidelity import _word_boxes

    text = f"`{WIDE_SCRIPTS[script]}`" if code else WIDE_SCRIPTS[script]
    body = f"| Name | Value |\n|---|---|\n| {script} | {text} |\n| other | x |\n"
    result = build_pdf(render_latex(ReportDocument(title="t", question="q", date="2024-05-01",
                                                   executive_summary="", body=body)), tmp_path)
    assert result.pdf is not None, result.error
    beyond = [(word, x1) for page in _word_boxes(result.pdf) for _, _, x1, _, word in page if x1 > RIGHT_EDGE + 1]
    assert not beyond, beyond
    assert not overfull_boxes(result.warnings), result.warnings
