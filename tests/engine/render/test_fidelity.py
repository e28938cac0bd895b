"""Nothing lost, nothing added: every word of tricky report bodies reaches the PDF and the Word document.

The corpus is rendered as one report (one LaTeX build), its body's words compared with the
PDF's (``pdftotext``) and the .docx's (python-docx) as multisets after normalising whitespace
and hyphenation; citation markers must be exactly the input's and link to their sources. A
Hypothesis variant builds bodies from the same building blocks.
"""

from __future__ import annotations

import re
import shutil
import time
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from pypdf import PdfReader

from engine.render import ReportDocument, SourceEntry
from engine.render.docx import render_docx
from engine.render.latex import render_latex
from engine.render.pdf import build_pdf, overfull_boxes
from tests.engine.render import fidelity
from tests.engine.render.corpus import CORPUS, SOURCES

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not all(shutil.which(p) for p in ("latexmk", "xelatex", "pdftotext")),
                       reason="latexmk, xelatex and pdftotext (poppler-utils) are needed"),
]
START = "FIDELITYSTART"
SOURCE_NUMBERS = {n for n, _, _ in SOURCES}


def document(body: str, question: str = "How do heat pumps compare?") -> ReportDocument:
    return ReportDocument(title="Fidelity", question=question, date="2024-05-01", executive_summary="",
                          body=f"{START}\n\n{body}", sources=[SourceEntry(*s) for s in SOURCES])


def body_region(text: str) -> str:
    """The text from the start marker to the generated Sources heading (the last one)."""
    start = text.index(START)
    end = [m.start() for m in re.finditer(r"^Sources$", text, re.MULTILINE)][-1]
    return text[start:end]


def build(body: str, out: Path, question: str = "How do heat pumps compare?") -> tuple[Path, list[str], Path]:
    """Build the PDF (footnotes flushed before the Sources list) and the .docx of one body."""
    doc = document(body, question)
    tex = render_latex(doc).replace("\\section{Sources}", "\\clearpage\n\\section{Sources}")
    result = build_pdf(tex, out)
    assert result.pdf is not None, f"{result.error}\n{result.log_tail}"
    return result.pdf, result.warnings, render_docx(doc, out / "report.docx")


def assert_same_words(body: str, text: str, pages: int = 0) -> None:
    """``text`` from the start marker on; ``pages``: a table's header may repeat on each (PDF)."""
    footnotes = len(re.findall(r"^\[\^[^\]]+\]:", body, re.MULTILINE))
    repeated = Counter({w: n * pages for w, n in fidelity.table_headers(body).items()})
    lost, added = fidelity.compare(fidelity.body_words(f"{START}\n\n{body}"), text,
                                   allowed_extra=repeated, footnotes=footnotes)
    assert not lost and not added, f"lost: {dict(lost)}\nadded: {dict(added)}"


def assert_docx_words(body: str, docx: Path) -> None:
    text = body_region(fidelity.docx_text(docx, notes=False)) + "\n" + fidelity.docx_notes(docx)
    assert_same_words(body, text)


def assert_citations(body: str, pdf: Path, docx: Path) -> None:
    """The outputs' citation links are the input's, each showing the number of the source it targets.

    Compared as multisets: a footnote's citations are typeset at the foot of the page.
    """
    expected = Counter(f"src-{n}" for n in fidelity.expected_citations(body, SOURCE_NUMBERS))
    links = fidelity.pdf_citation_links(pdf)
    assert Counter(dest for _, dest in links) == expected
    for shown, dest in links:
        assert dest[4:] in re.findall(r"\d+", shown), (shown, dest)
    internal, bookmarks, _ = fidelity.docx_links(docx)
    assert Counter(dest for _, dest in internal) == expected
    assert all(shown == dest[4:] for shown, dest in internal), internal
    assert {f"src-{n}" for n in SOURCE_NUMBERS} <= bookmarks


@pytest.fixture(scope="module")
def corpus_build(tmp_path_factory):
    body = "\n\n".join(b for _, b in CORPUS)
    started = time.monotonic()
    pdf, warnings, docx = build(body, tmp_path_factory.mktemp("corpus"),
                                question="Why? سؤال بالعربية ושאלה בעברית, 中文问题 and Ελληνικά")
    return body, pdf, warnings, docx, time.monotonic() - started


def test_the_corpus_has_every_kind():
    assert len(CORPUS) >= 40
    assert len({name for name, _ in CORPUS}) == len(CORPUS)


def test_every_word_of_the_corpus_reaches_the_pdf(corpus_build):
    body, pdf, _, _, seconds = corpus_build
    assert_same_words(body, body_region(fidelity.pdf_text(pdf)), pages=len(PdfReader(pdf).pages))
    print(f"corpus of {len(CORPUS)} bodies: PDF and DOCX in {seconds:.1f} s")


def test_every_word_of_the_corpus_reaches_the_docx(corpus_build):
    body, _, _, docx, _ = corpus_build
    assert_docx_words(body, docx)


def test_only_the_inputs_citations_are_links_to_their_sources(corpus_build):
    body, pdf, _, docx, _ = corpus_build
    assert_citations(body, pdf, docx)


def test_nothing_overflows_and_no_glyph_is_missing(corpus_build):
    _, _, warnings, _, _ = corpus_build
    assert not overfull_boxes(warnings), warnings
    assert not [w for w in warnings if w.startswith("Missing character")], warnings


