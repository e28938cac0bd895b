"""A question of several clauses: what each later clause's pronoun stands for, where a clause's list
of what is asked ends, and which corpus sentence leans on the one before it.

A later question's pronoun is written as the first question's subject, a noun phrase: never the noun
with the verb after it ("How long do heat pumps last and how much do they cost?" gave "How much do
heat pumps last cost"). Two lists, one of what is asked ("pros and cons") and one of what it is
asked of ("heat pumps and gas boilers"), give one sub-question per thing asked of, the first list
whole ("What are the pros and cons of heat pumps"); the question was cut in three pieces ("What are
the pros", "cons of heat pumps", "gas boilers"). A corpus sentence that says nothing alone ("They cost
more.") is quoted joined to the sentence before it only when that one names what the question asks
about; it was joined to any ("Gas boilers burn natural gas … They cost more." under heat pumps)."""

from __future__ import annotations

import pytest

from engine.offline import passages
from engine.offline_text import plan_topics
from tests.engine.test_offline_fidelity import offline_run


@pytest.mark.parametrize(("question", "language", "expected"), [
    # a possessive is no plural noun: "React's" is not the subject, "React's useEffect" is
    ("How does React's useEffect work and when does it run?", "en",
     ["How does React's useEffect work", "When does React's useEffect run"]),
    ("How does Git’s rebase work and when should I use it?", "en",
     ["How does Git’s rebase work", "When should I use Git’s rebase"]),
    ("How does the body's immune system work and what weakens it?", "en",
     ["How does the body's immune system work", "What weakens the body's immune system"]),
    # "it" after a plural subject stands for what the subject does, not for the things
    ("Why do cats purr and what does it mean?", "en", ["Why do cats purr", "What does cats purr mean"]),
    ("Why do dogs bark and how can I stop it?", "en", ["Why do dogs bark", "How can I stop dogs bark"]),
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
    ("Hoe lang gaan warmtepompen mee en wat kosten ze?", "nl", ["Hoe lang gaan warmtepompen mee", "Wat kosten warmtepompen"]),
    ("Wat kosten warmtepompen en hoe lang gaan ze mee?", "nl", ["Wat kosten warmtepompen", "Hoe lang gaan warmtepompen mee"]),
    ("Hur länge håller värmepumpar och vad kostar de?", "sv", ["Hur länge håller värmepumpar", "Vad kostar värmepumpar"]),
    # kept: a subject before an asked adjective, or the verb before the subject
    ("How loud are heat pumps and what do they cost?", "en", ["How loud are heat pumps", "What do heat pumps cost"]),
    ("What does asyncio do and how does it compare to threads?", "en",
     ["What does asyncio do", "How does asyncio compare to threads"]),
    ("Combien de temps durent les pompes à chaleur et combien coûtent-elles ?", "fr",
     ["Combien de temps durent les pompes à chaleur", "Combien les pompes à chaleur coûtent-elles"]),
])
def test_a_later_pronoun_stands_for_the_first_subject_without_its_verb(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "language", "expected"), [
    ("What are the pros and cons of heat pumps and gas boilers?", "en",
     ["What are the pros and cons of heat pumps", "What are the pros and cons of gas boilers"]),
    ("What are the benefits and risks of nuclear power and wind power?", "en",
     ["What are the benefits and risks of nuclear power", "What are the benefits and risks of wind power"]),
    ("What are the advantages and the disadvantages of heat pumps, gas boilers and oil heaters?", "en",
     ["What are the advantages and the disadvantages of heat pumps",
      "What are the advantages and the disadvantages of gas boilers",
      "What are the advantages and the disadvantages of oil heaters"]),
    ("What are the costs, risks and benefits of heat pumps and gas boilers?", "en",
     ["What are the costs, risks and benefits of heat pumps", "What are the costs, risks and benefits of gas boilers"]),
    ("Pros and cons of heat pumps and solar panels", "en", ["Pros and cons of heat pumps", "Pros and cons of solar panels"]),
    ("Advantages and disadvantages of heat pumps and solar panels", "en",
     ["Advantages and disadvantages of heat pumps", "Advantages and disadvantages of solar panels"]),
    ("Vorteile und Nachteile von Wärmepumpen und Solaranlagen", "de",
     ["Vorteile und Nachteile von Wärmepumpen", "Vorteile und Nachteile von Solaranlagen"]),
    ("Was sind die Vor- und Nachteile von Wärmepumpen und Gasheizungen?", "de",
     ["Was sind die Vor- und Nachteile von Wärmepumpen", "Was sind die Vor- und Nachteile von Gasheizungen"]),
    ("Avantages et inconvénients des pompes à chaleur et des panneaux solaires", "fr",
     ["Avantages et inconvénients des pompes à chaleur", "Avantages et inconvénients des panneaux solaires"]),
    ("Quels sont les avantages et les inconvénients des pompes à chaleur et des chaudières à gaz ?", "fr",
     ["Quels sont les avantages et les inconvénients des pompes à chaleur",
      "Quels sont les avantages et les inconvénients des chaudières à gaz"]),
    ("What are the advantages and disadvantages of solar panels and batteries?", "en",
     ["What are the advantages and disadvantages of solar panels", "What are the advantages and disadvantages of batteries"]),
    ("¿Cuáles son las ventajas y desventajas de las bombas de calor y las calderas de gas?", "es",
     ["Cuáles son las ventajas y desventajas de las bombas de calor",
      "Cuáles son las ventajas y desventajas de las calderas de gas"]),
])
def test_two_lists_give_one_sub_question_per_thing_asked_of_with_the_first_list_whole(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "language", "expected"), [
    # one list: each thing asked is asked on its own, as before
    ("What are the pros and cons of heat pumps?", "en", ["What are the pros of heat pumps", "What are the cons of heat pumps"]),
    ("What are the costs, risks and benefits of solar panels?", "en",
     ["What are the costs of solar panels", "What are the risks of solar panels", "What are the benefits of solar panels"]),
    # the list after "of" in a later question of its own is that question's
    ("How do heat pumps work and what are the costs of installation and maintenance?", "en",
     ["How do heat pumps work", "What are the costs of installation", "What are the costs of maintenance"]),
])
def test_one_list_before_of_is_still_split(question, language, expected):
    assert plan_topics(question, 5, language) == expected


