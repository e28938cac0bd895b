"""How a listed item gets its words (:mod:`engine.offline_item_words`): the words before the first item
that open with a verb and its subject, or end with a preposition, are every item's ("Should I buy |
solar panels, a battery, or a wind turbine?": "Should I buy a battery"; "Can I run a heat pump with |
solar panels and a battery?": "Can I run a heat pump with a battery"); an "a" before the first item is
that item's alone ("What is the cost of a wind turbine versus solar panels?": "What is the cost of
solar panels"); a later item that is a plural noun of its own shares no word of the first one ("How
much noise do heat pumps, batteries and solar panels make?": "batteries", never "heat batteries");
and a verb before "together" is asked of the items together ("Can heat pumps and boilers run
together?": "boilers", never "boilers run")."""

from __future__ import annotations

import pytest

from engine.offline_lists import listed_frames
from engine.offline_text import plan_topics
from tests.engine.test_offline_fidelity import offline_run


@pytest.mark.parametrize(("brief", "topics"), [
    ("Should I buy solar panels, a battery, or a wind turbine?",
     ["Should I buy solar panels", "Should I buy a battery", "Should I buy a wind turbine"]),
    ("Should I install solar panels or a battery first?",
     ["Should I install solar panels", "Should I install a battery first"]),
    ("Should we use Redis, Kafka, or a message queue?",
     ["Should we use Redis", "Should we use Kafka", "Should we use a message queue"]),
    ("Can I run a heat pump with solar panels and a battery?",
     ["Can I run a heat pump with solar panels", "Can I run a heat pump with a battery"]),
    ("Can I pay with cash, a card or a phone?", ["Can I pay with cash", "Can I pay with a card", "Can I pay with a phone"]),
    ("Is it better to buy solar panels or a battery?", ["Is it better to buy solar panels", "Is it better to buy a battery"]),
    ("Would you recommend buying solar panels or a battery?",
     ["Would you recommend buying solar panels", "Would you recommend buying a battery"]),
    ("Is it worth installing solar panels or a battery?",
     ["Is it worth installing solar panels", "Is it worth installing a battery"]),
])
def test_the_verb_and_preposition_before_the_first_item_are_every_items(brief, topics):
    assert plan_topics(brief, 5, "en") == topics
    frames = listed_frames(brief, "en")
    assert all(frames[t] and "…" in frames[t] for t in topics), frames


@pytest.mark.parametrize(("brief", "topics"), [
    ("What is the cost of a wind turbine versus solar panels?",
     ["What is the cost of a wind turbine", "What is the cost of solar panels"]),
    ("What is the cost of a wind turbine vs solar panels?",
     ["What is the cost of a wind turbine", "What is the cost of solar panels"]),
    ("What is the cost of solar panels versus a wind turbine?",
     ["What is the cost of solar panels", "What is the cost of a wind turbine"]),
    ("Should I buy a heat pump or solar panels?", ["Should I buy a heat pump", "Should I buy solar panels"]),
    ("How much do a heat pump, solar panels and a battery cost?",
     ["How much does a heat pump cost", "How much do solar panels cost", "How much does a battery cost"]),
    ("What is the weight of an electric bike vs scooters?",
     ["What is the weight of an electric bike", "What is the weight of scooters"]),
    # adjectives of one noun share the article before them
    ("Is it a good or bad idea?", ["Is it a good idea", "Is it a bad idea"]),
    ("Should I buy an old or new car?", ["Should I buy an old car", "Should I buy a new car"]),
])
def test_an_article_before_the_first_item_is_that_items_alone(brief, topics):
    assert plan_topics(brief, 5, "en") == topics


@pytest.mark.parametrize(("brief", "topics"), [
    ("How much noise do heat pumps, batteries and solar panels make?",
     ["How much noise do heat pumps make", "How much noise do batteries make", "How much noise do solar panels make"]),
    ("What are the costs of solar panels and batteries?",
     ["What are the costs of solar panels", "What are the costs of batteries"]),
    ("What are the costs of heat pumps and boilers?", ["What are the costs of heat pumps", "What are the costs of boilers"]),
    # adjectives of one noun still share it
    ("How efficient are ground-source and air-source heat pumps?",
     ["How efficient are ground-source heat pumps", "How efficient are air-source heat pumps"]),
    ("How do small and large companies hire?", ["How do small companies hire", "How do large companies hire"]),
    # a name before the first item is every item's; so are a subject and its verb
    ("How do asyncio tasks, threads and worker processes differ?",
     ["How do asyncio tasks differ", "How do asyncio threads differ", "How do asyncio worker processes differ"]),
    ("How does asyncio cancel tasks, futures and threads?",
     ["How does asyncio cancel tasks", "How does asyncio cancel futures", "How does asyncio cancel threads"]),
])
def test_a_later_plural_noun_shares_no_word_of_the_first_item(brief, topics):
    assert plan_topics(brief, 5, "en") == topics


