"""A question written in symbols, programming-language names with symbols ("C++", "C#", ".NET"), math
or markup quotes only sentences naming its own terms; one with no term a sentence could name quotes
nothing, the report says so at the top, and the review does not call that free of open objections."""

from __future__ import annotations

import re

import pytest

from engine.offline_select import choose
from engine.offline_terms import query_terms, terms
from tests.bots.console_helpers import ask

POOL = [
    "Setting a count to zero does not remove an element from a counter.",
    "Turtle graphics is a popular way for introducing programming to kids.",
    "ctypes provides C compatible data types and allows calling functions in DLLs.",
    "The A_BOLD attribute of curses draws bold text.",
]
BOTH = "Unlike C++, C# runs on the .NET runtime."


def test_symbol_names_are_terms_of_their_own():
    assert query_terms("C++ vs. C#") == ["c++", "c#"]
    assert query_terms("F# and .NET") == ["f#", ".net"]
    assert "c++" not in terms(POOL[2]) and "c#" not in terms("C++ is not C.")


def test_a_sentence_naming_c_alone_is_not_about_c_plus_plus():
    assert choose(POOL, "C++ vs. C#", 5) == []
    assert choose([*POOL, BOTH], "C++ vs. C#", 5) == [BOTH]
    assert choose([*POOL, "C++ is compiled ahead of time."], "C#", 5) == []


def test_a_question_with_no_term_quotes_nothing():
    assert choose(POOL, "What is 100% $x$ & more?", 5) == []
    assert choose(POOL, "What is it?", 5) == []
    # markup and math are no words; the words beside them are still asked for
    assert choose(POOL, "C++ vs. C# — <b>bold</b> & 100% $x$", 5) == []
    assert choose([*POOL, BOTH], "C++ vs. C# — <b>bold</b> & 100% $x$", 5) == [BOTH]


def test_a_mark_a_candidate_writes_is_still_asked():
    pool = ["The <b> tag makes text bold.", "Tables have rows."]
    assert choose(pool, "What does <b> do?", 2) == [pool[0]]
    assert choose(["The formula $x$ is the unknown.", "Tables have rows."], "What is $x$?", 2) == [
        "The formula $x$ is the unknown."]


def _section(report: str, heading: str) -> str:
    return report.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]


def test_ask_over_a_corpus_with_nothing_on_a_symbol_question_says_so(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in {"collections": POOL[0], "turtle": POOL[1], "ctypes": POOL[2], "curses": POOL[3]}.items():
        (docs / f"{name}.md").write_text(f"# {name}\n\n{text} It is part of the {name} module.\n", encoding="utf-8")
    for question in ("C++ vs. C#", "What is 100% $x$ & more?", "C++ vs. C# — <b>bold</b> & 100% $x$"):
        out_dir = tmp_path / f"out{len(list(tmp_path.iterdir()))}"
        out = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), "--out", str(out_dir), question)
        assert out.returncode == 0, out.stderr[-2000:]
        report = (out_dir / "report.md").read_text(encoding="utf-8")
        assert not re.search(r"^- .*\[S?\w+\]\s*$", report.split("## Review", 1)[0], re.MULTILINE), report
        for sentence in POOL:
            assert sentence not in report, (question, report)
        top = report.split("## Review outcome", 1)[0]
        assert "no passage on this question to quote" in top or "No sources were found" in top, report
        assert "(none)" not in _section(report, "Open objections"), report


@pytest.mark.parametrize(("question", "claims", "missing"), [
    # a sentence naming C alone does not answer C++, nor C# one naming C++; a short name is a word too
    ("What is C++ used for?", ["The C language has no classes. [S000001]"], ["C++"]),
    ("Is C# faster than C++?", ["C++ compiles to native code and is faster. [S000001]"], ["C#"]),
    ("Does F# run on .NET?", ["F# programs are compiled by the F# compiler. [S000001]",
                              "The net income of the firm rose. [S000002]"], [".NET"]),
    ("Which flags does g++ take?", ["The flags of gcc are listed in its manual. [S000001]"], ["g++"]),
    ("What is C++ used for?", ["C++ is used for games and browsers. [S000001]"], []),
])
def test_the_review_asks_for_a_symbol_name_as_one_word(question, claims, missing):
    from engine.offline_review import unanswered

    assert unanswered(question, claims) == missing


def test_the_reviews_objection_names_the_symbol_name_as_written():
    from engine.offline_phrases import phrase
    from engine.offline_review import critique, perspective

    prompt = ("Question: What is C++ used for?\n<Solution>\n- The C language has no classes and no exceptions. "
              "[S000001]\n</Solution>")
    points = critique(prompt, "", "### C++\n\n- The C language has no classes and no exceptions. [S000001]\n", "en")
    assert phrase("unanswered", "en", terms="“C++”") in points, points
    assert "“C++”" in perspective(prompt, "", "en")
