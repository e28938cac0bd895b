"""build_pdf on rendered reports: what survives into the PDF's text and links, failures, timeouts."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from pypdf import PdfReader

from engine.render import ReportDocument, ReviewRound, SourceEntry
from engine.render import pdf as pdf_module
from engine.render.latex import render_latex
from engine.render.pdf import build_pdf, overfull_boxes
from tests.waiting import LONG, scaled

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("latexmk") is None or shutil.which("xelatex") is None,
                       reason="latexmk/xelatex not installed (Debian: latexmk texlive-xetex ...)"),
]
needs_pdftotext = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler-utils) missing")

SPECIALS = r"R&D: 15% growth, $2M, #1, file_v2, {draft}, ~, x^2, C:\temp"
URL_FRAGMENT = "https://example.com/reports/heat%20pumps?q=1&r=2#section-3"
URL_LINKED = "https://example.org/a%20b/c_d~e#frag-2"
LONG_URL = "https://example.com/" + "/".join(f"segment{i:02d}-abcdefghij" for i in range(14))[:280]
LONG_WORD = "".join(chr(ord("a") + (i * 7) % 26) for i in range(300))
SCRIPTS = ["Ærøskøbing, naïve café, Größe", "Ελληνικά κείμενα", "Русский текст",
           "中文文本测试", "日本語のテキスト", "a ≤ b → c"]
EMOJI = {"🚀": "[emoji: rocket]", "👍": "[emoji: thumbs up sign]", "🇩🇪": "[flag: DE]"}
HEADER = ["Quarter", "Revenue", "Commentary"]


def pdf_text(path: Path) -> list[str]:
    """The text of each page, by pdftotext."""
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], capture_output=True, text=True,
                         check=True).stdout
    return out.split("\f")


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def link_uris(path: Path) -> set[str]:
    uris = set()
    for page in PdfReader(path).pages:
        for annot in page.get("/Annots") or []:
            action = annot.get_object().get("/A")
            if action is not None and "/URI" in action:
                uris.add(str(action["/URI"]))
    return uris


def big_body() -> str:
    rows = "\n".join(f"| Q{i % 4 + 1} {2000 + i // 4} | {i * 3}.5 | row {i} of the long table |" for i in range(80))
    return f"""## Special characters

{SPECIALS}

## Links

Bare: {URL_FRAGMENT} and [a named link]({URL_LINKED}) [1].

Long: {LONG_URL}

Word: {LONG_WORD}

## Scripts

{chr(10).join(f"- {s}" for s in SCRIPTS)}

Emoji: {" ".join(EMOJI)} and :tada:

## Untrusted input

\\input{{/etc/passwd}} and \\write18{{touch /tmp/pwned}} and $\\input{{/etc/hostname}}$

## Table

| {" | ".join(HEADER)} |
|---|--:|---|
{rows}

## Code

