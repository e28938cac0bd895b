"""Chinese and Japanese write a label's colon full-width, with no space before it (``**日期：** 2026-01-05``,
``**問題**：…``): report.md's lines under the title read as its fields with either colon, inside or
after the bold, and the PDF and the Word document show the colon report.md writes."""

from __future__ import annotations

import re

import panflute as pf
import pytest

from engine.chinese import TRADITIONAL
from engine.render.docx import docx_document
from engine.render.latex import LABELS, labels_for, render_latex
from engine.render.reread import document_from_markdown

#: The keys of the fields under the title.
FRONT_KEYS = ("date", "question", "clarification")
#: Every language with labels of its own, Traditional Chinese (the Chinese labels in OpenCC's characters) too.
LANGUAGES = [*(code for code in LABELS if code != TRADITIONAL), TRADITIONAL]


def _front(labels: dict[str, str], colon: str, after: bool) -> str:
    """The Date, Question and Clarification lines of ``labels``, each with ``colon`` in the bold or ``after`` it."""
    def label(key: str) -> str:
        return f"**{labels[key]}**{colon}" if after else f"**{labels[key]}{colon}**"
    return (f"{label('date')} 2026-01-05\n\n{label('question')} Is water wet?\n\n"
            f"{label('clarification')} Which? — Tap.")


def _latex(doc) -> str:
    """The LaTeX of ``doc``'s PDF, each run of text set in a fallback font (CJK) unwrapped: its text alone."""
    return re.sub(r"\\drbfallback[A-Z]+\{([^{}]*)\}", r"\1", str(render_latex(doc)))


def _field_paragraphs(doc) -> dict[str, str]:
    """The Word document's paragraphs that open with a bold label, by that label's text: their whole text."""
    return {pf.stringify(para.content[0]): pf.stringify(para).rstrip("\n") for para in docx_document(doc).content
            if isinstance(para, pf.Para) and para.content and isinstance(para.content[0], pf.Strong)}


@pytest.mark.parametrize("after", [False, True], ids=["in-bold", "after-bold"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_label_with_a_full_width_colon_is_read_as_its_field(language, after):
    """``**日期：** 2026-01-05`` and ``**问题**：…`` were not read as the date and the question: the lines
    under the title stayed in the body and the report had no date. A full-width colon reads as the
    colon of a label of any language (a person may type either), in the bold or after it."""
    labels = labels_for(language)
    doc = document_from_markdown(f"# Water\n\n{_front(labels, '：', after)}\n\nBody.\n", recorded=language)
    assert (doc.date, doc.question, doc.clarification, doc.body) == ("2026-01-05", "Is water wet?", "Which? — Tap.",
                                                                     "Body.")
    assert {key: doc.labels[key] for key in FRONT_KEYS} == {key: labels[key] for key in FRONT_KEYS}
    assert doc.language == language


@pytest.mark.parametrize("language", ["zh", TRADITIONAL, "ja", "en"])
def test_a_full_width_colon_in_the_bold_shows_in_the_pdf_as_in_the_word_document(language):
    """The label keeps its full-width colon, bold, in both outputs: neither writes an ASCII colon
    for it nor adds one."""
    labels = labels_for(language)
    doc = document_from_markdown(f"# Water\n\n{_front(labels, '：', False)}\n\nBody.\n", recorded=language)
    fields = _field_paragraphs(doc)
    date, question, clarification = (labels[key] for key in FRONT_KEYS)
    assert fields == {f"{date}：": f"{date}： 2026-01-05", f"{question}：": f"{question}：",
                      f"{clarification}：": f"{clarification}："}, fields
    tex = _latex(doc)
    assert f"\\textbf{{{date}：}} 2026-01-05" in tex, tex[tex.index("textbf{"):][:60]
    for key in ("question", "clarification"):
        assert f"\\textbf{{{labels[key]}：}}" in tex, tex[tex.index("textbf{"):][:60]
    assert f"{date}:" not in tex and f"{date}：:" not in tex


@pytest.mark.parametrize("language", ["zh", TRADITIONAL, "ja"])
def test_a_full_width_colon_after_the_bold_shows_so_in_the_pdf_as_in_the_word_document(language):
    """``**问题**：…``: the label bold and its full-width colon after it, not bold, in both outputs."""
    labels = labels_for(language)
    doc = document_from_markdown(f"# Water\n\n{_front(labels, '：', True)}\n\nBody.\n", recorded=language)
    fields = _field_paragraphs(doc)
    date, question, clarification = (labels[key] for key in FRONT_KEYS)
    assert fields == {date: f"{date}： 2026-01-05", question: f"{question}：", clarification: f"{clarification}："}
    tex = _latex(doc)
    assert f"\\textbf{{{date}}}： 2026-01-05" in tex, tex[tex.index("textbf{"):][:60]
    for key in ("question", "clarification"):
        assert f"\\textbf{{{labels[key]}}}：" in tex, tex[tex.index("textbf{"):][:60]


@pytest.mark.parametrize("after", [False, True], ids=["in-bold", "after-bold"])
@pytest.mark.parametrize("language", ["zh", TRADITIONAL, "ja"])
def test_a_label_written_with_an_ascii_colon_keeps_it(language, after):
    """report.md of earlier versions writes ``**日期:**``: it still reads as the date, and both outputs
    show the ASCII colon as written, not the language's full-width one."""
    labels = labels_for(language)
    doc = document_from_markdown(f"# Water\n\n{_front(labels, ':', after)}\n\nBody.\n", recorded=language)
    assert (doc.date, doc.question, doc.clarification, doc.body) == ("2026-01-05", "Is water wet?", "Which? — Tap.",
                                                                     "Body.")
    date = labels["date"]
    assert f"{date}: 2026-01-05" in _field_paragraphs(doc).values()
    tex = _latex(doc)
    assert (f"\\textbf{{{date}}}: 2026-01-05" if after else f"\\textbf{{{date}:}} 2026-01-05") in tex, \
        tex[tex.index("textbf{"):][:60]
    assert "：" not in tex[tex.index(f"textbf{{{date}"):][:40]


def test_a_body_paragraph_opening_with_a_bold_word_and_a_full_width_colon_stays_as_written():
    """Only the lines right under the title are fields: a later ``**日期**：…`` or ``**注意：**…`` stays in the body."""
    body = "**注意：** 水泵是新的。\n\n**日期**：故障那天。"
    doc = document_from_markdown(f"# 水泵\n\n**日期：** 2026-01-05\n\n{body}\n", recorded="zh")
    assert (doc.date, doc.body) == ("2026-01-05", body)
