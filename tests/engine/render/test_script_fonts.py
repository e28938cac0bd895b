"""Each letter in a font made for its own script, and a letter with its vowel signs never split across fonts."""

from __future__ import annotations

import shutil
import subprocess
import unicodedata

import pytest
import regex
from icu4py.breakers import CharacterBreaker

from engine.render import ReportDocument
from engine.render.fonts import SHAPED_SCRIPTS, FontPlan, installed_faces, segments
from engine.render.latex import render_latex
from engine.render.pdf import build_pdf
from tests.engine.render.fidelity import pdf_text
from tests.engine.render.script_samples import SAMPLES

needs_tex = pytest.mark.skipif(
    not all(shutil.which(p) for p in ("latexmk", "xelatex", "pdftotext", "pdffonts")),
    reason="latexmk, xelatex and poppler-utils are needed",
)


def _made_for(family: str, script: str) -> bool:
    return script.lower() in family.lower().split()


def _plan() -> FontPlan:
    return FontPlan("en", SAMPLES.values(), installed_faces())


def test_every_shaped_script_has_a_sample():
    assert set(SAMPLES) == set(SHAPED_SCRIPTS)


@pytest.mark.parametrize("script", sorted(SAMPLES))
def test_each_letter_is_set_in_a_font_of_its_script_and_no_cluster_is_split(script):
    """Every character of the script (its digits too) in an installed font made for it, when there is one;
    every cluster (a letter with its vowel signs, viramas and marks) in one font; no placeholder."""
    plan = _plan()
    faces = installed_faces()
    if not faces:
        pytest.skip("fontconfig lists no font")
    text = SAMPLES[script]
    runs = segments(text, plan, plan.main)
    assert "".join(piece for _, piece in runs) == text, runs  # no placeholder, nothing left out
    own = [f for f in faces if regex.fullmatch(r"Noto (Serif|Sans) " + script, f, regex.IGNORECASE)]
    at, fonts = 0, []
    for family, piece in runs:
        fonts.extend([family] * len(piece))
        at += len(piece)
    for i, ch in enumerate(text):
        if regex.match(r"\p{Script=%s}" % script, ch) and own:  # noqa: UP031
            assert _made_for(fonts[i], script) or fonts[i] in own, (script, ch, f"U+{ord(ch):04X}", fonts[i])
    for start, end in CharacterBreaker(text, "root").segments():  # Unicode UAX #29 by ICU
        assert len(set(fonts[start:end])) == 1, (script, text[start:end], fonts[start:end])


@needs_tex
@pytest.mark.slow
@pytest.mark.skipif(
    not {"Noto Serif Tamil", "Noto Serif Myanmar", "Noto Serif Lao"} <= set(installed_faces()),
    reason="fonts-noto-core is needed",
)
def test_tamil_myanmar_and_lao_text_reach_the_pdf_in_their_own_fonts(tmp_path):
    """The PDF's text is the report's (no placeholder), set in the fonts made for the scripts."""
    words = ["தமிழ்: அப்பா விழா ௨௦௨௪", "မြန်မာ ၂၀၂၄", "ພາສາລາວ ໂຮງຮຽນ"]
    doc = ReportDocument(
        title="Scripts",
        question="q",
        date="2026-12-07",
        executive_summary="",
        body="\n\n".join(words),
        language="en",
    )
    result = build_pdf(render_latex(doc), tmp_path)
    assert result.pdf is not None, result.log_tail
    text = pdf_text(result.pdf)
    assert "[U+" not in text and "\u25cc" not in text, text  # no placeholder, no mark drawn alone
    # As written: each Tamil and Burmese word carries its characters (ActualText). pdftotext may put
    # a space between a word ending in a mark (Tamil pulli) and the punctuation after it.
    flat = "".join(unicodedata.normalize("NFC", text).split())
    for line in words:
        assert "".join(unicodedata.normalize("NFC", line).split()) in flat, (line, text)
    fonts = subprocess.run(["pdffonts", str(result.pdf)], capture_output=True, text=True, check=True).stdout
    for family in ("NotoSerifTamil", "NotoSerifMyanmar", "NotoSerifLao"):
        assert family in fonts, fonts
    for wrong in ("Grantha", "Chakma", "Looped"):
        assert wrong not in fonts, fonts
