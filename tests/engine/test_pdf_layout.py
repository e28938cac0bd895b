"""A PDF's text as prose, as the thread files and the corpus indexer read it: the line breaks of its
layout undone where they cut a word or a dotted name, its list bullets and the citation marks that
end its sentences left out; every other character as the page shows it."""

from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path

import pytest

from engine.files import SharedFile, ingest
from engine.files.read import read_file
from engine.runner import run_turn
from engine.search.corpus_index import index_directory
from engine.search.extract import extract_document
from engine.search.pdf_layout import prose_lines, without_furniture
from engine.segments import paragraphs, sentences
from tests.shared_files import pdf_lines_bytes

LINES = [
    "Structured concurrency primitives call the uncan-",
    "cel method of the task; the msg ar-",
    "gument of cancel() names the reason, sent by e-mail to the state-of-the-",
    "art team. A pre-",
    "COVID design keeps its hyphen.",
    "Findings:",
    "• When a task is cancelled, the runner raises the error in it at the next opportunity. [1]",
    "• When signal.SIGINT is received, the code can handle the resulting asyncio.",
    "CancelledError into a clean shutdown of its resources. [1, 2] It then calls asyncio.",
    "run() again. We stop the loop.",
    "TaskGroup objects are newer. [2]",
    "– The timeout context manager turns it into a TimeoutError.",
    "A heat pump – which is quiet",
    "– runs all day. Earlier work differs. [3] proposed a queue.",
]


def _texts(tmp_path: Path, lines: list[str]) -> dict[str, str]:
    path = tmp_path / "layout.pdf"
    path.write_bytes(pdf_lines_bytes([lines]))
    return {
        "thread file": read_file(path, "layout.pdf", max_pages=10, max_chars=100_000).sections[0][1],
        "corpus": extract_document(path, path.stat().st_size)[1],
    }


def test_a_word_hyphenated_at_a_line_end_is_one_word_again_and_a_real_hyphen_stays(tmp_path):
    for reader, text in _texts(tmp_path, LINES).items():
        flat = " ".join(text.split())
        assert "call the uncancel method" in flat and "the msg argument of cancel()" in flat, (reader, text)
        assert "by e-mail to the state-of-the-art team." in flat, (reader, text)
        assert "A pre- COVID design" in flat, (reader, text)  # an upper-case letter follows: kept as set


def test_bullets_and_closing_citation_marks_are_left_out_of_the_sentences(tmp_path):
    for reader, text in _texts(tmp_path, LINES).items():
        found = sentences(text)
        assert (
            "When a task is cancelled, the runner raises the error in it at the next opportunity." in found
        ), (reader, found)
        assert "The timeout context manager turns it into a TimeoutError." in found, (reader, found)
        assert "TaskGroup objects are newer." in found, (reader, found)
        assert not any(s.startswith(("•", "–")) or "[1" in s or "[2]" in s for s in found), (reader, found)
        # a dash inside a sentence is no bullet, nor a mark that a sentence starts with
        assert "A heat pump – which is quiet – runs all day." in found, (reader, found)
        assert "[3] proposed a queue." in found, (reader, found)
        # each item a paragraph of its own
        assert (
            "When a task is cancelled, the runner raises the error in it at the next opportunity."
            in paragraphs(text)
        ), (reader, text)


