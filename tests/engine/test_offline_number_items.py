"""Numbers listed as alternatives: each item keeps its number as written (".5", "1,000", "1.000",
"5%"), and the unit or noun written after the last number is every number's ("Is 2.5 or 3.5 inch
better?": "Is 2.5 inch better"; "Is a 1-year or 2-year plan cheaper?": "Is a 1-year plan cheaper"),
in a question that asks yes or no and in one that asks which to choose ("Which is better, 1,000 or
2,000 watts?": "1,000 watts", as "Which is better, Postgres or MySQL?" gives "Postgres"). A word in
capitals is a name, no pronoun ("Is IT or HR responsible?"), and two subject pronouns are two items
("Should we or they pay?")."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.offline_lists import listed_frames, listed_topics


@pytest.mark.parametrize(
    ("brief", "language", "topics"),
    [
        ("Is 1 or .5 mm enough?", "en", ["Is 1 mm enough", "Is .5 mm enough"]),
        ("Is .5 or 1 mm enough?", "en", ["Is .5 mm enough", "Is 1 mm enough"]),
        ("Is 0.5 or .25 inch better?", "en", ["Is 0.5 inch better", "Is .25 inch better"]),
        ("Which is better, .5 or 1 mm?", "en", [".5 mm", "1 mm"]),
        ("Is .NET or Java faster?", "en", ["Is .NET faster", "Is Java faster"]),
        ("Which is faster, .NET or Go?", "en", ["Is .NET faster", "Is Go faster"]),
        ("Reichen 1 oder ,5 mm?", "de", ["Reichen 1 mm", "Reichen ,5 mm"]),
    ],
)
def test_a_number_keeps_its_leading_mark(brief: str, language: str, topics: list[str]) -> None:
    assert listed_topics(brief, language) == topics


@pytest.mark.parametrize(
    ("brief", "language", "topics"),
    [
        ("Which is better, 1,000 or 2,000 watts?", "en", ["1,000 watts", "2,000 watts"]),
        ("Which is better, 1 or 2 mm?", "en", ["1 mm", "2 mm"]),
        ("Which is better, 1.5 or 2.5 kW?", "en", ["1.5 kW", "2.5 kW"]),
        ("Welche ist besser, 1.000 oder 2.000 Watt?", "de", ["1.000 Watt", "2.000 Watt"]),
        ("¿Cuál es mejor, 1.000 o 2.000 vatios?", "es", ["1.000 vatios", "2.000 vatios"]),
        ("Quel est le meilleur, 1 000 ou 2 000 watts ?", "fr", ["1 000 watts", "2 000 watts"]),
        ("Which is better, 5% or 10%?", "en", ["5%", "10%"]),
        ("Qual è meglio, 1.000 o 2.000 watt?", "it", ["1.000 watt", "2.000 watt"]),
        ("Qual é melhor, 1.000 ou 2.000 watts?", "pt", ["1.000 watts", "2.000 watts"]),
        ("Wat is beter, 1.000 of 2.000 watt?", "nl", ["1.000 watt", "2.000 watt"]),
        ("Quel est le meilleur, 1,5 ou 2,5 kW ?", "fr", ["1,5 kW", "2,5 kW"]),
    ],
)
def test_numbers_to_choose_among_share_their_unit(brief: str, language: str, topics: list[str]) -> None:
    assert listed_topics(brief, language) == topics


@pytest.mark.parametrize(
    ("brief", "language", "topics"),
    [
        ("Is 2.5 or 3.5 inch better?", "en", ["Is 2.5 inch better", "Is 3.5 inch better"]),
        ("Is 2 or 3 inch better?", "en", ["Is 2 inch better", "Is 3 inch better"]),
        ("Is 1,000 or 2,000 watts better?", "en", ["Is 1,000 watts better", "Is 2,000 watts better"]),
        (
            "Is a 1-year or 2-year plan cheaper?",
            "en",
            ["Is a 1-year plan cheaper", "Is a 2-year plan cheaper"],
        ),
        (
            "Is a 1-year or a 2-year plan cheaper?",
            "en",
            ["Is a 1-year plan cheaper", "Is a 2-year plan cheaper"],
        ),
        ("Ist 1,5 oder 2,5 kW besser?", "de", ["Ist 1,5 kW besser", "Ist 2,5 kW besser"]),
        (
            "Is an 8-hour or 12-hour shift safer?",
            "en",
            ["Is an 8-hour shift safer", "Is a 12-hour shift safer"],
        ),
        ("Is a 4K or 8K TV better?", "en", ["Is a 4K TV better", "Is an 8K TV better"]),
        (
            "Is the 2.5 or 3.5 inch drive faster?",
            "en",
            ["Is the 2.5 inch drive faster", "Is the 3.5 inch drive faster"],
        ),
        ("Is 1 or 2 mm enough?", "en", ["Is 1 mm enough", "Is 2 mm enough"]),
        ("Is 2.5 or 3.5 inches enough?", "en", ["Is 2.5 inches enough", "Is 3.5 inches enough"]),
    ],
)
def test_numbers_share_the_words_after_the_last(brief: str, language: str, topics: list[str]) -> None:
    assert listed_topics(brief, language) == topics


@pytest.mark.parametrize(
    ("brief", "language", "topics"),
    [
        ("Is 5% or 10% enough?", "en", ["Is 5% enough", "Is 10% enough"]),
        ("Is 5%, 10% or 20% enough?", "en", ["Is 5% enough", "Is 10% enough", "Is 20% enough"]),
        ("Reichen 5% oder 10%?", "de", ["Reichen 5%", "Reichen 10%"]),
        ("What is 5% or 10% of 200?", "en", ["What is 5% of 200", "What is 10% of 200"]),
        ("Is $5 or $10 cheaper?", "en", ["Is $5 cheaper", "Is $10 cheaper"]),
        ("Ist die IT oder die HR zuständig?", "de", ["Ist die IT zuständig", "Ist die HR zuständig"]),
        ("Is IT or HR responsible?", "en", ["Is IT responsible", "Is HR responsible"]),
        ("Does IT or HR own the laptops?", "en", ["Does IT own the laptops", "Does HR own the laptops"]),
        ("Should we or they pay?", "en", ["Should we pay", "Should they pay"]),
        ("Should you or I pay?", "en", ["Should you pay", "Should I pay"]),
        ("Should I or my wife pay?", "en", ["Should I pay", "Should my wife pay"]),
        ("Do you or your partner pay?", "en", ["Do you pay", "Does your partner pay"]),
        ("Do we or they need a visa?", "en", ["Do we need a visa", "Do they need a visa"]),
        ("Does he or she pay the tax?", "en", ["Does he pay the tax", "Does she pay the tax"]),
    ],
)
def test_no_item_is_lost(brief: str, language: str, topics: list[str]) -> None:
    assert listed_topics(brief, language) == topics


@pytest.mark.parametrize(
    ("brief", "frames"),
    [
        (
            "Is 2.5 or 3.5 inch better?",
            {"Is 2.5 inch better": "Is … better", "Is 3.5 inch better": "Is … better"},
        ),
        ("Should we or they pay?", {"Should we pay": "Should … pay", "Should they pay": "Should … pay"}),
        ("Which is better, 1,000 or 2,000 watts?", {"1,000 watts": "", "2,000 watts": ""}),
    ],
)
def test_the_frame_leaves_out_the_number_and_its_unit(brief: str, frames: dict[str, str]) -> None:
    assert listed_frames(brief) == frames


@st.composite
def _numbers(draw: st.DrawFn) -> str:
    """A number as a question lists it: "12", "1,000", "1.000", "0.5", ".5", "5%", "$5"."""
    whole = str(draw(st.integers(min_value=1, max_value=999)))
    written = draw(st.sampled_from(["{}", "{},000", "{}.000", "{}.5", "0.{}", ".{}", "{}%", "${}"]))
    return written.format(whole)


#: (question, language, the unit, the unit after "1": English makes a known plural singular there)
_UNIT_TEMPLATES = [
    ("Is {} or {} mm enough?", "en", "mm", "mm"),
    ("Is {} or {} inch better?", "en", "inch", "inch"),
    ("Which is better, {} or {} watts?", "en", "watts", "watt"),
    ("Ist {} oder {} kW besser?", "de", "kW", "kW"),
    ("¿Cuál es mejor, {} o {} vatios?", "es", "vatios", "vatios"),
]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_UNIT_TEMPLATES), st.lists(_numbers(), min_size=2, max_size=2, unique=True))
@example(_UNIT_TEMPLATES[2], ["1", "1,000"])  # "1 watt": a known plural after "1" is singular
def test_each_listed_number_is_asked_whole_with_the_unit(
    template: tuple[str, str, str, str], numbers: list[str]
) -> None:
    text, language, units, unit_of_one = template
    brief = text.format(*numbers)
    topics = listed_topics(brief, language)
    assert len(topics) == 2, (brief, topics)
    for number, topic in zip(numbers, topics, strict=True):
        assert re.search(rf"(?<![\w.,$]){re.escape(number)}(?![\w%]|[.,]\d)", topic), (brief, topic)
        assert (unit_of_one if number == "1" else units) in topic.split(), (brief, topic)
