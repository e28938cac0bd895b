"""Right-to-left text in the PDF in the order the Unicode Bidirectional Algorithm (UAX #9) shows it:
words read by their x positions on the page, as a reader sees them."""

from __future__ import annotations

import shutil
import unicodedata

import pytest

from engine.render import ReportDocument, SourceEntry
from engine.render.bidi import levels, mark
from engine.render.fonts import installed_faces
from engine.render.latex import render_latex
from engine.render.pdf import build_pdf
from tests.engine.render.fidelity import _word_boxes

needs_tex = pytest.mark.skipif(
    not all(shutil.which(p) for p in ("latexmk", "xelatex", "pdftotext"))
    or "Noto Serif Hebrew" not in installed_faces(),
    reason="latexmk, xelatex, pdftotext and the Noto fonts are needed",
)

BODY = """P1: א **ב** ג.

P2: א *ב* ג.

P3: א [ב](https://e.org/x) ג.

P4: א `ב` ג.

P5: ا **ب** ت.

P6: English **bold א** ב end.

P7: ש 2024.

P8: ש (א) ב.

P9: `א ב ג` code.

```
P10 = "א ב ג"
```

P11: א [ב English](https://e.org/y) ג.

P12: א [English ב](https://e.org/z) ג.

P13: \u202eabc def\u202c end.
"""


def visual_lines(pdf) -> list[str]:
    """The first page's lines, words left to right by x, Arabic presentation forms as letters."""
    lines: list[tuple[float, list[tuple[float, str]]]] = []
    for x0, y0, _x1, y1, word in sorted(_word_boxes(pdf)[0], key=lambda w: (w[1] + w[3]) / 2):
        mid = (y0 + y1) / 2
        if lines and abs(lines[-1][0] - mid) < 4:
            lines[-1][1].append((x0, word))
        else:
            lines.append((mid, [(x0, word)]))
    return [unicodedata.normalize("NFKC", " ".join(w for _, w in sorted(ws))) for _, ws in lines]


def _latex(body: str) -> str:
    """The LaTeX of a report whose body is the Markdown ``body``."""
    return render_latex(
        ReportDocument(title="Report", question="Why?", date="2026-12-07", executive_summary="", body=body)
    )


@pytest.fixture(scope="module")
def lines(tmp_path_factory) -> list[str]:
    doc = ReportDocument(
        title="Report",
        question="Why?",
        date="2026-12-07",
        executive_summary="",
        body=BODY,
        sources=[SourceEntry(1, "עברית — 123", "https://a.example")],
    )
    result = build_pdf(render_latex(doc), tmp_path_factory.mktemp("bidi"))
    assert result.pdf is not None, result.log_tail
    return visual_lines(result.pdf)


def line(lines: list[str], start: str) -> str:
    return next(text for text in lines if text.startswith(start) or text.endswith(start))


@needs_tex
@pytest.mark.slow
@pytest.mark.parametrize("label", ["P1:", "P2:", "P3:", "P4:"])
def test_a_hebrew_phrase_reads_right_to_left_with_a_formatted_word_in_it(lines, label):
    assert line(lines, label) == f"{label} ג ב א."


@needs_tex
@pytest.mark.slow
def test_an_arabic_phrase_reads_right_to_left_with_a_bold_word_in_it(lines):
    assert line(lines, "P5:") == "P5: ت ب ا."


@needs_tex
@pytest.mark.slow
def test_a_run_that_starts_in_bold_ends_after_it(lines):
    assert line(lines, "P6:") == "P6: English bold ב א end."


@needs_tex
@pytest.mark.slow
def test_a_number_after_a_hebrew_word_stands_left_of_it_as_uax9_puts_it(lines):
    assert line(lines, "P7:") == "P7: 2024 ש."
    assert any(text.endswith("123 — תירבע") for text in lines), lines  # a source's title


@needs_tex
@pytest.mark.slow
def test_hebrew_in_inline_code_and_code_blocks_reads_right_to_left(lines):
    assert line(lines, "P9:") == "P9: ג ב א code."
    assert line(lines, "P10") == 'P10 = " ג ב א "'