def test_a_line_break_after_a_dot_inside_a_name_does_not_end_the_sentence(tmp_path):
    for reader, text in _texts(tmp_path, LINES).items():
        found = sentences(text)
        assert "It then calls asyncio.run() again." in found, (reader, found)
        # a name before a CamelCase word may end a sentence ("numpy." / "PyTorch was slower."): with no
        # "asyncio.CancelledError" elsewhere on the page the line break stays, and no letter goes
        assert "asyncio.\nCancelledError into a clean shutdown" in text, (reader, text)
        # a sentence that ends on a word, and one that opens with a name: two sentences
        assert "We stop the loop." in found, (reader, found)


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (
            ["Items:", "◦ First one.", "▪ Second one.", "‣ Third one."],
            "Items:\n\nFirst one.\n\nSecond one.\n\nThird one.",
        ),
        (["the uncan-", "cel call"], "the uncancel call"),
        (["the well-", "known call"], "the well-known call"),  # both halves are words; joined it is none
        (
            ["Die Wärme-", "pumpe läuft"],
            "Die Wärme-pumpe läuft",
        ),  # a rare compound keeps its hyphen: no letter lost
        (["Förderung für Wärme-", "und Kältepumpen"], "Förderung für Wärme- und Kältepumpen"),  # suspended
        (["both pre-", "and post-processing"], "both pre- and post-processing"),
        (
            ["a data-", "driven plan, a long-", "term goal, a follow-", "up"],
            "a data-driven plan, a long-term goal, a follow-up",
        ),
        (["Lowest value:", "– 12 °C in January."], "Lowest value:\n– 12 °C in January."),  # minus twelve
        (["We switched to numpy.", "PyTorch was slower."], "We switched to numpy.\nPyTorch was slower."),
        (
            ["Wrap your code in a task.", "asyncio.run() then starts it."],
            "Wrap your code in a task.\nasyncio.run() then starts it.",
        ),
        (["The module is asyncio.", "TaskGroup is new."], "The module is asyncio.\nTaskGroup is new."),
        (
            ["use concurrent.futures.", "ThreadPoolExecutor here"],
            "use concurrent.futures.ThreadPoolExecutor here",
        ),
        (
            ["a long-term plan, a long-", "term goal"],
            "a long-term plan, a long-term goal",
        ),  # as the page writes it
        (["a time-", "out", "a timeout"], "a timeout\na timeout"),
        (["the ad\u00ad", "vice"], "the advice"),
        (
            ["the concurrent.", "futures.Future class"],
            "the concurrent.\nfutures.Future class",
        ),  # "concurrent" is a word
        (["see e.g.", "run() below"], "see e.g.\nrun() below"),  # an abbreviation's full stop
        (["send signal.", "SIGINT; signal.SIGINT stops it"], "send signal.SIGINT; signal.SIGINT stops it"),
        (["It uses signal.", "SIGINT handlers end it."], "It uses signal.\nSIGINT handlers end it."),
        (["the end. [12]", "Next line."], "the end.\nNext line."),
        (["as Smith [12] says."], "as Smith [12] says."),
    ],
)
def test_prose_lines(lines, expected):
    assert prose_lines("\n".join(lines)) == expected


CORPUS = """# Task cancellation in asyncio

Tasks can easily and safely be cancelled. When a task is cancelled, asyncio.CancelledError will be raised in the \
task at the next opportunity.

It is recommended that coroutines use try/finally blocks to robustly perform clean-up logic. In case \
asyncio.CancelledError is explicitly caught, it should generally be propagated when clean-up is complete.

When signal.SIGINT is received while asyncio.run() executes the main task, the runner cancels the main task so \
that the code can handle the resulting asyncio.CancelledError into a clean shutdown of its resources.

The asyncio.timeout() context manager cancels the current task when its deadline passes and transforms the \
resulting CancelledError into a TimeoutError that the caller can catch.
"""
SIGINT = (
    "When signal.SIGINT is received while asyncio.run() executes the main task, the runner cancels the main "
    "task so that the code can handle the resulting asyncio.CancelledError into a clean shutdown of its "
    "resources."
)


@pytest.fixture(scope="module")
def report_pdf(tmp_path_factory) -> Path:
    """The PDF of an offline report on asyncio's cancellation (xelatex): its quotes end in "[1]", its
    findings are a bulleted list, and its lines break inside words and after "asyncio."."""
    if not shutil.which("xelatex"):
        pytest.skip("xelatex is needed to make the PDF")
    from tests.engine.test_offline_fidelity import offline_run

    artifacts = offline_run(
        tmp_path_factory.mktemp("asyncio-report"),
        {"asyncio-cancel.md": CORPUS},
        "How does asyncio handle cancellation?",
        0,
    )
    assert artifacts.pdf is not None
    return artifacts.pdf


def _quotes(report: str) -> list[str]:
    """The quoted sentences of an offline report.md: its findings' items, their source numbers cut."""
    body = report.split("## Findings", 1)[1].split("## Review outcome", 1)[0]
    return [re.sub(r"(?: \[\d+\])+$", "", line[2:]) for line in body.splitlines() if line.startswith("- ")]


