"""The offline solution answers every listed thing of the question: round 1 takes the best claim of each
sub-question's findings before any second one of another, and a later round adds a finding that names
the words the critique said no claim mentions. Words that only frame how the things relate ("together",
"compare") are no topic the critique objects to. A list question whose findings name every item gets no
objection that one of them is unanswered."""

from __future__ import annotations

import re

import pytest

from engine.offline_review import unanswered
from tests.engine.test_offline_fidelity import offline_run

#: A corpus whose sentences on one item outrank, for the whole question, those on the others: the
#: solution once quoted only them, and the critique said no claim mentioned the others.
PAGES = {
    "protocols.md": "# Typing protocols\n\n"
    "A typing protocol describes the methods a class must have to match it. "
    "A typing protocol class with runtime_checkable works with isinstance checks at run time. "
    "A class matches a typing protocol without inheriting from it. "
    "A generic typing protocol takes type parameters like any generic class. "
    "A typing protocol may declare attributes as well as methods.\n",
    "dataclasses.md": "# Dataclasses\n\n"
    "The dataclass decorator adds an init method and a repr method to a class. "
    "A frozen dataclass raises an error when a field is assigned after creation. "
    "Each field of a dataclass may have a default value or a default factory. "
    "The asdict function turns a dataclass instance into a dictionary. "
    "A dataclass with order set compares instances field by field.\n",
    "enums.md": "# Enums\n\n"
    "Enum members are constants with a name and a value. "
    "An enum can be iterated over in definition order. "
    "The auto function gives each enum member a value of its own. "
    "An IntEnum member compares equal to the integer of its value. "
    "A Flag enum combines its members with bitwise operators.\n",
}
QUESTION = "How do dataclasses, enums and typing protocols work together?"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    artifacts = offline_run(tmp_path_factory.mktemp("coverage"), PAGES, QUESTION, 2)
    return artifacts.report_md.read_text(), (artifacts.report_md.parent / "review.md").read_text()


def _solutions(review: str) -> list[str]:
    return re.findall(r"### Solution.*?\n(.*?)(?=\n### )", review, re.S)


def test_the_first_solution_quotes_a_finding_of_every_listed_item(run):
    _, review = run
    first = _solutions(review)[0]
    for item in ("dataclass", "Enum", "typing protocol"):
        assert item.lower() in first.lower(), first


def test_no_listed_item_is_said_to_be_unanswered_when_its_findings_are_quoted(run):
    report, review = run
    assert "## Findings: enums" in report or "Findings: enums" in report, report
    for word in ("enums", "dataclasses", "together"):
        for text in (review, report):  # "No claim of the solution mentions …", "the question asks about …"
            assert not re.search(rf"(?:mentions|about) [^.]*“{word}”", text), text


@pytest.mark.parametrize(("question", "claim"), [
    ("How do dataclasses and enums work together?", "Enum members work with dataclass fields. [S000001]"),
    ("How do heat pumps and solar panels interact?", "Solar panels power heat pumps by day. [S000001]"),
    ("How do heat pumps compare with gas boilers?", "Heat pumps use less energy than gas boilers. [S000001]"),
    ("Are heat pumps cheap to run compared with gas boilers?", "Heat pumps are cheap to run, gas boilers less so. "
     "[S000001]"),
])
def test_the_words_that_say_how_things_relate_are_no_topic(question, claim):
    assert unanswered(question, [claim], "en") == []


@pytest.mark.parametrize(("question", "claim", "language"), [
    ("What are the main differences between threading and asyncio?",
     "Threading runs threads while asyncio runs coroutines. [S000001]", "en"),
    ("What are the key differences between heat pumps and gas boilers?",
     "Heat pumps use less energy than gas boilers. [S000001]", "en"),
    ("Was sind die wichtigsten Unterschiede zwischen Wärmepumpen und Gasheizungen?",
     "Wärmepumpen brauchen weniger Energie als Gasheizungen. [S000001]", "de"),
])
def test_a_word_that_ranks_the_differences_is_no_topic(question, claim, language):
    """"main" of "the main differences" only ranks them (engine.offline_list_words.RANKING): the critique
    once said "No claim of the solution mentions “main”" and a follow-up asked about it."""
    assert unanswered(question, [claim], language) == []


def test_a_ranking_word_without_differences_is_still_asked():
    assert unanswered("What is the main cause of inflation?", ["Inflation rises with demand. [S000001]"]) == ["main", "cause"]