```
for x in range(3):
    print(x)  # ≤ 中文
```
"""


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """One document holding most cases, compiled once."""
    doc = ReportDocument(
        title=f"Report on {SPECIALS}", question=f"What about {SPECIALS} and Größe?", date="2024-05-01",
        executive_summary="The executive summary says adoption grew [1].", body=big_body(),
        review=[ReviewRound(1, what_changed="Added the table.", critiques="- The sources are thin.",
                            answers="Added a second source [2].", open_objections="Installers disagree."),
                ReviewRound(2, what_changed="Tightened wording.")],
        sources=[SourceEntry(1, f"Source with {SPECIALS}", URL_FRAGMENT), SourceEntry(2, "Long one", LONG_URL)],
    )
    out = tmp_path_factory.mktemp("big")
    result = build_pdf(render_latex(doc), out)
    assert result.pdf is not None, f"{result.error}\n{result.log_tail}"
    return result


@pytest.fixture(scope="module")
def big_pages(big):
    return pdf_text(big.pdf)


@needs_pdftotext
def test_special_characters_survive(big_pages):
    assert squash("".join(big_pages)).count(squash(SPECIALS)) == 4  # title, question, body, source


@needs_pdftotext
def test_scripts_and_symbols_survive_without_missing_glyphs(big, big_pages):
    text = "".join(big_pages)
    for sample in SCRIPTS:
        assert squash(sample) in squash(text), sample
    assert not [w for w in big.warnings if "Missing character" in w], big.warnings


SCOTLAND = "🏴" + "".join(chr(0xE0000 + ord(c)) for c in "gbsct") + "\U000E007F"
#: Emoji sequences (ZWJ, flags, skin tones, keycaps, tag flags): each reaches the PDF's text as its
#: code points (Symbola draws the parts: it has no ligature for a sequence), or as its placeholder.
SEQUENCES = ["👩\u200d💻", "👩\u200d🔬", "👨\u200d👩\u200d👧", "🏳\ufe0f\u200d🌈", "🇩🇪", "🇫🇷", "👍\U0001F3FD",
             "🧑\U0001F3FF\u200d\U0001F9B0", "🏴\u200d☠\ufe0f", "1\ufe0f\u20e3", SCOTLAND, "❤\ufe0f"]


@needs_pdftotext
def test_emoji_sequences_reach_the_text_whole_and_no_glyph_goes_missing(tmp_path):
    from engine.render.fonts import placeholder

    body = "\n\n".join(f"SEQ{k} {seq} END{k}" for k, seq in enumerate(SEQUENCES))
    result = build_pdf(render_latex(ReportDocument(title="E", question="Q?", date="2024-05-01",
                                                   executive_summary="", body=body)), tmp_path)
    assert result.pdf is not None, result.error
    text = "".join(pdf_text(result.pdf))
    for k, seq in enumerate(SEQUENCES):
        shown = squash(re.search(rf"SEQ{k}(.*?)END{k}", text, re.S).group(1))
        assert shown in (seq, squash(placeholder(seq))), (ascii(seq), ascii(shown))
    assert not [w for w in result.warnings if "Missing character" in w], result.warnings


def test_a_missing_glyph_is_reported_however_many_boxes_are_overfull(tmp_path):
    overfull = [f"Overfull \\hbox ({k}.5pt too wide) in paragraph at lines {k}--{k}" for k in range(80)]
    missing = "Missing character: There is no \U0001F9B0 (U+1F9B0) in font Symbola!"
    (tmp_path / "report.log").write_text("\n".join([*overfull, missing, overfull[0]]) + "\n", encoding="utf-8")
    warnings = pdf_module._warnings(tmp_path)
    assert warnings[0] == missing and warnings[1:] == overfull[:pdf_module.MAX_WARNINGS - 1]


@needs_pdftotext
def test_emoji_are_rendered_or_replaced_visibly(big_pages):
    text = "".join(big_pages)
    for emoji, stand_in in EMOJI.items():
        assert emoji in text or stand_in in text, emoji
    assert ":tada:" in text and "🎉" not in text  # a shortcode is text, as written


def test_links_are_clickable_with_the_exact_url(big):
    uris = link_uris(big.pdf)
    assert {URL_FRAGMENT, URL_LINKED, LONG_URL} <= uris


@needs_pdftotext
def test_long_url_and_long_word_are_present(big, big_pages):
    text = squash("".join(big_pages))
    assert squash(LONG_URL) in text
    assert LONG_WORD in text
    too_wide = [w for w in big.warnings if (m := re.search(r"\(([\d.]+)pt too wide", w)) and float(m[1]) > 5]
    assert not too_wide, too_wide


@needs_pdftotext
def test_raw_latex_comes_out_literally(big_pages):
    text = "".join(big_pages)
    assert r"\input{/etc/passwd}" in text and r"\write18{touch /tmp/pwned}" in text
    assert r"$\input{/etc/hostname}$" in text
    assert "root:" not in text


@needs_pdftotext
def test_long_table_repeats_its_header_on_every_page(big_pages):
    pages_with_rows = [p for p in big_pages if "of the long table" in p]
    assert len(pages_with_rows) >= 2
    for page in pages_with_rows:
        assert all(h in page for h in HEADER)
    assert "row 79 of the long table" in "".join(big_pages)


@needs_pdftotext
def test_document_parts_are_present(big_pages):
    text = "".join(big_pages)
    for part in ("What about", "2024-05-01", "Executive summary", "The executive summary says adoption grew",
                 "Sources", "Appendix: review", "Round 1", "Round 2", "The sources are thin.",
                 "Added a second source", "Installers disagree.", "Tightened wording.", "None.",
                 "[1]", "[2]", "print(x)"):
        assert part in text, part
    assert URL_FRAGMENT in squash(text) and squash(LONG_URL) in squash(text)


STRUCTURES = "\n\n".join([
    "\n".join("  " * i + f"- bullet level {i}" for i in range(9)),
    "\n".join("   " * i + f"1. number level {i}" for i in range(9)),
    ">" * 9 + " deep quote",
    "Note with code[^c] and a table[^t].\n\n[^c]: code in note\n\n    ```\n    { } \\ % #\n    ```\n\n"
    "[^t]: table in note\n\n    | a | b |\n    |---|---|\n    | 1 | 2 |",
    "- item with table\n\n  | c | d |\n  |---|---|\n  | 3 | 4 |",
    "| e | f |\n|---|---|\n| <br>cell | y<br><br>z |",
    "## Heading[^h] with `code`, [link](https://example.net/h), ~~old~~ and → ≤\n\n[^h]: heading note",
    "\\\nstarts with a hard break",
    "#\n\n[](https://example.net/empty)\n\n- \n\n>\n\n---\n\n```\n```",
    "<div>\n<p>html block</p>\n</div>",
    "Typed: `` ,, -- --- !` and Unicode: “q” ‘s’ – — …",
])


@needs_pdftotext
def test_hostile_markdown_structures_compile(tmp_path):
    doc = ReportDocument(title="Structures", question="q", date="2024-05-01", executive_summary="",
                         body=STRUCTURES)
    result = build_pdf(render_latex(doc), tmp_path)
    assert result.pdf is not None, f"{result.error}\n{result.log_tail}"
    text = "".join(pdf_text(result.pdf))
    for part in ("bullet level 8", "number level 8", "deep quote", "code in note", "table in note",
                 "html block", "starts with a hard break", "Typed: `` ,, -- --- !` and Unicode: “q” ‘s’ – — …"):
        assert part in text, part


@needs_pdftotext
def test_empty_sections_compile(tmp_path):
    doc = ReportDocument(title="", question="Empty?", date="2024-05-01", executive_summary="", body="",
                         review=[], sources=[])
    result = build_pdf(render_latex(doc), tmp_path)
    assert result.pdf == tmp_path / "report.pdf", result.log_tail
    text = "".join(pdf_text(result.pdf))
    assert "This report was not reviewed." in text and "No sources were cited." in text


def test_broken_tex_returns_the_error_and_log_tail(tmp_path):
    tex = "\\documentclass{article}\n\\begin{document}\n\\undefinedmacro\n\\end{document}\n"
    result = build_pdf(tex, tmp_path)
    assert result.pdf is None and not (tmp_path / "report.pdf").exists()
    assert result.error == "LaTeX error at report.tex line 3: Undefined control sequence."
    assert "\\undefinedmacro" in result.log_tail and len(result.log_tail.splitlines()) <= 40


def test_tex_cannot_read_files_outside_the_build_folder(tmp_path):
    result = build_pdf("\\documentclass{article}\\begin{document}\\input{/etc/hostname}\\end{document}", tmp_path)
    assert result.pdf is None and "/etc/hostname" in result.error


def test_timeout_kills_the_build(tmp_path):
    tex = "\\documentclass{article}\n\\begin{document}\n\\def\\spin{\\spin}\\spin\n\\end{document}\n"
    started = time.monotonic()
    result = build_pdf(tex, tmp_path, timeout=2)
    assert time.monotonic() - started < 2 + scaled(28)  # killed at the limit, not left to spin
    assert result.pdf is None and result.error == "LaTeX build timed out after 2 s"


def test_cancel_stops_the_build_at_once(tmp_path):
    import threading

    tex = "\\documentclass{article}\n\\begin{document}\n\\def\\spin{\\spin}\\spin\n\\end{document}\n"
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    started = time.monotonic()
    result = build_pdf(tex, tmp_path, timeout=LONG, cancel=cancel)
    assert time.monotonic() - started < LONG / 4  # stopped by the cancel, long before its time limit
    assert result.pdf is None and result.error == "LaTeX build cancelled"
    assert not list(tmp_path.glob("*.pdf"))


def test_missing_latexmk_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(pdf_module.shutil, "which", lambda name: None)
    result = build_pdf("\\documentclass{article}", tmp_path)
    assert result.pdf is None
    assert result.error == "latexmk not found: install the TeX packages (see README)"


def test_sample_command_builds_a_pdf(tmp_path, capsys):
    assert pdf_module.main(["--sample", str(tmp_path)]) == 0
    assert (tmp_path / "report.pdf").stat().st_size > 10_000
    assert (tmp_path / "report.tex").read_text(encoding="utf-8").startswith("% report.tex")


@needs_pdftotext
def test_a_break_inside_an_identifier_never_leaves_a_line_nearly_empty(tmp_path):
    # the break allowed after "asyncio." must not win over a justified line: "coroutine asyncio." was
    # once a line of its own, with the rest of the sentence starting the next
    summary = ("coroutine asyncio.timeout_at(when) Similar to asyncio.timeout(), except when is the absolute "
               "time to stop waiting, or None. [1] Using asyncio.wait_for() to enforce a timeout. [2] Note that "
               "methods of asyncio queues don’t have a timeout parameter; use asyncio.wait_for() function to do "
               "queue operations with a timeout. [1]")
    doc = ReportDocument(title="Timeouts", question="How does asyncio.wait_for handle timeouts?", date="2026-12-03",
                         executive_summary=summary, body="Nothing more to quote was found on: Asyncio.wait_for "
                         "timeouts — limitations and problems.",
                         sources=[SourceEntry(1, "asyncio", "https://docs.python.org/3/library/asyncio.html"),
                                  SourceEntry(2, "Tasks", "https://docs.python.org/3/library/asyncio-task.html")])
    result = build_pdf(render_latex(doc), tmp_path)
    assert result.pdf is not None, result.error
    lines = [line.strip() for line in "".join(pdf_text(result.pdf)).splitlines()]
    start = lines.index(next(line for line in lines if line.startswith("coroutine asyncio")))
    assert len(lines[start]) > 60, lines[start:start + 3]
    nothing = next(line for line in lines if line.startswith("Nothing more to quote"))
    assert len(nothing) > 60, nothing


def _counting_xelatex(tmp_path: Path, monkeypatch) -> Path:
    """Put an ``xelatex`` first on PATH that appends a line to the returned file on each run and
    runs the real one, so a test sees how many passes a build took."""
    real = shutil.which("xelatex")
    runs = tmp_path / "xelatex-runs"
    wrapper = tmp_path / "bin" / "xelatex"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\necho run >> "{runs}"\nexec "{real}" "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper.parent}:{__import__('os').environ['PATH']}")
    return runs


def _outline_titles(path: Path) -> list[str]:
    def walk(items) -> list[str]:
        return [t for item in items for t in (walk(item) if isinstance(item, list) else [item.title])]
    return walk(PdfReader(path).outline)


def _internal_dests(path: Path) -> list[str]:
    """The named destination of each internal link (``/Dest``, or a ``/GoTo`` action's ``/D``)."""
    dests = []
    for page in PdfReader(path).pages:
        for annot in (a.get_object() for a in page.get("/Annots") or []):
            action = annot.get("/A") or {}
            if "/Dest" in annot or action.get("/S") == "/GoTo":
                dests.append(str(annot.get("/Dest") or action["/D"]))
    return dests


def test_a_report_that_refers_to_no_label_is_built_in_one_pass_with_its_outline_and_links(tmp_path, monkeypatch):
    """Nothing a report without cross-references shows depends on TeX's auxiliary file: one XeLaTeX
    pass gives the same PDF (bookmarks by the bookmark package, citations as named destinations)."""
    runs = _counting_xelatex(tmp_path, monkeypatch)
    doc = ReportDocument(title="Heat pumps", question="Do heat pumps pay off?", date="2024-05-01",
                         executive_summary="They pay off in cold climates [1].",
                         body="## Costs\n\nInstallers quote more in winter [1].\n\n### Grants\n\nSome [2].\n",
                         sources=[SourceEntry(1, "One", "https://example.com/1"),
                                  SourceEntry(2, "Two", "https://example.com/2")])
    result = build_pdf(render_latex(doc), tmp_path / "out")
    assert result.pdf is not None, f"{result.error}\n{result.log_tail}"
    assert runs.read_text().count("run") == 1
    titles = _outline_titles(result.pdf)
    assert "Costs" in titles and "Grants" in titles and "Sources" in titles
    assert {"src-1", "src-2"} <= set(_internal_dests(result.pdf))


def test_a_link_to_a_heading_of_the_report_is_resolved_with_a_second_pass(tmp_path, monkeypatch):
    runs = _counting_xelatex(tmp_path, monkeypatch)
    doc = ReportDocument(title="Heat pumps", question="Do heat pumps pay off?", date="2024-05-01",
                         executive_summary="See [the costs](#costs) first.",
                         body="## Costs\n\nInstallers quote more in winter.\n")
    result = build_pdf(render_latex(doc), tmp_path / "out")
    assert result.pdf is not None, f"{result.error}\n{result.log_tail}"
    assert runs.read_text().count("run") >= 2
    assert len(_internal_dests(result.pdf)) == 1  # hyperref makes no link to a label it has not read


def test_a_table_over_several_chunks_gets_the_second_pass_its_column_widths_need(tmp_path, monkeypatch):
    """longtable sets a table of natural widths chunk by chunk and keeps the widths it found in the
    .aux file: a wider cell further down needs a second pass to line up the rows above it."""
    runs = _counting_xelatex(tmp_path, monkeypatch)
    rows = "\n".join(f"| {i} | x |" for i in range(60)) + "\n| 60 | a much wider cell at the very end |"
    doc = ReportDocument(title="Table", question="q", date="2024-05-01", executive_summary="",
                         body=f"## Rows\n\n| n | cell |\n|---|---|\n{rows}\n")
    result = build_pdf(render_latex(doc), tmp_path / "out")
    assert result.pdf is not None, f"{result.error}\n{result.log_tail}"
    assert runs.read_text().count("run") >= 2


def _fonts_of(path: Path, char: str) -> set[str]:
    """The fonts (``/BaseFont`` without the subset tag) of the PDF's text runs that hold ``char``."""
    fonts: set[str] = set()

    def visit(text, _cm, _tm, font, _size):
        if char in text and font:
            fonts.add(str(font.get("/BaseFont", "")).split("+")[-1])

    for page in PdfReader(path).pages:
        page.extract_text(visitor_text=visit)
    return fonts


def test_a_backslash_in_italic_text_is_set_upright_and_stays_a_backslash(tmp_path):
    # Noto Serif Italic draws the backslash almost upright: "C:\Users\heat" in the italic question
    # block read as "C:|Users|heat"; the backslash takes the upright face, in any italic text
    question = r"Why does C:\Users\heat\file.txt fail?"
    doc = ReportDocument(title="Paths", question=question, date="2026-12-07",
                         executive_summary=r"The path *C:\Temp\x* is shown in italics.", body="Nothing.")
    result = build_pdf(render_latex(doc), tmp_path)
    assert result.pdf is not None, result.error
    fonts = _fonts_of(result.pdf, "\\")
    assert fonts and not any("Italic" in font for font in fonts), fonts
    text = squash("".join(pdf_text(result.pdf)))
    assert squash(question) in text and squash(r"C:\Temp\x") in text


def test_a_windows_path_breaks_after_its_backslashes_without_overfull_lines(tmp_path):
    # "C:\Users\heat\pumps." at a line's end stuck out 17.7 pt: it broke nowhere
    item = (r"In LaTeX a heat pump report could use \section{Costs} and the path C:\Users\heat\pumps. [1]")
    body = ("- Air-source heat pumps cost about 1,200 € a year to run in Germany, while ground-source heat pumps "
            f"cost about 900 € a year. [1]\n- {item}\n")
    doc = ReportDocument(title="Heat pumps", question="How much do heat pumps cost to run?", date="2026-12-07",
                         executive_summary="Costs.", body=body,
                         sources=[SourceEntry(1, "Costs", "https://example.org/costs")])
    result = build_pdf(render_latex(doc), tmp_path)
    assert result.pdf is not None, result.error
    assert not overfull_boxes(result.warnings), result.warnings
    assert squash(r"C:\Users\heat\pumps.") in squash("".join(pdf_text(result.pdf)))
