"""Report text that used to change on its way to the PDF and the Word document, each checked as a reader sees it.

Each case is a Markdown input and the text a Markdown reader sees of it; the PDF's text
(``pdftotext``) and the .docx's text (python-docx) between two markers must be that text,
whitespace aside. The citation cases check report.md itself (the source ids turned into ``[n]``).
"""

from __future__ import annotations

import re
import shutil

import panflute as pf
import pytest

from engine.citations import finalize_citations, source_id
from engine.render import ReportDocument, SourceEntry
from engine.render.docx import docx_document, render_docx
from engine.render.latex import render_latex
from engine.render.pdf import build_pdf
from engine.render.reread import document_from_markdown
from tests.engine.render import fidelity

needs_tex = pytest.mark.skipif(not all(shutil.which(p) for p in ("latexmk", "xelatex", "pdftotext")),
                               reason="latexmk, xelatex and pdftotext (poppler-utils) are needed")

SOURCES = [SourceEntry(1, "First", "https://example.org/a"), SourceEntry(2, "Second", "https://example.org/b"),
           SourceEntry(3, "Third", "https://example.org/c")]

#: Emoji sequences (UTS #51): each must reach the PDF's text layer and the .docx as its code points.
EMOJI_SEQUENCES = [
    ("ZWJ", "\U0001F469\u200d\U0001F52C"), ("ZWJ of three", "\U0001F468\u200d\U0001F469\u200d\U0001F467"),
    ("flag", "\U0001F1EB\U0001F1F7"), ("skin tone", "\U0001F44D\U0001F3FD"), ("keycap", "1\ufe0f\u20e3"),
    ("keycap hash", "#\ufe0f\u20e3"), ("variation selector", "\u2764\ufe0f"),
    ("tag flag", "\U0001F3F4" + "".join(chr(0xE0000 + ord(c)) for c in "gbsct") + "\U000E007F"),
    ("skin tone and ZWJ", "\U0001F9D1\U0001F3FF\u200d\U0001F52C"), ("rainbow", "\U0001F3F3\ufe0f\u200d\U0001F308"),
]
#: (name, Markdown, the words a Markdown reader sees)
CASES = [
    ("non-ASCII bare URL", "See https://de.wikipedia.org/wiki/Wärmepumpe here.",
     "See https://de.wikipedia.org/wiki/Wärmepumpe here."),
    ("non-ASCII autolink", "See <https://ja.wikipedia.org/wiki/熱> here.",
     "See https://ja.wikipedia.org/wiki/熱 here."),
    ("braces in a bare URL", "See https://example.com/{id} here.", "See https://example.com/{id} here."),
    ("entities in an HTML block", "<p>R&amp;D costs &lt;10 &euro; &copy;</p>", "R&D costs <10 € ©"),
    ("entities in an HTML div", "<div>\nA &amp; B &quot;q&quot;\n</div>", 'A & B "q"'),
    ("citation group without spaces", "Agreed [1,3] and [1,2,3] here.", "Agreed [1,3] and [1,2,3] here."),
    *((f"emoji {name}", f"Seen {seq} here.", f"Seen {seq} here.") for name, seq in EMOJI_SEQUENCES),
    ("script block", "<script>\nalert('x < y');\n</script>\n\nAfter.", "[script] After."),
    ("script inline", "Before <script>alert(1)</script> after.", "Before [script] after."),
    ("style block", "<style>\np { color: red }\n</style>", "[style]"),
    ("iframe block", '<iframe src="https://example.com/x">fallback text</iframe>', "[iframe]"),
    ("noscript in a div", "<div>Shown <noscript>enable scripts</noscript> too</div>", "Shown [noscript] too"),
    ("comments", "Seen <!-- unseen --> text.\n\n<!--\nblock\n-->\n\nAfter.", "Seen text. After."),
    ("tags in code", "Use `<script>alert(1)</script>` and `<!-- c -->` or `<b>`.",
     "Use <script>alert(1)</script> and <!-- c --> or <b>."),
    ("tags in a code block", "```html\n<style>p {}</style>\n<script>x()</script>\n```",
     "<style>p {}</style> <script>x()</script>"),
    ("image and line break in HTML", '<div>\n<img src="https://example.com/c.png" alt="A chart"> one<br>two\n</div>',
     "[image: A chart] one two"),
    ("angle brackets that are text", "A List<String> and <u8> and a < b stay.", "A List<String> and <u8> and a < b stay."),
    *((f"emoji shortcode {name}", f"Call {text} here.", f"Call {text} here.") for name, text in (
        ("in a path", "animals::cat::new()"), ("in a name", "Foo::x::y"), ("between numbers", "10:ok:20"),
        ("alone", ":smile: and :+1:"))),
]