def test_a_plural_item_has_a_frame_without_the_first_items_words():
    frames = listed_frames("How much noise do heat pumps, batteries and solar panels make?", "en")
    assert frames["How much noise do batteries make"] == "How much noise do … make", frames


@pytest.mark.parametrize(("brief", "topics"), [
    ("Can heat pumps and boilers run together?", ["heat pumps", "boilers"]),
    ("Can heat pumps and boilers operate together?", ["heat pumps", "boilers"]),
    ("Do heat pumps and boilers work together?", ["heat pumps", "boilers"]),
    ("Do Kafka and Redis run well together?", ["Kafka", "Redis"]),
    ("Can we run Kafka and Redis together?", ["Kafka", "Redis"]),
    ("Should I buy solar panels and a battery together?", ["solar panels", "a battery"]),
])
def test_a_verb_before_together_asks_how_the_items_relate(brief, topics):
    assert plan_topics(brief, 5, "en") == topics


def test_a_report_quotes_under_each_item_with_the_verb_before_the_list(tmp_path):
    pages = {
        "battery.md": "# Home batteries\n\nYou should buy a battery when your solar panels make more power at noon "
                      "than the house uses. Batteries last about ten years.\n",
        "turbine.md": "# Small wind turbines\n\nFew households should buy a wind turbine, since a small one needs "
                      "steady wind above five metres per second.\n",
        "solar.md": "# Solar panels\n\nMost households that buy solar panels earn their cost back in about ten years.\n",
    }
    report = offline_run(tmp_path, pages, "Should I buy solar panels, a battery, or a wind turbine?", 1).report_md.read_text()
    assert "## Findings: Should I buy a battery" in report, report
    assert "## Findings: Should I buy a wind turbine" in report, report
    assert "Should a battery" not in report, report


@pytest.mark.parametrize(("brief", "topics"), [
    ("What are the long-term maintenance costs and risks of ground-source heat pumps in older houses?",
     ["What are the long-term maintenance costs of ground-source heat pumps in older houses",
      "What are the long-term maintenance risks of ground-source heat pumps in older houses"]),
    ("What are the hidden costs and risks of buying a used car?",
     ["What are the hidden costs of buying a used car", "What are the hidden risks of buying a used car"]),
    ("What are the main causes and symptoms of diabetes?",
     ["What are the main causes of diabetes", "What are the main symptoms of diabetes"]),
    ("What are the costs of solar panels and batteries in Germany?",
     ["What are the costs of solar panels in Germany", "What are the costs of batteries in Germany"]),
])
def test_words_before_two_nouns_of_one_genitive_are_both_nouns(brief, topics):
    """The words before "costs and risks of …" are every item's (each item is the head of the same
    "of" phrase); a later plural noun that a qualifier follows ("batteries in Germany") shares no word before
    the first item, and the qualifier is every item's."""
    assert plan_topics(brief, 5, "en") == topics


@pytest.mark.parametrize(("brief", "topics"), [
    ("Should I buy a battery or solar panels for my house?",
     ["Should I buy a battery for my house", "Should I buy solar panels for my house"]),
    ("Should I install a heat pump or solar panels on my roof?",
     ["Should I install a heat pump on my roof", "Should I install solar panels on my roof"]),
    ("Should I rent an apartment or buy a house in Berlin?",
     ["Should I rent an apartment in Berlin", "Should I buy a house in Berlin"]),
    ("What do the main thread and daemon threads do at exit?", ["What do the main thread and daemon threads do at exit?"]),
])
def test_a_second_item_ends_before_its_preposition_and_the_first_is_as_long(brief, topics):
    """"Should I buy a battery or solar panels for my house?" gave "Should I buy a battery my house" and
    "Should I solar panels for my house": the second item was taken up to "for"."""
    assert plan_topics(brief, 5, "en") == topics


@pytest.mark.parametrize(("brief", "topics"), [
    ("How do I make pancakes and waffles without eggs?",
     ["How do I make pancakes without eggs", "How do I make waffles without eggs"]),
    ("How do I bake bread and cookies without an oven?",
     ["How do I bake bread without an oven", "How do I bake cookies without an oven"]),
    ("How do I measure blood pressure and heart rate at home?",
     ["How do I measure blood pressure at home", "How do I measure heart rate at home"]),
    ("How can we cut costs and emissions quickly?", ["How can we cut costs quickly", "How can we cut emissions quickly"]),
    ("How do I make pancakes and waffles quickly?",
     ["How do I make pancakes quickly", "How do I make waffles quickly"]),
])
def test_the_verb_after_a_subject_pronoun_is_every_items(brief, topics):
    """"How do I make pancakes and waffles without eggs?" gave "How do I waffles without eggs": a
    phrase after the list that opens with "without" or "at" was not read as shared, and the verb went
    into the first item alone; a second item that opens with a plural noun is no verb's."""
    assert plan_topics(brief, 5, "en") == topics


