"""A number written with a comma ("12,000 kWh", "$2,000", German and French "0,35 €", "1,5 kW") is one
number, never two listed items: the comma between two digits is a thousands separator or a decimal
comma, and a sub-question writes the number as the question does. A list of numbers still splits at
the commas that part its items ("1, 2 or 3", "12,000, 15,000 or 20,000 kWh") and at its "or"
("1,5 oder 2,5 kW"); Chinese and Japanese commas ("、") part items as before."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.offline_choices import choice_as_clause
from engine.offline_lists import _clause, listed_frames, listed_topics
from engine.offline_text import plan_topics

#: A number as a question writes it: digits, with a comma or a dot between digits.
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


@pytest.mark.parametrize(("brief", "language", "number"), [
    ("How much do heat pumps cost to run at 12,000 kWh per year?", "en", "12,000"),
    ("Lohnt sich eine Wärmepumpe bei 0,35 € pro kWh?", "de", "0,35"),
    ("Une pompe à chaleur est-elle rentable à 0,20 € le kWh ?", "fr", "0,20"),
    ("What can I buy with $2,000?", "en", "2,000"),
    ("How much does a heat pump cost with a $2,000 subsidy?", "en", "2,000"),
    ("Wie viel kostet eine Wärmepumpe mit 1.234,56 € Förderung?", "de", "1.234,56"),
    ("Lohnt sich das bei 12.000,50 € im Jahr?", "de", "12.000,50"),
    ("How much do heat pumps cost to run at 1,000.10 kWh per year?", "en", "1,000.10"),
])
def test_a_number_with_a_comma_is_no_list(brief: str, language: str, number: str) -> None:
    assert len(listed_topics(brief, language)) < 2
    topics = plan_topics(brief, 5, language)
    assert topics
    assert all(number in t for t in topics if re.search(r"\d", t)), topics


@pytest.mark.parametrize(("brief", "language", "topics"), [
    ("Reichen 1,5 oder 2,5 kW?", "de", ["Reichen 1,5 kW", "Reichen 2,5 kW"]),
    ("How much does heating cost at 12,000, 15,000 or 20,000 kWh?", "en",
     ["How much does heating cost at 12,000 kWh", "How much does heating cost at 15,000 kWh",
      "How much does heating cost at 20,000 kWh"]),
    ("Is 1,5 or 2,5 kW enough?", "en", ["Is 1,5 kW enough", "Is 2,5 kW enough"]),
    ("Is 1, 2 or 3 enough?", "en", ["Is 1 enough", "Is 2 enough", "Is 3 enough"]),
    ("How much does it cost at 12.000, 15.000 or 20.000 kWh?", "en",
     ["How much does it cost at 12.000 kWh", "How much does it cost at 15.000 kWh",
      "How much does it cost at 20.000 kWh"]),
])
def test_a_list_of_numbers_splits_at_its_list_commas(brief: str, language: str, topics: list[str]) -> None:
    assert listed_topics(brief, language) == topics
    assert plan_topics(brief, 5, language) == topics


def test_the_clause_pattern_keeps_a_number_whole() -> None:
    assert _clause("en").split("at 12,000, 15,000 kWh")[::2] == ["at 12,000", " 15,000 kWh"]
    assert _clause("de").split("0,35 €,dann")[::2] == ["0,35 €", "dann"]


@pytest.mark.parametrize(("brief", "language", "topics"), [
    ("Kaffee oder Tee, was ist gesünder bei 0,35 €?", "de",
     ["Ist Kaffee gesünder bei 0,35 €", "Ist Tee gesünder bei 0,35 €"]),
    ("Gas or a heat pump, which is cheaper at 0,35 € per kWh?", "en",
     ["Is gas cheaper at 0,35 € per kWh", "Is a heat pump cheaper at 0,35 € per kWh"]),
])
def test_a_choice_before_a_number_with_a_comma_is_asked_of_each_item(
        brief: str, language: str, topics: list[str]) -> None:
    # the clause that asks which is the one after the last comma that parts clauses, not after "0,"
    assert choice_as_clause(brief, _clause(language), language).startswith(brief.split(", ", 1)[1].rstrip("?"))
    assert listed_topics(brief, language) == topics


def test_chinese_commas_still_part_items() -> None:
    assert listed_topics("热泵在1,000千瓦时、2,000千瓦时的成本？", "zh") == ["热泵在1,000千瓦时的成本", "2,000千瓦时的成本"]


_DIGITS = st.integers(min_value=0, max_value=999)


@st.composite
def _numbers(draw: st.DrawFn) -> str:
    """A number with a thousands separator or a decimal mark: "12,000", "1.234,56", "0,35", "3.5"."""
    head = str(draw(st.integers(min_value=1, max_value=999)))
    groups = [f"{draw(_DIGITS):03d}" for _ in range(draw(st.integers(min_value=0, max_value=2)))]
    thousands, decimal = draw(st.sampled_from([(",", "."), (".", ","), (" ", ",")]))
    number = thousands.join([head, *groups]) if thousands != " " else head
    if draw(st.booleans()) or not groups:
        number += decimal + str(draw(st.integers(min_value=0, max_value=99)))
    return number


_TEMPLATES = [
    ("How much do heat pumps cost to run at {} kWh per year?", "en"),
    ("What can I buy with ${}?", "en"),
    ("Is a {} kW heat pump enough for a small house?", "en"),
    ("Which is cheaper at {} € per kWh, gas or a heat pump?", "en"),
    ("How much do solar panels and batteries cost for {} kWh?", "en"),
    ("Lohnt sich eine Wärmepumpe bei {} € pro kWh?", "de"),
    ("Was kosten Solarmodule und Batterien bei {} kWh im Jahr?", "de"),
    ("Une pompe à chaleur est-elle rentable à {} € le kWh ?", "fr"),
    ("¿Cuánto cuesta una bomba de calor con {} kWh al año?", "es"),
]
_LIST_TEMPLATES = [
    ("How much does heating cost at {}, {} or {} kWh?", "en"),
    ("Is {} or {} kW enough?", "en"),
    ("Reichen {}, {} oder {} kW?", "de"),
    ("Combien coûte le chauffage à {} ou {} kWh ?", "fr"),
]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_TEMPLATES), _numbers())
def test_no_sub_question_changes_the_number_of_the_question(template: tuple[str, str], number: str) -> None:
    text, language = template
    brief = text.format(number)
    for topic in [*plan_topics(brief, 5, language), *listed_frames(brief, language).values()]:
        if re.search(r"\d", topic):
            assert number in topic, (brief, topic)
            assert _NUMBER.findall(topic) == _NUMBER.findall(brief), (brief, topic)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_LIST_TEMPLATES), st.lists(_numbers(), min_size=3, max_size=3))
def test_a_listed_number_stays_whole_in_its_sub_question(template: tuple[str, str], numbers: list[str]) -> None:
    text, language = template
    brief = text.format(*numbers)
    asked = _NUMBER.findall(brief)
    for topic in [*plan_topics(brief, 5, language), *listed_topics(brief, language)]:
        found = _NUMBER.findall(topic)
        assert set(found) <= set(asked), (brief, topic)
        # a number is written whole: no fragment of one ("12" of "12,000") stands where it was
        assert all(re.search(rf"(?<![\d.,]){re.escape(n)}(?![\d]|[.,]\d)", brief) for n in found), (brief, topic)