#: A paragraph whose sentences that say nothing alone follow a sentence on one subject or another.
HEATING = ("Gas boilers burn natural gas to heat water for the radiators of older houses. They cost more. "
           "Heat pumps cost about 12,000 euros to install in a detached house in 2026. That depends. "
           "Air-source heat pumps need an outdoor unit next to the house wall. This is true.\n")


@pytest.mark.parametrize(("question", "quoted"), [
    ("How much do heat pumps cost?",
     ["Gas boilers burn natural gas to heat water for the radiators of older houses.",
      "Heat pumps cost about 12,000 euros to install in a detached house in 2026. That depends.",
      "Air-source heat pumps need an outdoor unit next to the house wall. This is true."]),
    ("How much do gas boilers cost?",
     ["Gas boilers burn natural gas to heat water for the radiators of older houses. They cost more.",
      "Heat pumps cost about 12,000 euros to install in a detached house in 2026.",
      "Air-source heat pumps need an outdoor unit next to the house wall."]),
    ("What are the pros and cons of gas boilers?",
     ["Gas boilers burn natural gas to heat water for the radiators of older houses. They cost more.",
      "Heat pumps cost about 12,000 euros to install in a detached house in 2026.",
      "Air-source heat pumps need an outdoor unit next to the house wall."]),
])
def test_a_sentence_that_says_nothing_alone_joins_only_a_sentence_on_the_topic(question, quoted):
    """"They cost more." was joined to "Gas boilers burn natural gas …" and quoted for "How much do
    heat pumps cost?", as if heat pumps cost more: it is joined to the sentence before it only when
    that one names what the question asks about, else dropped."""
    assert passages(f"Heating\n\n{HEATING}", question) == quoted


def test_the_report_never_quotes_a_pronoun_sentence_after_a_sentence_on_another_subject(tmp_path):
    pages = {"heating.md": f"# Heating\n\n{HEATING}",
             "pumps.md": "# Heat pumps\n\nA heat pump for a detached house costs between 10,000 and 15,000 euros to install.\n"}
    report = offline_run(tmp_path, pages, "How much do heat pumps cost?", 1).report_md.read_text()
    assert "Heat pumps cost about 12,000 euros" in report, report
    assert "They cost more" not in report, report  # said of gas boilers, not of heat pumps
    assert "houses. They" not in report, report


@pytest.mark.parametrize(("question", "expected"), [
    ("What are the costs of solar panels and batteries?", ["What are the costs of solar panels", "What are the costs of batteries"]),
    ("What is the history of heat pumps and boilers?", ["What is the history of heat pumps", "What is the history of boilers"]),
    ("What are the costs of solar panels and batteries in Germany?",
     ["What are the costs of solar panels in Germany", "What are the costs of batteries in Germany"]),
    # kept: adjectives before one noun share it
    ("What are the needs of small and large companies?", ["What are the needs of small companies", "What are the needs of large companies"]),
])
def test_a_shorter_later_item_after_of_takes_no_word_of_the_first(question, expected):
    """"… of solar panels and batteries" gave "solar batteries": the first item was guessed as long as
    the later one."""
    assert plan_topics(question, 5, "en") == expected


@pytest.mark.parametrize(("question", "expected"), [
    ("What causes inflation and how do central banks fight it?", ["What causes inflation", "How do central banks fight inflation"]),
    ("What causes earthquakes and how do scientists predict them?",
     ["What causes earthquakes", "How do scientists predict earthquakes"]),
    ("What causes acne and how can teenagers treat it?", ["What causes acne", "How can teenagers treat acne"]),
    ("Who invented the telephone and when was it patented?", ["Who invented the telephone", "When was the telephone patented"]),
])
def test_a_pronoun_after_what_and_its_verb_stands_for_the_verbs_object(question, expected):
    """"What causes inflation and how do central banks fight it?" gave "How do central banks fight
    causes inflation": the verb right after "What" was read as the subject's first word."""
    assert plan_topics(question, 5, "en") == expected
