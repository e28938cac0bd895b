"""English choices and lists whose later item is a verb phrase, and a later pronoun for a subject of
several words.

A second item that is a verb of its own ("… or buy", "… or buy one", "… or replace it") took the
first item's verb and article ("Should I rent an apartment or buy?" gave "Should I rent an buy",
"Should we lease a car or buy one?" "Should we lease buy one", "Should I drive to work or take the
bus?" "Should I drive to take the bus"); it is now asked with the words before the first item's
verb, "one" written as the first item's noun ("Should we buy a car"). Two verb
phrases in -ing after "worth" or "better" ("Is it worth buying a used car or leasing a new one?")
gave the second one alone ("leasing a new one"); each now has the frame. "they" after a subject of
several words ("What does a data scientist do and how much do they earn?") was written as the
subject without its last word and with a plural verb ("How much do a data earn"). A compound noun
of small letters listed with a noun of one word ("interest rates and inflation") gave the second one
the first one's first word ("interest inflation")."""

from __future__ import annotations

import pytest

from engine.offline_text import plan_topics


@pytest.mark.parametrize(("question", "expected"), [
    ("Should I rent an apartment or buy?", ["Should I rent an apartment", "Should I buy"]),
    ("Should we lease a car or buy one?", ["Should we lease a car", "Should we buy a car"]),
    ("Is it better to rent a flat or buy?", ["Is it better to rent a flat", "Is it better to buy"]),
    ("Should I rent a house or buy one?", ["Should I rent a house", "Should I buy a house"]),
    ("Should I take a loan or save?", ["Should I take a loan", "Should I save"]),
    ("Should I fix the roof or replace it?", ["Should I fix the roof", "Should I replace it"]),
    ("Should I hire a lawyer or represent myself?", ["Should I hire a lawyer", "Should I represent myself"]),
    ("Should I repair my old laptop or buy a new one?", ["Should I repair my old laptop", "Should I buy a new laptop"]),
    ("Should we move to Spain or stay?", ["Should we move to Spain", "Should we stay"]),
    ("Is it better to take a taxi or walk?", ["Is it better to take a taxi", "Is it better to walk"]),
    # a later verb with its object; a phrase after it is every item's when the first has none
    ("Should I drive to work or take the bus?", ["Should I drive to work", "Should I take the bus"]),
    ("Should I learn to code or hire a developer?", ["Should I learn to code", "Should I hire a developer"]),
    ("Is it better to buy a house with cash or take a mortgage?",
     ["Is it better to buy a house with cash", "Is it better to take a mortgage"]),
    ("Should I rent an apartment or buy a house in Berlin?",
     ["Should I rent an apartment in Berlin", "Should I buy a house in Berlin"]),
    # a noun after the first item's article is still that article's
    ("Should I buy a car or bike?", ["Should I buy a car", "Should I buy a bike"]),
    ("Is it a good or bad idea?", ["Is it a good idea", "Is it a bad idea"]),
])
def test_a_later_verb_is_asked_without_the_first_items_verb(question, expected):
    assert plan_topics(question, 5, "en") == expected


@pytest.mark.parametrize(("question", "expected"), [
    ("Is it worth buying a used car or leasing a new one?",
     ["Is it worth buying a used car", "Is it worth leasing a new car"]),
    ("Is it worth repairing an old bike or buying a new one?",
     ["Is it worth repairing an old bike", "Is it worth buying a new bike"]),
    ("Is it worth renting a flat or buying a small house?",
     ["Is it worth renting a flat", "Is it worth buying a small house"]),
    ("Is it better buying a new laptop or upgrading an old one?",
     ["Is it better buying a new laptop", "Is it better upgrading an old laptop"]),
    ("Is it worth learning Spanish or studying French?", ["Is it worth learning Spanish", "Is it worth studying French"]),
    ("Would you recommend buying a house or renting one?",
     ["Would you recommend buying a house", "Would you recommend renting a house"]),
    ("Is it cheaper renting a car or using taxis in Lisbon?",
     ["Is it cheaper renting a car in Lisbon", "Is it cheaper using taxis in Lisbon"]),
    ("Is it worth taking the train or flying from Paris to Rome?",
     ["Is it worth taking the train from Paris to Rome", "Is it worth flying from Paris to Rome"]),
    ("Which is cheaper, renting an apartment or buying one?",
     ["Is renting an apartment cheaper", "Is buying an apartment cheaper"]),
    # kept: a noun in "-ing" of the first item's phrase, and nouns in "-ing" alone
    ("Is it better running in the morning or evening?",
     ["Is it better running in the morning", "Is it better running in the evening"]),
    ("What are the best practices for logging and monitoring in microservices?",
     ["What are the best practices for logging in microservices",
      "What are the best practices for monitoring in microservices"]),
])
def test_verb_phrases_in_ing_keep_the_frame(question, expected):
    assert plan_topics(question, 5, "en") == expected


@pytest.mark.parametrize(("question", "expected"), [
    ("What does a data scientist do and how much do they earn?",
     ["What does a data scientist do", "How much does a data scientist earn"]),
    ("What does a nurse do and how much do they earn?", ["What does a nurse do", "How much does a nurse earn"]),
    ("What does an architect do and where do they work?", ["What does an architect do", "Where does an architect work"]),
    ("What does a software engineer do and how much are they paid?",
     ["What does a software engineer do", "How much is a software engineer paid"]),
    ("What is a hedge fund and how do they make money?", ["What is a hedge fund", "How does a hedge fund make money"]),
    ("What is a cookie and how do they track users?", ["What is a cookie", "How does a cookie track users"]),
    # kept: a plural subject, and a verb after a singular one
    ("What do electricians do and how much do they earn?", ["What do electricians do", "How much do electricians earn"]),
    ("How long does a heat pump last and what does it cost?", ["How long does a heat pump last", "What does a heat pump cost"]),
])
def test_they_stands_for_a_whole_singular_subject(question, expected):
    assert plan_topics(question, 5, "en") == expected


@pytest.mark.parametrize(("question", "expected"), [
    ("How do interest rates and inflation affect house prices?",
     ["How do interest rates affect house prices", "How does inflation affect house prices"]),
    ("How do exchange rates and tariffs affect exports?", ["How do exchange rates affect exports", "How do tariffs affect exports"]),
    ("How do credit scores and income affect mortgage rates?",
     ["How do credit scores affect mortgage rates", "How does income affect mortgage rates"]),
    ("How do oil prices and wages affect inflation?", ["How do oil prices affect inflation", "How do wages affect inflation"]),
    ("How do stress levels and caffeine affect sleep?", ["How do stress levels affect sleep", "How does caffeine affect sleep"]),
    # kept: a name's word is every item's, and so are a subject and its verb
    ("How does asyncio cancel tasks and timeouts?", ["How does asyncio cancel tasks", "How does asyncio cancel timeouts"]),
    ("Can dogs eat grapes and raisins?", ["Can dogs eat grapes", "Can dogs eat raisins"]),
    ("How do I optimize SQL queries and indexes in PostgreSQL?",
     ["How do I optimize SQL queries in PostgreSQL", "How do I optimize SQL indexes in PostgreSQL"]),
])
def test_a_compound_noun_keeps_its_words_from_a_later_noun(question, expected):
    assert plan_topics(question, 5, "en") == expected
