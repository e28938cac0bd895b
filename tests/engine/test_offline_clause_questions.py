"""A question of several clauses: what each later clause's pronoun stands for, where a clause's list
of what is asked ends, and which corpus sentence leans on the one before it.

A later question's pronoun is written as the first question's subject, a noun phrase: never the noun
with the verb after it ("How long do heat pumps last and how much do they cost?" gave "How much do
heat pumps last cost"). Two lists, one of what is asked ("pros and cons") and one of what it is
asked of ("heat pumps and gas boilers"), give one sub-question per thing asked of, the first list
whole ("What are the pros and cons of heat pumps"); the question was cut in three pieces ("What are
the pros", "cons of heat pumps", "gas boilers")."""

from __future__ import annotations

import pytest

from engine.offline_text import plan_topics


@pytest.mark.parametrize(("question", "language", "expected"), [
    ("How long do heat pumps last and how much do they cost?", "en",
     ["How long do heat pumps last", "How much do heat pumps cost"]),
    ("How long do batteries last and what do they cost?", "en", ["How long do batteries last", "What do batteries cost"]),
    ("When do solar panels pay off and how long do they last?", "en",
     ["When do solar panels pay off", "How long do solar panels last"]),
    ("How long do lithium batteries usually last? What do they cost?", "en",
     ["How long do lithium batteries usually last", "What do lithium batteries cost"]),
    ("How long does a heat pump last and what does it cost?", "en",
     ["How long does a heat pump last", "What does a heat pump cost"]),
    ("How fast does Python run and why is it slow?", "en", ["How fast does Python run", "Why is Python slow"]),
    ("What do cats eat and how much do they sleep?", "en", ["What do cats eat", "How much do cats sleep"]),
    ("Wie lange halten Wärmepumpen und was kosten sie?", "de", ["Wie lange halten Wärmepumpen", "Was kosten Wärmepumpen"]),
    ("Wann lohnen sich Solaranlagen und wie lange halten sie?", "de",
     ["Wann lohnen sich Solaranlagen", "Wie lange halten Solaranlagen"]),
    # kept: a subject before an asked adjective, or the verb before the subject
    ("How loud are heat pumps and what do they cost?", "en", ["How loud are heat pumps", "What do heat pumps cost"]),
    ("What does asyncio do and how does it compare to threads?", "en",
     ["What does asyncio do", "How does asyncio compare to threads"]),
    ("Combien de temps durent les pompes à chaleur et combien coûtent-elles ?", "fr",
     ["Combien de temps durent les pompes à chaleur", "Combien les pompes à chaleur coûtent-elles"]),
])
def test_a_later_pronoun_stands_for_the_first_subject_without_its_verb(question, language, expected):
    assert plan_topics(question, 5, language) == expected