@needs_tex
@pytest.mark.slow
def test_a_link_whose_text_changes_direction_keeps_the_order_of_its_paragraph(lines):
    """The same words without the link read ``ב א English ג.`` and ``א English ג ב.``: the link is
    set as one piece per level, none of its words or spaces moved."""
    assert line(lines, "P11:") == "P11: ב א English ג."
    assert line(lines, "P12:") == "P12: א English ג ב."


@needs_tex
@pytest.mark.slow
def test_a_right_to_left_override_reverses_all_its_letters(lines):
    assert line(lines, "P13:") == "P13: fed cba end."


def test_levels_follow_explicit_embeddings_and_overrides():
    assert levels("\u202eabc d\u202c e") == [0, 1, 1, 1, 1, 1, 1, 0, 0]  # X5, X9: RLO makes letters R
    assert levels("a\u202bb c\u202c d") == [0, 0, 2, 2, 2, 2, 0, 0]  # RLE: level 1, its L letters 2
    assert levels("\u202dשל\u202c x") == [0, 2, 2, 2, 0, 0]  # LRO: Hebrew letters set left to right
    assert levels("x \u2067ש\u2069 y") == [0, 0, 0, 1, 0, 0, 0]  # an isolate as before


def test_a_link_is_set_as_one_link_per_level_with_the_same_target():
    tex = _latex("א [English ב](https://e.org/x) ג.")
    assert tex.count("\\href{https://e.org/x}") == 2
    assert (
        "\\href{https://e.org/x}{English} \\drbbeginR{}\\drbbeginL{}\\href{https://e.org/x}{\\drbbeginR{}"
        in tex
    )


def test_levels_follow_uax9_for_numbers_neutrals_and_brackets():
    assert levels("ש 2024.") == [1, 1, 2, 2, 2, 2, 0]  # N1: the space takes R; the period the paragraph's L
    assert levels("عربي 12") == [1, 1, 1, 1, 1, 2, 2]  # W2: a number after Arabic is AN
    assert levels("2024 ש") == [0, 0, 0, 0, 0, 1]  # W7: a number after the paragraph start is L
    assert levels("ש [1] x") == [1, 1, 1, 2, 1, 0, 0]  # N0: the brackets take the R before them
    assert levels("and (א) x") == [0, 0, 0, 0, 0, 1, 0, 0, 0]
    assert levels("ש (a) ב") == [1, 0, 0, 0, 0, 0, 1]
    assert levels("ש\u2028x") == [1, 0, 0]  # a line break ends the run


def test_marks_keep_every_character_and_span_formatting():
    inlines = [
        {"t": "Str", "c": "א"},
        {"t": "Space"},
        {"t": "Strong", "c": [{"t": "Str", "c": "ב"}]},
        {"t": "Space"},
        {"t": "Str", "c": "ג."},
    ]
    out = mark(inlines)
    assert [n["c"][1] for n in out if n["t"] == "RawInline"] == ["\\drbbeginR{}", "\\drbendR{}"]
    assert (
        out[0]["c"][1] == "\\drbbeginR{}"
        and out[-2]["c"][1] == "\\drbendR{}"
        and out[-1] == {"t": "Str", "c": "."}
    )
    assert [n for n in out if n["t"] != "RawInline"] == [
        *inlines[:4],
        {"t": "Str", "c": "ג"},
        {"t": "Str", "c": "."},
    ]
    assert mark([{"t": "Str", "c": "plain"}]) == [{"t": "Str", "c": "plain"}]


def test_brackets_in_right_to_left_text_are_drawn_mirrored_and_keep_their_character():
    tex = _latex("ש (א) ב.")
    assert "\\drbmirror{(}" in tex and "\\drbmirror{)}" in tex


def test_a_link_or_note_inside_a_right_to_left_run_keeps_its_colour_in_order():
    """Its colour and link specials (push, then pop) are reordered with the run unless the link is a
    left-to-right segment of its own, which TeX--XeT turns back: else the colour runs on past the link."""
    tex = _latex("א [ב ג](https://e.org/x) ד[^1] ה.\n\n[^1]: ו.")
    assert "\\drbbeginL{}\\href{https://e.org/x}{\\drbbeginR{}" in tex
    assert "\\drbendR{}}\\drbendL{}" in tex
    assert "\\drbbeginL{}\\footnote{" in tex