def _check_quotes(report: str) -> None:
    quotes = _quotes(report)
    assert SIGINT in quotes, quotes
    for quote in quotes:
        assert not re.search(r"\w- \w|^\\\[|^[•◦▪‣–]|asyncio\.$|^CancelledError into", quote), (quote, quotes)
    assert len(quotes) == len(set(quotes)) and not any(
        a != b and a.endswith(b) for a in quotes for b in quotes
    ), quotes  # none quoted twice, whole or in part


def test_a_report_pdf_shared_in_a_thread_is_quoted_as_its_sentences_read(
    report_pdf, offline_settings, tmp_path
):
    settings = offline_settings(allow_clarification=False, max_review_iterations=0)
    shared = SharedFile(name="report.pdf", link="", path=report_pdf, size=report_pdf.stat().st_size)
    [entry] = ingest(settings, "console:pdf-layout", [shared])
    assert entry.status == "read", entry
    out = asyncio.run(
        run_turn(
            "console:pdf-layout",
            question="How does asyncio handle cancellation when SIGINT arrives?",
            settings=settings,
        )
    )
    _check_quotes(out.artifacts.report_md.read_text())


def test_a_report_pdf_in_a_corpus_is_quoted_as_its_sentences_read(report_pdf, offline_settings, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy(report_pdf, folder / "report.pdf")
    settings = offline_settings(
        allow_clarification=False, max_review_iterations=0, search="corpus", corpus_dir=folder
    )
    index_directory(settings.corpus_dir, settings.corpus_index_path)
    out = asyncio.run(
        run_turn(
            "console:pdf-corpus",
            question="How does asyncio handle cancellation when SIGINT arrives?",
            settings=settings,
        )
    )
    _check_quotes(out.artifacts.report_md.read_text())


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        # a mark glued to a number's full stop may be part of the number (3.[14] = 3.1414…): kept as written
        (["the ratio is 3.[14]"], "the ratio is 3.[14]"),
        (["it grew in 2023.[4] Next came more."], "it grew in 2023.[4] Next came more."),
        (["see p. 3.[14] Next line."], "see p. 3.[14] Next line."),
        # after a number's full stop with a space, the sentence ends there: the mark goes, no digit with it
        (["it grew in 2023. [4] Next came more."], "it grew in 2023. Next came more."),
        (["see p. 3. [14] Next line."], "see p. 3. Next line."),
        # a numbered list's number opens the line: its full stop ends no sentence
        (["3. [14] Smith, J. A title."], "3. [14] Smith, J. A title."),
        # a full stop of an abbreviation or an initial ends no sentence: the mark is what it names
        (["as Smith et al. [4] Those results hold."], "as Smith et al. [4] Those results hold."),
        (
            ["see Ref. [4] These hold.", "as in Fig. [2] A line."],
            "see Ref. [4] These hold.\nas in Fig. [2] A line.",
        ),
        (["by Smith J. [4] The end."], "by Smith J. [4] The end."),
        # a mark before a comma, a bracket or a possessive belongs to what follows it
        (
            ["Earlier work differs. [3], [4] proposed a queue."],
            "Earlier work differs. [3], [4] proposed a queue.",
        ),
        (["It differs. [3] (2020) proposed it."], "It differs. [3] (2020) proposed it."),
        (["It differs. [3]'s queue is new."], "It differs. [3]'s queue is new."),
        # a sentence's mark before the next sentence, a line's end or a quotation still goes
        (
            [
                "the end. [12] Next line.",
                "the end.[3]",
                "It ends. [1, 2] “Quoted.”",
                "So it is. [5]",
                "• An item",
            ],
            "the end. Next line.\nthe end.\nIt ends. “Quoted.”\nSo it is.\n\nAn item",
        ),
    ],
)
def test_citation_marks_go_only_after_a_sentence_and_never_with_a_digit(lines, expected):
    assert prose_lines("\n".join(lines)) == expected


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["– first item", "– second item", "– third item"], "first item\n\nsecond item\n\nthird item"),
        (["Items:", "– first item", "– second item"], "Items:\n\nfirst item\n\nsecond item"),
        (
            ["Items:", "– first item that", "wraps on", "– second item"],
            "Items:\n\nfirst item that\nwraps on\n\nsecond item",
        ),
        (["Items:", "- first item", "- second item"], "Items:\n\nfirst item\n\nsecond item"),
        # a minus before a number stays, in a list too
        (
            ["Lowest values:", "– 12 °C in January", "– 3 °C in March"],
            "Lowest values:\n– 12 °C in January\n– 3 °C in March",
        ),
        (["Items:", "– first item", "– 12 °C at night"], "Items:\n\nfirst item\n– 12 °C at night"),
        # inside a sentence a dash stays, after a list as well
        (
            ["A heat pump - which is quiet", "- runs all day."],
            "A heat pump - which is quiet\n- runs all day.",
        ),
        (
            ["– an item", "", "A heat pump – which is quiet", "– runs all day."],
            "an item\n\nA heat pump – which is quiet\n– runs all day.",
        ),
    ],
)
def test_every_dash_bullet_of_a_list_is_left_out(lines, expected):
    assert prose_lines("\n".join(lines)) == expected


