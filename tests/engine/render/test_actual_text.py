"""Text copied or searched in the PDF is the text as written, for scripts whose glyphs are drawn in
another order than their characters (a vowel sign before its consonant, a reph above the next one) or
in forms no character names (Burmese alternate letters): their words carry their characters as
ActualText (PDF 32000-1:2008, 14.9.4), and only theirs."""

from __future__ import annotations

import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest
from pypdf import PdfReader
from pypdf.generic import ContentStream, DictionaryObject

from engine.render import ReportDocument
from engine.render.fonts import ACTUAL_TEXT_SCRIPTS, installed_faces
from engine.render.latex import render_latex
from engine.render.pdf import build_pdf
from tests.engine.render.script_samples import SAMPLES

needs_tex = pytest.mark.skipif(
    not all(shutil.which(p) for p in ("latexmk", "xelatex", "pdftotext"))
    or not {"Noto Serif Devanagari", "Noto Serif Myanmar", "Noto Serif Kannada"} <= set(installed_faces()),
    reason="latexmk, xelatex, pdftotext and fonts-noto-core are needed",
)

# Words whose glyphs are drawn in another order than their characters, or in unnamed forms.
WORDS = {
    "Devanagari": "दुनिया क्षत्रिय",
    "Kannada": "ನಮಸ್ಕಾರ",
    "Bengali": "হ্যালো",
    "Myanmar": "နိုင်ငံ ရုံး",
    "Malayalam": "കൊണ്ട് പ്രശ്നം",
    "Gujarati": "કિંમત",
    "Gurmukhi": "ਕਿਤਾਬ",
    "Telugu": "కొత్త",
    "Oriya": "କିଛି",
    "Tamil": "கொண்டு",
    "Sinhala": "කොළඹ",
    "Khmer": "កម្ពុជា",
    "Tibetan": "བོད་སྐད",
}
LONG_HINDI = "अंतर्राष्ट्रीयकरणप्रौद्योगिकीविश्वविद्यालयदुनियाक्षत्रिय"


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _doc(body: str) -> ReportDocument:
    return ReportDocument(
        title="Scripts", question="q", date="2026-12-07", executive_summary="", body=body, language="en"
    )