@pytest.mark.parametrize(("brief", "topics"), [
    ("How do I prevent SQL injection and XSS in a Flask app?",
     ["How do I prevent SQL injection in a Flask app", "How do I prevent XSS in a Flask app"]),
    ("How do I configure load balancing and HTTPS on Nginx?",
     ["How do I configure load balancing on Nginx", "How do I configure HTTPS on Nginx"]),
    ("How do I use dependency injection and GraphQL in Spring?",
     ["How do I use dependency injection in Spring", "How do I use GraphQL in Spring"]),
    ("How do I optimize SQL queries and indexes in PostgreSQL?",
     ["How do I optimize SQL queries in PostgreSQL", "How do I optimize SQL indexes in PostgreSQL"]),
])
def test_a_later_name_shares_no_word_of_the_first_item(brief, topics):
    """"How do I prevent SQL injection and XSS in a Flask app?" gave "How do I prevent SQL XSS in a
    Flask app": a later item that is a name (capitalised, after a first item that ends in a word
    that is not) takes no word of the first one; a later common noun still does ("SQL indexes")."""
    assert plan_topics(brief, 5, "en") == topics


@pytest.mark.parametrize(("brief", "topics"), [
    ("Is it worth buying a heat pump and solar panels in Germany?",
     ["Is it worth buying a heat pump in Germany", "Is it worth buying solar panels in Germany"]),
    ("What are the running costs of electric cars and petrol cars in the UK?",
     ["What are the running costs of electric cars in the UK", "What are the running costs of petrol cars in the UK"]),
    ("What are the tax rules for freelancers and small businesses in Spain?",
     ["What are the tax rules for freelancers in Spain", "What are the tax rules for small businesses in Spain"]),
    ("What is the impact of social media and video games on teenagers?",
     ["What is the impact of social media on teenagers", "What is the impact of video games on teenagers"]),
])
def test_a_second_item_before_a_preposition_carries_the_questions_words(brief, topics):
    """"Is it worth buying a heat pump and solar panels in Germany?" gave "solar panels in Germany",
    a second sub-question without the question's words: a second item of more words than one,
    before a phrase that opens with a preposition, is as long as its words before it."""
    assert plan_topics(brief, 5, "en") == topics


@pytest.mark.parametrize(("brief", "topics"), [
    ("How do I fix memory leaks and race conditions in Go programs?",
     ["How do I fix memory leaks in Go programs", "How do I fix race conditions in Go programs"]),
    ("How do I improve sleep quality and energy levels naturally?",
     ["How do I improve sleep quality naturally", "How do I improve energy levels naturally"]),
    ("What is the best way to store potatoes and onions?",
     ["What is the best way to store potatoes", "What is the best way to store onions"]),
    ("Is it better to rent an apartment or buy a house?",
     ["Is it better to rent an apartment", "Is it better to buy a house"]),
])
def test_a_shorter_noun_item_after_a_verb_shares_the_verb(brief, topics):
    """"How do I fix memory leaks and race conditions in Go programs?" gave "How do I race conditions
    in Go programs": a later item of nouns alone, shorter than the first item after "I" with its
    verb, is that verb's object too; so is a plural after "to" and its verb ("to store | onions")."""
    assert plan_topics(brief, 5, "en") == topics


@pytest.mark.parametrize(("brief", "topics"), [
    ("What are the health effects of coffee, tea and energy drinks?",
     ["What are the health effects of coffee", "What are the health effects of tea",
      "What are the health effects of energy drinks"]),
    ("What are the side effects of ibuprofen, aspirin and fish oil?",
     ["What are the side effects of ibuprofen", "What are the side effects of aspirin",
      "What are the side effects of fish oil"]),
    ("How safe is the use of bleach, vinegar and baking soda?",
     ["How safe is the use of bleach", "How safe is the use of vinegar", "How safe is the use of baking soda"]),
    ("What is the carbon footprint of beef, chicken and oat milk?",
     ["What is the carbon footprint of beef", "What is the carbon footprint of chicken",
      "What is the carbon footprint of oat milk"]),
])
def test_a_longer_last_item_after_a_preposition_is_one_item(brief, topics):
    """Items after "of" are the preposition's objects: the words after the last one's first word
    ("energy | drinks") are its own, no verb the items share (which "What do cats and dogs eat" has)."""
    assert plan_topics(brief, 5, "en") == topics