def test_the_bullets_of_word_processors_and_slides_are_left_out_too():
    # U+F0B7 and U+F0A7: the Symbol and Wingdings fonts' bullets, as a word processor's PDF maps them
    lines = ["Items:", "\uf0b7 First one.", "\uf0a7 Second one.", "● Third one.", "∙ Fourth one."]
    assert prose_lines("\n".join(lines)) == "Items:\n\nFirst one.\n\nSecond one.\n\nThird one.\n\nFourth one."
    # a sign closing a proof on its own line is no bullet
    assert prose_lines("It holds.\n■\n□") == "It holds.\n■\n□"


def _pages(tmp_path: Path, pages: list[list[str]]) -> dict[str, list[str]]:
    """The text of each page of a PDF of ``pages``, as the thread files and the corpus read it."""
    path = tmp_path / "pages.pdf"
    path.write_bytes(pdf_lines_bytes(pages))
    read = read_file(path, "pages.pdf", max_pages=10, max_chars=100_000)
    return {
        "thread file": [text for _, text in read.sections],
        "corpus": extract_document(path, path.stat().st_size)[1].split("\n\n"),
    }


_BODIES = [
    "Pumps heat water and",
    "they run all day.",
    "A section opens here and",
    "goes on for 2 lines.",
    "Chapter 7 opens here and",
    "runs on 3 pages.",
    "The report ends",
    "on page 9 of 9.",
]


def _body(n: int) -> list[str]:
    return _BODIES[2 * (n - 1) : 2 * n]


@pytest.mark.parametrize(
    "number",
    [str, "Page {}".format, "- {} -".format, "– {} –".format, "{} / 3".format, "Page {} of 3".format],
)
def test_a_page_number_and_a_running_head_are_left_out(tmp_path, number):
    pages = [["Journal of Examples, vol. 7", *_body(n), number(n)] for n in (1, 2, 3)]
    for reader, texts in _pages(tmp_path, pages).items():
        # the first page keeps its top line, which may be the title the running head repeats
        assert texts == ["\n".join([pages[0][0], *_body(1)]), *("\n".join(_body(n)) for n in (2, 3))], (
            reader,
            texts,
        )


def test_a_page_number_at_the_top_and_a_running_foot_are_left_out(tmp_path):
    # an excerpt's pages, numbered from 41 at their tops, a running foot at their bottoms
    pages = [[str(40 + n), *_body(n), "Smith: A report on examples (2024)"] for n in (1, 2, 3, 4)]
    for reader, texts in _pages(tmp_path, pages).items():
        assert texts == ["\n".join(_body(n)) for n in (1, 2, 3, 4)], (reader, texts)


def test_a_number_or_a_line_that_numbers_no_page_stays(tmp_path):
    # the last lines hold numbers that count no pages; the first lines differ from page to page
    pages = [["Totals", "Apples", "17"], ["Results", "Pears", "4"], ["Ratios", "Plums", "12 / 40"]]
    for reader, texts in _pages(tmp_path, pages).items():
        assert texts == ["Totals\nApples\n17", "Results\nPears\n4", "Ratios\nPlums\n12 / 40"], (reader, texts)
    # one page: its number may be its last line, any other number is the text's
    for reader, texts in _pages(tmp_path, [["The total is", "7"]]).items():
        assert texts == ["The total is\n7"], (reader, texts)
    for reader, texts in _pages(tmp_path, [["The total is", "seven.", "1"]]).items():
        assert texts == ["The total is\nseven."], (reader, texts)


