"""Break opportunities in long runs fall only between grapheme clusters, and in Thai, Lao, Khmer and
Burmese (written without spaces) between words."""

from __future__ import annotations

import re
import shutil
import unicodedata

import pytest
from icu4py.breakers import CharacterBreaker, LineBreaker

from engine.render import ReportDocument
from engine.render.fonts import installed_faces
from engine.render.latex import IDENTIFIER_RUN, LONG_RUN, _pieces, render_latex
from engine.render.pdf import build_pdf, overfull_boxes
from tests.engine.render.fidelity import pdf_text
from tests.engine.render.script_samples import SAMPLES

needs_tex = pytest.mark.skipif(
    not all(shutil.which(p) for p in ("latexmk", "xelatex", "pdftotext")),
    reason="latexmk, xelatex and pdftotext (poppler-utils) are needed",
)
KHMER = "ភាសាខ្មែរគឺជាភាសាកំណើតរបស់ជនជាតិខ្មែរ"
MYANMAR = "မြန်မာဘာသာစကားသည်မြန်မာနိုင်ငံ၏ရုံးသုံးဘာသာစကား"
HINDI = "अंतर्राष्ट्रीयकरणप्रौद्योगिकीविश्वविद्यालय"
HINDI_CELL = "प्रौद्योगिकीविश्वविद्यालय"
THAI = "ภาษาไทยเป็นภาษาราชการของประเทศไทยและเป็นภาษาแม่ของชาวไทย"
LAO = "ພາສາລາວເປັນພາສາທາງການຂອງສາທາລະນະລັດປະຊາທິປະໄຕປະຊາຊົນລາວ"
# Long runs of every script the font plan knows: each sample's first word eight times over, no space.
LONG_WORDS = {
    "khmer": KHMER,
    "myanmar": MYANMAR,
    "hindi": HINDI,
    "hindi-cell": HINDI_CELL,
    "thai": THAI,
    "lao": LAO,
    **{script.lower(): SAMPLES[script].split()[0] * 8 for script in sorted(SAMPLES)},
}


def _cuts(text: str, max_run: int) -> list[int]:
    pieces = _pieces(text, max_run, IDENTIFIER_RUN)
    assert "".join(piece for _, piece in pieces) == text
    at, cuts = 0, []
    for brk, piece in pieces:
        if brk:
            cuts.append(at)
        at += len(piece)
    return cuts


@pytest.mark.parametrize("max_run", [4, 8, 12, LONG_RUN])
@pytest.mark.parametrize("word", LONG_WORDS.values(), ids=LONG_WORDS.keys())
def test_a_long_run_breaks_only_between_grapheme_clusters(word, max_run):
    """A vowel sign, virama or mark never starts a line (drawn alone over a dotted circle)."""
    ends = _python_ends(word)  # Unicode UAX #29 by ICU
    cuts = _cuts(word, max_run)
    if len(word) > max_run:
        assert cuts, word
    for cut in cuts:
        assert cut in ends, (word, word[:cut], word[cut:])


@pytest.mark.parametrize(
    "text",
    [THAI, LAO, KHMER, MYANMAR, "ภาษาไทย", "ข้อความ ภาษาไทยเป็นภาษาราชการ"],
    ids=["thai", "lao", "khmer", "myanmar", "thai-short", "thai-two-runs"],
)
def test_thai_lao_khmer_and_burmese_break_between_words(text):
    """ICU's dictionaries find the words of scripts written without spaces: a line may break between
    any two of them, and only there."""
    ends = {end for _, end in LineBreaker(text, "root").segments()}
    cuts = _cuts(text, LONG_RUN)
    assert cuts, text
    for cut in cuts:
        assert cut in ends, (text[:cut], text[cut:])
    assert set(cuts) == {e for e in ends if e < len(text) and not text[e - 1].isspace()}


@needs_tex
@pytest.mark.slow
@pytest.mark.skipif(
    not {"Noto Serif Devanagari", "Noto Serif Khmer", "Noto Serif Myanmar"} <= set(installed_faces()),
    reason="fonts-noto-core is needed",
)
def test_long_words_reach_the_pdf_without_a_mark_set_alone(tmp_path):
    """No dotted circle (HarfBuzz's stand-in base for a mark that starts a run) in running text or in
    a narrow table column, and every word whole."""
    header = "| " + " | ".join(f"c{i}" for i in range(8)) + " |\n|" + "---|" * 8 + "\n"
    row = "| " + " | ".join([HINDI_CELL] * 8) + " |\n"
    body = "\n\n".join([KHMER, MYANMAR, HINDI, THAI, header + row])
    doc = ReportDocument(
        title="Scripts", question="q", date="2026-12-07", executive_summary="", body=body, language="en"
    )
    result = build_pdf(render_latex(doc), tmp_path)
    assert result.pdf is not None, result.log_tail
    text = pdf_text(result.pdf)
    assert "\u25cc" not in text, text
    # Each word as written, its vowel signs in their place and Burmese letters in their alternate
    # forms named (ActualText), whichever lines and cells its pieces end on.
    flat = re.sub(r"\s+", "", unicodedata.normalize("NFC", text))
    for word in (KHMER, MYANMAR, HINDI, THAI, HINDI_CELL):
        assert unicodedata.normalize("NFC", word) in flat, (word, text)


