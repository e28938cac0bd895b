"""Text read from a PDF, as the thread files and the corpus indexer read it: the words as the page
shows them (ligatures as their letters), a heading apart from the sentence under it."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from engine.files.read import read_file
from engine.search.extract import extract_document
from engine.segments import paragraphs

pytestmark = pytest.mark.skipif(not shutil.which("xelatex"), reason="xelatex is needed to make the PDF")

TEX = r"""\documentclass{article}
\usepackage{fontspec}
\begin{document}
\section{Maintenance}
A heat pump needs little maintenance. Its efficiency is high, the flow is official and the offer
is final; the floor area is 20 m² and the difference is small.
\section{Costs}
An affluent buyer pays more.
\end{document}
"""


@pytest.fixture(scope="module")
def pdf(tmp_path_factory):
    """A PDF made by xelatex (fontspec, Latin Modern): it sets "ff", "ffi", "fl" as ligature glyphs,
    which the PDF maps to U+FB00-U+FB04, and its section headings in a larger font."""
    folder = tmp_path_factory.mktemp("tex")
    (folder / "pump.tex").write_text(TEX, encoding="utf-8")
    subprocess.run(["xelatex", "-interaction=nonstopmode", "-halt-on-error", "pump.tex"], cwd=folder,
                   check=True, capture_output=True, timeout=300)
    return folder / "pump.pdf"


def _texts(path):
    return {"thread file": read_file(path, "pump.pdf", max_pages=10, max_chars=100_000).sections[0][1],
            "corpus": extract_document(path, path.stat().st_size)[1]}


def test_ligatures_read_as_their_letters_and_nothing_else_changes(pdf):
    for reader, text in _texts(pdf).items():
        assert not any("\ufb00" <= ch <= "\ufb06" for ch in text), (reader, text)
        for word in ("efficiency", "official", "offer", "final", "difference", "affluent", "flow"):
            assert word in text, (reader, word, text)
        assert "20 m²" in text, (reader, text)  # no compatibility mapping beyond the ligatures


def test_a_heading_is_a_paragraph_of_its_own(pdf):
    for reader, text in _texts(pdf).items():
        found = paragraphs(text)
        assert "1 Maintenance" in found and "2 Costs" in found, (reader, found)
        assert any(p.startswith("A heat pump needs") for p in found), (reader, found)