def _pdftotext(pdf: Path) -> str:
    return subprocess.run(
        ["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout


def actual_texts(pdf: Path) -> list[str]:
    """The ActualText of every marked-content span on the PDF's pages, in content order (pypdf)."""
    reader = PdfReader(pdf)
    out: list[str] = []
    for page in reader.pages:
        stream = ContentStream(page.get_contents(), reader)
        for operands, operator in stream.operations:
            if operator == b"BDC" and len(operands) == 2 and isinstance(operands[1], DictionaryObject):
                text = operands[1].get("/ActualText")
                out.extend([str(text)] if text is not None else [])
    return out


def _lines(script: str) -> list[str]:
    return [SAMPLES[script], WORDS[script]] if script in WORDS else [SAMPLES[script]]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, str]:
    body = "\n\n".join(
        [f"{script}: {line}" for script in ACTUAL_TEXT_SCRIPTS for line in _lines(script)]
        + [LONG_HINDI, "Mixed: عربي दुनिया עברית क्षत्रिय office"]
    )
    tex = render_latex(_doc(body))
    result = build_pdf(tex, tmp_path_factory.mktemp("actual"))
    assert result.pdf is not None, result.log_tail
    return result.pdf, tex


def test_the_scripts_are_those_whose_glyphs_are_reordered_or_unnamed():
    assert set(ACTUAL_TEXT_SCRIPTS) == set(WORDS)
    assert not {"Arabic", "Hebrew", "Syriac", "Thaana", "Nko", "Thai", "Lao"} & set(ACTUAL_TEXT_SCRIPTS)


@pytest.mark.parametrize("script", sorted(WORDS))
def test_each_word_of_such_a_script_is_marked_for_actual_text(script):
    tex = render_latex(_doc(WORDS[script]))
    assert re.search(r"\\drbfallback[A-Z]+\{\\drbactualtext\{", tex), tex[-800:]


def test_latin_thai_lao_and_right_to_left_text_get_no_actual_text():
    tex = render_latex(
        _doc(
            "office ﬁne "
            + " ".join(SAMPLES[s] for s in ("Thai", "Lao", "Arabic", "Hebrew", "Syriac", "Thaana", "Nko"))
        )
    )
    assert "\\drbactualtext{" not in tex.split("\\begin{document}")[1]


@needs_tex
@pytest.mark.slow
@pytest.mark.parametrize("script", ACTUAL_TEXT_SCRIPTS)
def test_pdftotext_copies_each_word_as_written(built, script):
    text = _nfc(_pdftotext(built[0]))
    for line in _lines(script):
        assert _nfc(line) in text, (script, line, [ln for ln in text.splitlines() if ln.startswith(script)])


@needs_tex
@pytest.mark.slow
@pytest.mark.parametrize("script", ACTUAL_TEXT_SCRIPTS)
def test_each_word_is_its_own_actual_text_read_with_pypdf(built, script):
    """pypdf's ``extract_text`` reads the glyphs, not the ActualText (it draws them in visual order):
    the ActualText it reads from the page's content stream is each word as written."""
    spans = {_nfc(t) for t in actual_texts(built[0])}
    for line in _lines(script):
        for word in line.split():
            assert _nfc(word) in spans, (script, word, sorted(spans))


@needs_tex
@pytest.mark.slow
def test_a_long_word_still_breaks_and_copies_whole(built):
    """``\\drbbreak`` opportunities cut a long word between clusters: each piece its own ActualText."""
    assert re.search(r"\\drbactualtext\{[^{}]*\\drbbreak\{\}", built[1]), "no break opportunity in the word"
    spans = [_nfc(t) for t in actual_texts(built[0])]
    assert len([t for t in spans if t and t in _nfc(LONG_HINDI)]) > 1, spans
    assert _nfc(LONG_HINDI) in "".join(spans), spans
    assert _nfc(LONG_HINDI) in re.sub(r"\s+", "", _nfc(_pdftotext(built[0])))


@needs_tex
@pytest.mark.slow
def test_right_to_left_and_latin_words_carry_no_actual_text(built):
    """Arabic and Hebrew (set right to left by TeX--XeT) and Latin keep their glyphs' own text."""
    spans = actual_texts(built[0])
    assert not [t for t in spans if re.search("[\u0590-\u08ff]|[A-Za-z]", t)], spans
    text = _nfc(_pdftotext(built[0]))
    mixed = next(ln for ln in text.splitlines() if ln.startswith("Mixed"))
    assert "दुनिया" in mixed and "क्षत्रिय" in mixed and "office" in mixed, mixed
    assert "عربي" in unicodedata.normalize("NFKC", mixed) and "עברית" in mixed, mixed


@needs_tex
@pytest.mark.slow
def test_a_latin_report_has_no_actual_text(tmp_path):
    result = build_pdf(render_latex(_doc("The office of fine affairs. " + SAMPLES["Thai"])), tmp_path)
    assert result.pdf is not None, result.log_tail
    assert actual_texts(result.pdf) == []
    assert "office of fine affairs" in _pdftotext(result.pdf)
    assert "office of fine affairs" in "".join(p.extract_text() for p in PdfReader(result.pdf).pages)


@needs_tex
@pytest.mark.slow
@pytest.mark.xfail(
    strict=True,
    reason="the word's last glyph is its pulli, drawn back over its letter: pdftotext reads the gap from "
    "there to the punctuation as a space ('தமிழ் :'); the word itself copies as written"
)
def test_punctuation_after_a_word_ending_in_a_mark_copies_without_a_space(tmp_path):
    result = build_pdf(render_latex(_doc("தமிழ்: அப்பா, தமிழ்.")), tmp_path)
    assert result.pdf is not None, result.log_tail
    assert "தமிழ்: அப்பா, தமிழ்." in _nfc(_pdftotext(result.pdf))