# Scripts XeTeX does not break between letters (only Han, kana and Hangul do): a long run in them breaks
# between grapheme clusters like Devanagari, wherever their code points lie.
UNBROKEN_BY_TEX = {
    "javanese": "ꦧꦱꦗꦮ" * 40,
    "vai": "ꕙꔤꕮꔷ" * 40,
    "meetei-mayek": "ꯃꯤꯇꯩꯂꯣꯟ" * 30,
    "cherokee-small": "ꮳꮃꭹ" * 40,
    "yi": "ꆈꌠꁱꂷ" * 20,
}


@pytest.mark.parametrize("word", UNBROKEN_BY_TEX.values(), ids=UNBROKEN_BY_TEX.keys())
def test_a_long_run_of_a_script_tex_does_not_break_gets_break_points(word):
    ends = _python_ends(word)
    cuts = _cuts(word, LONG_RUN)
    assert cuts and set(cuts) <= ends, word
    assert max(b - a for a, b in zip([0, *cuts], [*cuts, len(word)], strict=True)) <= LONG_RUN


def test_chinese_japanese_and_korean_are_left_to_tex():
    """XeTeX breaks between ideographs, kana and Hangul syllables itself (ICU, linebreaklocale)."""
    for text in ("中文" * 30, "ひらがなカタカナ" * 8, "한국어" * 20):
        assert _cuts(text, LONG_RUN) == [], text


def _code_doc(body: str) -> ReportDocument:
    return ReportDocument(
        title="Code", question="q", date="2026-12-07", executive_summary="", body=body, language="en"
    )


CODE_IN_OTHER_SCRIPTS = {  # the code font has none of these letters: they are set in the script's font
    "devanagari-inline": "Devanagari code: `" + HINDI + "`",
    "thai-inline": "Thai code: `" + THAI * 3 + "`",
    "cherokee-cell": "| a | b |\n|---|---|\n| x | `" + "ᏣᎳᎩ" * 22 + "` |",
    "tibetan-block": "```\n" + "ཀཁགང" * 22 + "\n```",
}


@pytest.mark.parametrize("body", CODE_IN_OTHER_SCRIPTS.values(), ids=CODE_IN_OTHER_SCRIPTS.keys())
def test_code_in_a_script_the_code_font_lacks_gets_break_points(body):
    assert "\\drbbreak{}" in render_latex(_code_doc(body)), body


@needs_tex
@pytest.mark.slow
@pytest.mark.skipif(
    not {
        "Noto Sans Devanagari",
        "Noto Sans Thai",
        "Noto Serif Tibetan",
        "Noto Sans Javanese",
        "Noto Sans Vai",
        "Noto Sans Meetei Mayek",
    }
    <= set(installed_faces()),
    reason="fonts-noto-core is needed",
)
def test_code_and_long_runs_in_any_script_stay_inside_the_margins(tmp_path):
    """Inline code and a code block in scripts the code font lacks, and long runs in
    Javanese, Vai, Meetei Mayek and Cherokee: no line runs off the page, and every letter is in the PDF."""
    body = "\n\n".join(
        [
            " ".join(["Devanagari code: `" + "हिन्दीभाषा" * 4 + "`"] * 12),
            "Thai code: `" + THAI * 3 + "`",
            "```\n" + "ཀཁགང" * 22 + "\n```",
            "Javanese: " + "ꦧꦱꦗꦮ" * 40,
            "Vai: " + "ꕙꔤꕮꔷ" * 40,
            "Meetei: " + "ꯃꯤꯇꯩꯂꯣꯟ" * 30,
            "Cherokee: " + "ꮳꮃꭹ" * 40,
        ]
    )
    result = build_pdf(render_latex(_code_doc(body)), tmp_path)
    assert result.pdf is not None, result.log_tail
    assert not overfull_boxes(result.warnings), result.warnings
    text = "".join(pdf_text(result.pdf).split())
    for letters in ("ཀཁགང", "ꕙꔤꕮꔷ"):
        assert text.count(letters) >= 20, (letters, text)



def _python_ends(text: str) -> set[int]:
    """Where ICU's grapheme clusters of ``text`` end, as offsets into the Python string (code points)."""
    at, ends = 0, set()
    for cluster in CharacterBreaker(text, "root"):  # the clusters as strings: no UTF-16 offsets
        at += len(cluster)
        ends.add(at)
    return ends


@pytest.mark.parametrize("text, clusters", [
    ("What is \U0002A6D6?", ["\U0002A6D6", "?"]),
    ("\U0002A6D6 again.", ["\U0002A6D6", " ", "a"]),
    ("a😀b 👍🏽!", ["😀", "b", "👍🏽", "!"]),
])
def test_a_character_after_one_beyond_the_bmp_is_a_cluster_of_its_own(text, clusters):
    """ICU counts offsets in UTF-16 code units: read as Python's, the character after an emoji or a
    CJK Extension B ideograph joined its cluster, and a placeholder swallowed it ("[U+2A6D6: … + space]")."""
    from engine.render.fonts import FontPlan, _clusters, grapheme_ends, segments

    assert grapheme_ends(text) == _python_ends(text)
    found = list(_clusters(text))
    assert "".join(found) == text and all(c in found for c in clusters), found
    plan = FontPlan("en", [text], installed_faces())
    shown = "".join(piece for _, piece in segments(text, plan, plan.main))
    assert shown.endswith(text[text.index(clusters[0]) + len(clusters[0]):]), shown  # all after it kept