def _shown(text: str, k: int) -> str:
    match = re.search(rf"CASE{k}START(.*?)CASE{k}END", text, re.S)
    assert match, f"case {k} is missing"
    return " ".join(match.group(1).split())


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("found")
    body = "\n\n".join(f"CASE{k}START\n\n{markdown}\n\nCASE{k}END" for k, (_, markdown, _) in enumerate(CASES))
    doc = ReportDocument(title="Found", question="Q?", date="2024-05-01", executive_summary="", body=body,
                         sources=SOURCES)
    result = build_pdf(render_latex(doc), out)
    assert result.pdf is not None, f"{result.error}\n{result.log_tail}"
    return fidelity.pdf_text(result.pdf), fidelity.docx_text(render_docx(doc, out / "report.docx"))


@needs_tex
@pytest.mark.parametrize("k", range(len(CASES)), ids=[name for name, _, _ in CASES])
def test_the_pdf_shows_the_text_as_written(built, k):
    if CASES[k][0] == "emoji tag flag":  # pdftotext runs the next word on (poppler places a span's ActualText)
        assert _shown(built[0], k).replace(" ", "") == CASES[k][2].replace(" ", "")
        return
    assert _shown(built[0], k) == CASES[k][2]


@needs_tex
@pytest.mark.parametrize("k", range(len(CASES)), ids=[name for name, _, _ in CASES])
def test_the_docx_shows_the_text_as_written(built, k):
    assert _shown(built[1], k) == CASES[k][2]


@pytest.mark.parametrize("url", ["https://de.wikipedia.org/wiki/Wärmepumpe", "https://example.com/a b/{x}|y^z"])
def test_a_source_url_is_shown_as_written_and_linked_encoded(tmp_path, url):
    doc = ReportDocument(title="T", question="Q?", date="2024-05-01", executive_summary="", body="Text [1].",
                         sources=[SourceEntry(1, "Title", url)])
    text = fidelity.docx_text(render_docx(doc, tmp_path / "report.docx"))
    assert url in text
    _, _, external = fidelity.docx_links(tmp_path / "report.docx")
    assert all(" " not in target and "ä" not in target for target in external)


#: A question as report.md writes it (``**Question:** …``, :func:`engine.text.markdown_literal`): its
#: URLs linked the closing „“ quote along (``…/a%E2%80%9C``) and showed ``\\_\\_init\\_\\_``.
URL_QUESTION = ("Was sagt „https://example.org/a“ zu “https://example.org/__init__.py”, "
                "https://x.org/~a/~b und :smile:?")


def _pdf_uris(path) -> set[str]:
    from pypdf import PdfReader

    return {str(a.get_object()["/A"]["/URI"]) for page in PdfReader(path).pages for a in page.get("/Annots") or []
            if "/A" in a.get_object() and "/URI" in a.get_object()["/A"]}


@needs_tex
def test_urls_in_a_question_show_as_written_and_link_to_themselves(tmp_path):
    from engine.text import markdown_literal

    doc = ReportDocument(title="T", question="Q?", date="2024-05-01", executive_summary="",
                         body=f"STARTQ **Question:** {markdown_literal(URL_QUESTION)} ENDQ", sources=[])
    result = build_pdf(render_latex(doc), tmp_path)
    assert result.pdf is not None, result.error
    expected = {"https://example.org/a", "https://example.org/__init__.py", "https://x.org/~a/~b"}
    for text in (fidelity.pdf_text(result.pdf), fidelity.docx_text(render_docx(doc, tmp_path / "report.docx"))):
        shown = " ".join(re.search(r"STARTQ(.*?)ENDQ", text, re.S).group(1).split())
        assert shown == f"Question: {URL_QUESTION}"
    assert _pdf_uris(result.pdf) == expected
    assert fidelity.docx_links(tmp_path / "report.docx")[2] == expected


