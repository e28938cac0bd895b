"""Words a list's items share that the first or last item seemed to own: a preposition before the first
item is every item's ("Should I heat with gas or a heat pump?": "Should I heat with a heat pump", never
"Should I heat a heat pump"), and so is the verb after the last item when an auxiliary comes before the
list ("How much do solar panels and batteries cost?": "How much do batteries cost", never "How much do
solar panels" and "How much does batteries cost")."""

from __future__ import annotations

import pytest

from engine.offline_text import plan_topics


@pytest.mark.parametrize(("brief", "topics"), [
    ("Should I heat with gas or a heat pump?", ["Should I heat with gas", "Should I heat with a heat pump"]),
    ("Can I pay with cash or a card?", ["Can I pay with cash", "Can I pay with a card"]),
    ("Should I go by train or car?", ["Should I go by train", "Should I go by car"]),
    ("Is it cheaper to cook with gas or electricity?",
     ["Is it cheaper to cook with gas", "Is it cheaper to cook with electricity"]),
])
def test_a_preposition_before_the_first_item_is_every_items(brief, topics):
    assert plan_topics(brief, 5, "en") == topics


@pytest.mark.parametrize(("brief", "topics"), [
    ("How much do solar panels and batteries cost?", ["How much do solar panels cost", "How much do batteries cost"]),
    ("How long do heat pumps and boilers last?", ["How long do heat pumps last", "How long do boilers last"]),
    ("How much do solar panels and wind turbines cost?",
     ["How much do solar panels cost", "How much do wind turbines cost"]),
    ("Should I rent an apartment or buy a house?", ["Should I rent an apartment", "Should I buy a house"]),
    # items of different lengths: the verb tells where the last one ends
    ("How do daemon threads and the main thread behave?",
     ["How do daemon threads behave", "How does the main thread behave"]),
    ("How do heat pumps and the gas boilers work?", ["How do heat pumps work", "How do the gas boilers work"]),
])
def test_the_verb_after_the_last_item_is_every_items(brief, topics):
    assert plan_topics(brief, 5, "en") == topics


def test_a_german_list_whose_verb_ends_the_question_is_not_cut_apart():
    # "Soll ich mit Gas oder einer Wärmepumpe heizen?" gave "Soll ich mit Gas" and "Soll ich einer
    # Wärmepumpe heizen"; it is researched whole until its final verb can be shared
    topics = plan_topics("Soll ich mit Gas oder einer Wärmepumpe heizen?", 5, "de")
    assert "Soll ich einer Wärmepumpe heizen" not in topics and "Soll ich mit Gas" not in topics, topics
