"""A question that lists things gets one sub-question per item however many words each item is: a
last item longer than the middle ones ("typing protocols", "Redis Streams", "große Windräder") is
not cut at the middle ones' length, nor cut into the frame's verb ("batteries | work together"); a question that
only asks how the items relate ("work together", "interact", "zusammen") gives each item alone."""

from __future__ import annotations

import pytest

from engine.offline_text import plan_topics


@pytest.mark.parametrize(("question", "language", "expected"), [
    # was "How do dataclasses protocols work together" / "How does typing protocols work together"
    ("How do dataclasses, enums and typing protocols work together?", "en",
     ["dataclasses", "enums", "typing protocols"]),
    ("How do dataclasses, enums and typing protocols interact?", "en", ["dataclasses", "enums", "typing protocols"]),
    ("How do Kafka, RabbitMQ and Redis Streams interact?", "en", ["Kafka", "RabbitMQ", "Redis Streams"]),
    ("How do solar panels and home batteries work together?", "en", ["solar panels", "home batteries"]),
    ("How do solar panels, heat pumps and batteries work together?", "en", ["solar panels", "heat pumps", "batteries"]),
    ("How do dataclasses, typing protocols and enums work together?", "en",
     ["dataclasses", "typing protocols", "enums"]),
    ("How do inflation, interest rates, wages and unemployment relate?", "en",
     ["inflation", "interest rates", "wages", "unemployment"]),
    ("How do X, Y and Z interact?", "en", ["X", "Y", "Z"]),
    ("How do inflation, interest rates and wages relate to each other?", "en",
     ["inflation", "interest rates", "wages"]),
    ("How do heat pumps, solar panels and home batteries fit together?", "en",
     ["heat pumps", "solar panels", "home batteries"]),
    ("How do I use pandas, numpy and scipy together?", "en", ["pandas", "numpy", "scipy"]),
    ("Wie funktionieren Datenklassen, Enums und Protokolle zusammen?", "de", ["Datenklassen", "Enums", "Protokolle"]),
    ("Wie arbeiten Wärmepumpen, Gaskessel und Solaranlagen zusammen?", "de",
     ["Wärmepumpen", "Gaskessel", "Solaranlagen"]),
    ("Wie hängen Inflation, Zinsen und Löhne zusammen?", "de", ["Inflation", "Zinsen", "Löhne"]),
    ("Comment les listes, les tuples et les ensembles interagissent-ils ?", "fr",
     ["les listes", "les tuples", "les ensembles"]),
    ("¿Cómo interactúan las listas, las tuplas y los conjuntos?", "es", ["las listas", "las tuplas", "los conjuntos"]),
    ("Come interagiscono liste, tuple e insiemi?", "it", ["liste", "tuple", "insiemi"]),
    ("Hur fungerar listor, tupler och mängder tillsammans?", "sv", ["listor", "tupler", "mängder"]),
    ("Hoe werken zonnepanelen, warmtepompen en accu's samen?", "nl", ["zonnepanelen", "warmtepompen", "accu's"]),
])
def test_a_question_on_how_items_relate_gives_each_item_alone(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "language", "expected"), [
    # was "How do lists sets differ in memory use" / "How does frozen sets differ in memory use"
    ("How do lists, tuples and frozen sets differ in memory use?", "en",
     ["How do lists differ in memory use", "How do tuples differ in memory use",
      "How do frozen sets differ in memory use"]),
    # was "How do asyncio tasks" / "How do asyncio threads" / "worker processes differ"; the words before
    # the first item's are shared, as "asyncio" is in "asyncio tasks, timeouts and events"
    ("How do asyncio tasks, threads and worker processes differ?", "en",
     ["How do asyncio tasks differ", "How do asyncio threads differ", "How do asyncio worker processes differ"]),
    ("What do cats and guinea pigs eat?", "en", ["What do cats eat", "What do guinea pigs eat"]),
    ("How do Postgres and SQL Server store indexes?", "en",
     ["How does Postgres store indexes", "How does SQL Server store indexes"]),
    ("What do cats, dogs and guinea pigs eat?", "en", ["What do cats eat", "What do dogs eat", "What do guinea pigs eat"]),
    # was "How does Postgres Server store indexes"
    ("How do Postgres, MySQL and SQL Server store indexes?", "en",
     ["How does Postgres store indexes", "How does MySQL store indexes", "How does SQL Server store indexes"]),
    ("How do heat pumps, gas boilers and district heating networks handle cold weather?", "en",
     ["How do heat pumps handle cold weather", "How do gas boilers handle cold weather",
      "How do district heating networks handle cold weather"]),
    ("What are the costs, risks and long term benefits of solar panels?", "en",
     ["What are the costs of solar panels", "What are the risks of solar panels",
      "What are the long term benefits of solar panels"]),
    # was "Wie Wärmepumpen Solarmodule" / "Wie große Solarmodule Windräder"
    ("Wie funktionieren Solarmodule, Wärmepumpen und große Windräder?", "de",
     ["Wie funktionieren Solarmodule", "Wie funktionieren Wärmepumpen", "Wie funktionieren große Windräder"]),
    ("Wie funktionieren Solarmodule, Wärmepumpen und große Windräder im Winter?", "de",
     ["Wie funktionieren Solarmodule im Winter", "Wie funktionieren Wärmepumpen im Winter",
      "Wie funktionieren große Windräder im Winter"]),
])
def test_items_of_different_lengths_each_keep_their_own_words(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "language", "expected"), [
    # the verb before the items is the question's, not part of an item; a later verb with an object of
    # its own is a clause of its own
    ("How does asyncio cancel tasks and handle timeouts?", "en",
     ["How does asyncio cancel tasks", "How does asyncio handle timeouts"]),
    ("What are wind turbine blades and towers made of?", "en",
     ["What are wind turbine blades made of", "What are wind turbine towers made of"]),
    ("How does asyncio cancel tasks, futures and threads?", "en",
     ["How does asyncio cancel tasks", "How does asyncio cancel futures", "How does asyncio cancel threads"]),
    ("How do programmers write tests, docs and code?", "en",
     ["How do programmers write tests", "How do programmers write docs", "How do programmers write code"]),
    ("How do I use pandas, numpy and scipy?", "en",
     ["How do I use pandas", "How do I use numpy", "How do I use scipy"]),
])
def test_a_list_after_the_questions_verb_keeps_the_verb_in_the_frame(question, language, expected):
    assert plan_topics(question, 5, language) == expected