def test_the_question_block_in_arabic_and_hebrew_is_text(corpus_build):
    _, pdf, _, _, _ = corpus_build
    assert {"بالعربية", "ושאלה", "中文问题"} <= set(fidelity.words(fidelity.pdf_text(pdf)))


def test_each_case_alone_compiles_and_loses_nothing(tmp_path):
    """Cases that need a document of their own: a body that is only a table, a heading or a note."""
    for k, body in enumerate(["| a | b |\n|---|---|\n| 1 | 2 |", "##### Deep", "Only a note.[^n]\n\n[^n]: The note."]):
        pdf, warnings, docx = build(body, tmp_path / str(k))
        assert_same_words(body, body_region(fidelity.pdf_text(pdf)), pages=len(PdfReader(pdf).pages))
        assert_docx_words(body, docx)


def test_a_note_holding_code_in_a_table_cell_compiles_and_every_note_keeps_its_number(tmp_path):
    """A note with a code block, referenced from a table cell (a note in a cell is held until the
    table ends, and code cannot be held so): the PDF is built, every word is there, and the notes
    are numbered in reading order, before, inside and after the table, a shared one included."""
    body = ("Before.[^b]\n\n| Tool | Note |\n|---|---|\n| curl | plain note here[^p] |\n"
            "| wget | see this[^c] and again[^b] |\n\nAfter.[^z]\n\n[^b]: Note before the table.\n\n"
            "[^p]: Plain note in a cell.\n\n[^c]: Run it like this:\n\n    ```\n    curl -s https://example.com/{x} | jq '.a'\n"
            "    ```\n\n[^z]: Note after the table.")
    pdf, _, docx = build(body, tmp_path)
    text = fidelity.pdf_text(pdf)
    assert_same_words(body, body_region(text), pages=len(PdfReader(pdf).pages))
    assert_docx_words(body, docx)
    marks = re.sub(r"\s+", " ", text)  # each reference shows its note's number; the shared one its first
    for shown in ("Before.1", "plain note here2", "see this3 and again1", "After.4"):
        assert shown in marks, (shown, marks[:600])
    foot = marks[marks.index("After.4"):]
    places = [foot.find(note) for note in ("Note before", "Plain note", "Run it", "curl -s", "Note after")]
    assert -1 not in places and places == sorted(places), (places, foot[:600])


# --- generated bodies ---------------------------------------------------------------------------

WORDS = ["heat", "pump", "Größe", "Αθήνα", "Москва", "北京", "مضخة", "חום", "ऊष्मा", "ปั๊ม", "3.5-4.2", "15 %",
         "−7 °C", "\\[0, 1\\]", "\\[1-5\\]", "\\[sic\\]", "R&D", "$2M", "#1", "file_v2", "{x}", "a~b",
         "https://example.com/a%20b_(c)#d", "`x[1]`", "*em*", "**strong**", "🚀",
         "some_very_long_identifier_name_without_any_break_inside"]
CITES = ["[1]", "[2]", "[1, 3]", "[3][2]"]


def _sentence(draw) -> str:
    words = draw(st.lists(st.sampled_from(WORDS), min_size=2, max_size=9))
    if draw(st.booleans()):
        words.insert(len(words) // 2, draw(st.sampled_from(CITES)))
    return " ".join(words) + "."


@st.composite
def bodies(draw) -> str:
    blocks = []
    for k in range(draw(st.integers(3, 10))):
        kind = draw(st.sampled_from(["para", "list", "quote", "table", "heading", "code", "note"]))
        text = _sentence(draw)
        if kind == "list":
            depth = draw(st.integers(1, 7))
            blocks.append("\n".join("  " * i + f"- {text}" for i in range(depth)))
        elif kind == "quote":
            blocks.append(">" * draw(st.integers(1, 7)) + " " + text)
        elif kind == "table":
            cols = draw(st.integers(1, 6))
            cells = [_sentence(draw).replace("|", "\\|") for _ in range(cols)]
            blocks.append("| " + " | ".join(f"h{i}" for i in range(cols)) + " |\n|" + "---|" * cols
                          + "\n| " + " | ".join(cells) + " |")
        elif kind == "heading":
            blocks.append("#" * draw(st.integers(1, 6)) + " " + text.rstrip("."))
        elif kind == "code":
            blocks.append("```\n" + text.replace("`", "") + "\t" + "x" * draw(st.integers(0, 300)) + "\n```")
        elif kind == "note":
            blocks.append(f"{text}[^g{k}]\n\n[^g{k}]: {_sentence(draw)}")
        else:
            blocks.append(text)
    return "\n\n".join(blocks)


@seed(20241)
@settings(max_examples=4, deadline=None, database=None, phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(body=bodies())
def test_generated_bodies_lose_nothing(tmp_path, body):
    """Four generated reports (seeded, not shrunk: each example is a LaTeX build of a few seconds)."""
    out = tmp_path / f"gen{time.monotonic_ns()}"
    out.mkdir()
    pdf, warnings, docx = build(body, out)
    assert_same_words(body, body_region(fidelity.pdf_text(pdf)), pages=len(PdfReader(pdf).pages))
    assert_docx_words(body, docx)
    assert_citations(body, pdf, docx)
    assert not overfull_boxes(warnings), warnings


def test_compare_finds_a_lost_and_an_added_word():
    lost, added = fidelity.compare(["interval", "[0,", "1]"], "interval [1] extra")
    assert lost == Counter({"[0,": 1, "1]": 1}) and added == Counter({"[1]": 1, "extra": 1})
    assert fidelity.compare(["information", "technology"], "infor-\nmation tech-\nnology") == (Counter(), Counter())