@pytest.mark.parametrize("text", ["animals::cat::new()", "Foo::x::y", "10:ok:20", ":smile: :+1: :tada:"])
def test_a_shortcode_in_the_body_is_read_as_written(text):
    """GitHub shows ``:cat:`` as an emoji; the outputs keep the report's text as written, as Slack and Teams do."""
    doc = ReportDocument(title="T", question="Q?", date="2024-05-01", executive_summary="", body=f"Call {text} here.")
    assert f"Call {text} here." in pf.stringify(docx_document(doc))


# --- report.md read back (deepresearch render) ---------------------------------------------------


def test_a_title_read_back_from_report_md_is_its_text_without_markdown_escapes():
    # write_artifacts writes the title with markdown_literal: "R&D_v2 #1" is "R\&D\_v2 \#1"
    doc = document_from_markdown("# Costs of R\\&D\\_v2 \\#1 \\[draft\\] \\<b\\>\n\nBody.\n")
    assert doc.title == "Costs of R&D_v2 #1 [draft] <b>"


def test_a_hand_edited_title_with_markup_reads_as_its_words():
    doc = document_from_markdown("# Using `asyncio.timeout` *today* &amp; later\n\nBody.\n")
    assert doc.title == "Using asyncio.timeout today & later"


@needs_tex
def test_the_rendered_title_shows_no_backslashes(tmp_path):
    doc = document_from_markdown("# Costs of R\\&D\\_v2\n\nBody.\n")
    result = build_pdf(render_latex(doc), tmp_path)
    assert result.pdf is not None, result.error
    text = fidelity.pdf_text(result.pdf)
    assert "Costs of R&D_v2" in text and "\\" not in text
    assert "Costs of R&D_v2" in fidelity.docx_text(render_docx(doc, tmp_path / "report.docx"))


# --- citations: links and URLs to known sources --------------------------------------------------

PAREN = "https://en.wikipedia.org/wiki/Heat_pump_(disambiguation)"
INNER = "https://example.com/a_(b)_c"
REGISTRY = {source_id(u): {"url": u, "title": "t"} for u in (PAREN, INNER)}


@pytest.mark.parametrize(("text", "expected"), [
    (f"See [the page]({PAREN}) [{source_id(PAREN)}].", f"See [the page]({PAREN}) [1]."),
    (f"See [the page]({INNER}) end.", f"See [the page]({INNER}) end."),
    (f"Bare {PAREN} and {INNER}.", f"Bare {PAREN} and {INNER}."),
    (f"In brackets ({INNER}) and (see {PAREN}).", f"In brackets ({INNER}) and (see {PAREN})."),
])
def test_a_known_url_with_parentheses_is_kept_whole(text, expected):
    assert finalize_citations(text, REGISTRY)[0] == expected + "\n"


def test_an_unknown_url_with_parentheses_goes_whole():
    text = "Bare https://invented.example/x_(y) here and [a link](https://invented.example/x_(y)) too."
    assert finalize_citations(text, REGISTRY)[0] == "Bare here and a link too.\n"


# --- a footnote referenced twice ---------------------------------------------------------------

TWICE = ("Heat pumps grew[^1] and grew more[^1], with a caveat[^c].\n\n"
         "[^1]: Shared note text.\n\n[^c]: Caveat note text.\n")


@needs_tex
def test_a_footnote_referenced_twice_is_printed_once_and_both_references_show_its_number(tmp_path):
    doc = ReportDocument(title="T", question="Q?", date="2024-05-01", executive_summary="Summary[^1].\n\n"
                         "[^1]: Summary note text.", body=TWICE, sources=[])
    result = build_pdf(render_latex(doc), tmp_path)
    assert result.pdf is not None, f"{result.error}\n{result.log_tail}"
    text = fidelity.pdf_text(result.pdf)
    assert text.count("Shared note text.") == 1 and text.count("Caveat note text.") == 1, text
    first, second, caveat = re.search(r"grew(\d+) and grew more(\d+)\s*, with a caveat(\d+)", text).groups()
    assert first == second == "2" and caveat == "3"  # the summary's note is 1


