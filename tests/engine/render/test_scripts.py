"""Scripts that are shaped: Arabic letters joined in the PDF, right-to-left text marked in the Word document."""

from __future__ import annotations

import re
import shutil
import subprocess
import unicodedata
import zipfile

import pytest

from engine.render import ReportDocument
from engine.render.docx import render_docx
from engine.render.fonts import installed_faces
from engine.render.latex import render_latex
from engine.render.pdf import build_pdf

needs_tex = pytest.mark.skipif(not all(shutil.which(p) for p in ("latexmk", "xelatex", "pdftotext")),
                               reason="latexmk, xelatex and pdftotext (poppler-utils) are needed")
QUESTION = "كيف تعمل المضخات الحرارية؟"
ARABIC_WORDS = ["كيف", "تعمل", "المضخات", "الحرارية"]


def arabic_doc() -> ReportDocument:
    return ReportDocument(title=QUESTION, question=QUESTION, date="2026-11-30", executive_summary="ملخص قصير.",
                          body="## تعمل المضخات\n\nتعمل المضخات الحرارية بنقل الحرارة.\n\nHeat pumps move heat.",
                          language="ar")


@needs_tex
@pytest.mark.slow
@pytest.mark.skipif("Noto Naskh Arabic" not in installed_faces(), reason="fonts-noto-core is needed")
def test_arabic_letters_are_joined_in_the_pdf(tmp_path):
    """Each letter takes its initial, medial or final form inside a word, never the isolated one.

    The PDF's text is the font's presentation forms (its cmap names them); NFKC gives the letters back.
    """
    result = build_pdf(render_latex(arabic_doc()), tmp_path)
    assert result.pdf is not None, result.log_tail
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(result.pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    words = re.findall(r"[\u0600-\u06ff\ufb50-\ufdff\ufe70-\ufeff]+", text)
    for expected in ARABIC_WORDS:
        found = [w for w in words if unicodedata.normalize("NFKC", w) == expected]
        assert found, (expected, words)
        for word in found:
            forms = [unicodedata.decomposition(ch).split(" ")[0] for ch in word]
            assert set(forms) != {"<isolated>"}, (word, forms)  # unshaped: every letter isolated
            if expected == "كيف":  # three letters that join on both sides
                assert forms == ["<initial>", "<medial>", "<final>"], (word, forms)


def test_every_shaped_script_font_is_loaded_with_its_script():
    """fontspec shapes a font's text only with ``Script=``: Arabic, Hebrew, Devanagari and Thai fonts get it."""
    doc = ReportDocument(title="Scripts", question="q", date="2026-11-30", executive_summary="",
                         body="مضخة حرارية، משאבת חום, ऊष्मा पंप, ปั๊มความร้อน")
    tex = render_latex(doc)
    faces = installed_faces()
    for script, font in (("Arabic", "Noto Naskh Arabic"), ("Hebrew", "Noto Serif Hebrew"),
                         ("Devanagari", "Noto Serif Devanagari"), ("Thai", "Noto Serif Thai")):
        if font in faces:
            line = next(ln for ln in tex.splitlines() if ln.startswith("\\newfontfamily") and f"{{{font}}}" in ln)
            assert f"Script={script}" in line, line


def test_right_to_left_text_is_marked_in_the_docx(tmp_path):
    """Arabic runs are ``w:rtl`` and paragraphs that start in Arabic ``w:bidi``; English ones are neither."""
    path = render_docx(arabic_doc(), tmp_path / "report.docx")
    xml = zipfile.ZipFile(path).read("word/document.xml").decode("utf-8")
    paragraphs = re.findall(r"<w:p\b.*?</w:p>", xml, re.DOTALL)
    for p in paragraphs:
        text = "".join(re.findall(r"<w:t[^>]*>([^<]*)</w:t>", p))
        if text.startswith("تعمل المضخات"):
            assert "<w:bidi" in p, p
            runs = re.findall(r"<w:r\b.*?</w:r>", p, re.DOTALL)
            assert all("<w:rtl" in r for r in runs if re.search("[\u0600-\u06ff]", r)), p
        if text.startswith("Heat pumps"):
            assert "<w:bidi" not in p and "<w:rtl" not in p, p
    assert any(re.search(r"<w:t[^>]*>تعمل", p) for p in paragraphs)