def test_a_long_line_or_one_on_few_pages_is_no_running_head(tmp_path):
    long = "This sentence is set at the top of every page, and it is longer than any running head would be."
    pages = [
        [long, *_body(1)],
        [long, *_body(2)],
        ["Only here", *_body(3)],
        ["Only here", *_body(4)],
        ["Elsewhere", *_body(5)],
    ]
    for reader, texts in _pages(tmp_path, pages).items():
        assert [text.split("\n", 1)[0] for text in texts] == [
            long,
            long,
            "Only here",
            "Only here",
            "Elsewhere",
        ], (reader, texts)
    # a page of one line, which names the page's number: the line is the page's text
    pages = [[f"Page {n} is about turbines."] for n in (1, 2, 3)]
    for reader, texts in _pages(tmp_path, pages).items():
        assert texts == [f"Page {n} is about turbines." for n in (1, 2, 3)], (reader, texts)


def test_a_minus_number_is_no_page_number_and_an_excerpt_is_numbered_by_its_pages():
    pages = ["Lowest in May:\n-1", "Lowest in June:\n-2"]
    assert without_furniture(pages) == pages
    # the pages 41 and 42 of a file read from there: "41" is the first page's number
    assert without_furniture(["Text one.\n41", "Text two.\n42"], first=41) == ["Text one.", "Text two."]
    assert without_furniture(["Text one.\n41"], first=41) == ["Text one."]


def test_a_dash_after_a_bullet_list_still_needs_a_closed_line_to_be_a_bullet():
    lines = ["• Pumps", "A heat pump – which is quiet", "– runs all day."]
    assert prose_lines("\n".join(lines)) == "Pumps\nA heat pump – which is quiet\n– runs all day."


def test_the_first_page_keeps_its_title_when_the_running_head_repeats_it():
    # the title of xelatex's \maketitle, then its author's name, both in heading type, and no running head
    pages = [
        "Annual Report\nA. Writer\n\nBody one.\n1",
        "Annual Report\nBody two.\n2",
        "Annual Report\nBody three.\n3",
    ]
    assert without_furniture(pages) == ["Annual Report\nA. Writer\n\nBody one.", "Body two.", "Body three."]


def test_a_typeset_report_loses_its_page_numbers_and_running_head_but_no_sentence(tmp_path):
    """A report set by xelatex with fancyhdr: its title repeated at the top of each page after the
    first, its page number at the bottom of each."""
    if not shutil.which("xelatex"):
        pytest.skip("xelatex is needed to make the PDF")
    import subprocess

    said = " ".join(f"Sentence {n} says that heat pumps run well in winter." for n in range(1, 241))
    (tmp_path / "r.tex").write_text(
        "\\documentclass{article}\\usepackage{fancyhdr}\\pagestyle{fancy}\\fancyhead[L]{Heat pumps in winter}"
        "\\fancyhead[R]{}\\fancyfoot[C]{\\thepage}\\title{Heat pumps in winter}\\author{A. Writer}\\date{}"
        f"\\begin{{document}}\\maketitle {said}\\end{{document}}"
    )
    subprocess.run(
        ["xelatex", "-interaction=nonstopmode", "r.tex"], cwd=tmp_path, capture_output=True, timeout=120
    )
    path = tmp_path / "r.pdf"
    read = read_file(path, "r.pdf", max_pages=10, max_chars=1_000_000)
    assert len(read.sections) >= 3, read.sections
    for reader, text in {
        "thread file": "\n\n".join(t for _, t in read.sections),
        "corpus": extract_document(path, path.stat().st_size)[1],
    }.items():
        assert text.startswith("Heat pumps in winter\n") and text.count("Heat pumps in winter") == 1, (
            reader,
            text,
        )
        assert not re.search(r"^\d+$", text, re.M), (reader, text)
        found = " ".join(text.split())
        assert all(
            f"Sentence {n} says that heat pumps run well in winter." in found for n in range(1, 241)
        ), (reader, text)