def test_a_footnote_referenced_twice_is_one_word_footnote_both_references_name(tmp_path):
    import zipfile

    doc = ReportDocument(title="T", question="Q?", date="2024-05-01", executive_summary="Summary[^1].\n\n"
                         "[^1]: Summary note text.", body=TWICE, sources=[])
    path = render_docx(doc, tmp_path / "report.docx")
    notes = fidelity.docx_notes(path)
    assert notes.count("Shared note text.") == 1 and notes.count("Caveat note text.") == 1, notes
    with zipfile.ZipFile(path) as z:
        xml = z.read("word/document.xml").decode()
    assert xml.count("<w:footnoteReference") == 3
    [bookmark] = re.findall(r' NOTEREF (\S+) ', xml)  # the second reference: a field showing the note's number
    assert re.search(rf'w:name="{bookmark}"\s*/>.*?<w:footnoteReference w:id="(\d+)"', xml, re.S)
    assert re.search(r'NOTEREF \S+ \\f \\h .*?<w:t[^>]*>2</w:t>', xml, re.S)  # its number as Word shows it


def _note_counts(fmt: str, body: str, tmp_path) -> tuple[str, int, int]:
    """(the notes' text, notes printed, references that show another note's number) in ``fmt``."""
    import zipfile

    doc = ReportDocument(title="T", question="Q?", date="2024-05-01", executive_summary="Summary.",
                         body=body, sources=[])
    if fmt == "latex":
        tex = render_latex(doc)
        return tex, tex.count("\\footnote{"), tex.count("\\footref{")
    path = render_docx(doc, tmp_path / "report.docx")
    with zipfile.ZipFile(path) as z:
        xml = z.read("word/document.xml").decode()
    return fidelity.docx_notes(path), xml.count("<w:footnoteReference"), len(re.findall(r" NOTEREF ", xml))


@pytest.mark.parametrize("fmt", ["latex", "docx"])
def test_two_notes_with_the_same_text_keep_their_own_numbers(fmt, tmp_path):
    body = ("One[^s1] and two[^s2] and three[^t].\n\n[^s1]: Identical note text.\n\n"
            "[^s2]: Identical note text.\n\n[^t]: Third note text.\n")
    text, printed, shared = _note_counts(fmt, body, tmp_path)
    assert (printed, shared) == (3, 0)  # numbers 1, 2, 3 as in report.md
    assert text.count("Identical note text.") == 2, text


@pytest.mark.parametrize("fmt", ["latex", "docx"])
def test_a_note_referenced_in_a_links_text_and_elsewhere_is_printed_once(fmt, tmp_path):
    body = ("Intro [see this[^a]](https://example.org/) and **bold[^a]** and [^b].\n\n"
            "[^a]: Alpha note with [a site](https://example.org/x).\n\n[^b]: Beta note.\n")
    text, printed, shared = _note_counts(fmt, body, tmp_path)
    assert (printed, shared) == (2, 1)
    assert text.count("Alpha note with") == 1, text


def test_notes_are_left_where_they_are_when_the_labels_do_not_pair_with_them():
    from engine.render.markdown import parse_markdown
    from engine.render.notes import note_keys, share_notes

    text = "a[^x] b[^x].\n\n[^x]: Note.\n"
    blocks = parse_markdown(text)
    assert note_keys(text) == [0, 0]
    assert share_notes(blocks, "p", [0, 0]) != blocks
    assert share_notes(blocks, "p", [0]) == blocks and share_notes(blocks, "p", [0, 0, 0]) == blocks


@needs_tex
def test_a_report_without_a_date_shows_none_rather_than_todays(tmp_path):
    """A hand-written report.md with no Date line (and no run beside it) was shown dated today in the
    PDF (under the title and in its running head) and in the Word document: a date it never had."""
    from datetime import UTC, datetime

    doc = document_from_markdown("# Heat pumps\n\n## Costs\n\nInstallers quote more in winter.\n")
    assert doc.date == ""
    today = datetime.now(UTC).date().isoformat()
    result = build_pdf(render_latex(doc), tmp_path)
    assert result.pdf is not None, result.error
    for what, text in (("the PDF", fidelity.pdf_text(result.pdf)),
                       ("the Word document", fidelity.docx_text(render_docx(doc, tmp_path / "report.docx")))):
        assert "Heat pumps" in text and "Installers quote more in winter." in text, what
        assert today not in text and "Date" not in text, (what, text)
    dated = document_from_markdown("# Heat pumps\n\n**Date:** 1 March 2021 (revised)\n\nBody.\n")
    assert "1 March 2021 (revised)" in fidelity.pdf_text(build_pdf(render_latex(dated), tmp_path / "d").pdf)
