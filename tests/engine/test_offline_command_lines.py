"""A command line is no finding: written alone, after a shell prompt, or inside a sentence, its
options and paths ("--cheapest", "--run", "/var/log/heat-pumps/…", "2026") name the question's words
without saying anything of them, so it is never quoted; and a prose sentence that names the
question's main subject whole and as many of its words as a sentence must ("Air-source heat pumps
… in Germany") is quoted though it misses rarer ones ("cheapest", "2026"): the floor of half the
weight does not keep an obvious answer out."""

from __future__ import annotations

import pytest

from engine.offline import passages
from engine.offline_select import choose

QUESTION = "Which heat pumps are cheapest to run in Germany in 2026?"
COST = "Air-source heat pumps cost about 1,200 € per year to run in Germany in 2026."
OTHERS = [
    "Trains in Germany run every hour between the larger cities.",
    "Tomatoes need six hours of sun a day and water in the morning.",
]


@pytest.mark.parametrize("command", [
    "$ hp-tool --country germany --year 2026 --sort cheapest --run heat-pumps",
    "hpctl list --heat-pumps --cheapest --run-cost --country Germany --year 2026",
    "hpctl compare --cheapest --run --heat-pumps --country=germany --year=2026 --out=heat-pumps-2026.csv",
    "To read the heat pump's log, run hpctl --log /var/log/heat-pumps/cheapest-run.log --since 2026-01-01.",
    "% heatpump-cli rank --cheapest --to-run --in germany --in-year 2026",
])
def test_a_command_line_is_never_a_passage(command):
    text = f"{command}\n\n{COST}\n"
    assert passages(text, QUESTION) == [COST]
    assert passages(f"{command}\n", QUESTION) == []  # a page of command lines alone has nothing to quote


@pytest.mark.parametrize("sentence", [
    "In 2026 the --cheapest option of hpctl lists heat pumps that run in Germany.",
    "Run pip install --upgrade pip to update the tool before you read about heat pumps.",
])
def test_prose_that_names_one_option_is_still_prose(sentence):
    assert passages(sentence, QUESTION) == [sentence]


@pytest.mark.parametrize("answer", [
    "Air-source heat pumps cost about 1,200 € a year in Germany.",
    "Air-source heat pumps are the cheapest heating.",
    "Ground-source heat pumps cost less to run than any other heating.",
])
def test_a_sentence_naming_the_subject_and_enough_words_is_quoted(answer):
    chosen = choose([answer, COST, *OTHERS], QUESTION, 8)
    assert answer in chosen and COST in chosen, chosen
    assert not set(OTHERS) & set(chosen), chosen


@pytest.mark.parametrize("sentence", [
    "Heat pumps move heat from outside air, the ground or water into a house.",  # the subject alone
    "Trains in Germany run every hour in 2026.",  # three words, but not what is asked about
])
def test_a_sentence_without_the_subject_or_enough_words_is_not(sentence):
    assert sentence not in choose([sentence, COST, *OTHERS], QUESTION, 8)


@pytest.mark.parametrize("sentence", [
    "Use --verbose or --quiet to change how much the heat pumps tool prints about Germany.",
    "The --foo, --bar and --baz options of the heat pump tool are described below for Germany.",
])
def test_prose_that_names_options_with_or_and_between_is_still_prose(sentence):
    assert passages(sentence, QUESTION) == [sentence]


PROTOCOLS = "How do dataclasses, enums and typing protocols differ?"
DIFFER = "Dataclasses generate methods, while enums define named constants and protocols describe structural types."


@pytest.mark.parametrize("code", [
    ">>> Color.RED is an enum member and dataclasses compare fields.",  # a doctest prompt
    "... print(Color.RED, 'is an enum member of the dataclasses example')",  # its continuation
    "@dataclass_transform() class ModelBase: ...",  # a decorator and a stub (PEP 681's example)
    "@enum.unique class Protocols(Enum): RED = 1",
    "class Point(Protocol): ...",
])
def test_python_code_from_the_docs_is_never_a_passage(code):
    assert passages(f"{code}\n\n{DIFFER}\n", PROTOCOLS) == [DIFFER]
