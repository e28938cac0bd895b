"""Table layout: natural widths when a table fits, content-based widths, smaller type, landscape."""

from __future__ import annotations

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
