"""What the sub-questions of a listed question share: an item alone when the question only asks how
the items relate, whatever words the first item opens with ("How do solar panels and batteries work
together?": "batteries", not "solar batteries"); the later item is as long as it is written ("What do
solar panels and home batteries cost?", "What are wind turbine blades and solar panels made of?");
an English auxiliary agrees with the item's noun, which may be written after the list ("How
efficient are ground-source and air-source heat pumps?": "are"); and two verb phrases of one subject
are two questions of that subject, not a list ("How does asyncio cancel tasks and handle timeouts?")."""

from __future__ import annotations

import pytest

from engine.offline_lists import listed_frames, listed_topics


@pytest.mark.parametrize(("brief", "topics"), [
    ("How do solar panels and batteries work together?", ["solar panels", "batteries"]),
    ("How do solar panels and batteries interact?", ["solar panels", "batteries"]),
    ("How do home solar panels and batteries work together?", ["home solar panels", "batteries"]),
    ("How do Kafka streams and RabbitMQ work together?", ["Kafka streams", "RabbitMQ"]),
    ("How are solar panels and batteries related?", ["solar panels", "batteries"]),
    ("What is the difference between solar panels and batteries?", ["solar panels", "batteries"]),
    ("How do dataclasses, enums and typing protocols work together?", ["dataclasses", "enums", "typing protocols"]),
])
def test_items_that_only_relate_stand_alone(brief: str, topics: list[str]) -> None:
    assert listed_topics(brief) == topics
    assert set(listed_frames(brief).values()) == {""}


@pytest.mark.parametrize(("brief", "language", "topics"), [
    ("How do Python and Java work together?", "en", ["Python", "Java"]),
    ("How do Python and Java interact with each other?", "en", ["Python", "Java"]),
    ("Wie hängen Solarmodule und Batterien zusammen?", "de", ["Solarmodule", "Batterien"]),
])
def test_two_capitalised_items_that_relate_are_no_name(brief: str, language: str, topics: list[str]) -> None:
    assert listed_topics(brief, language) == topics


def test_a_name_of_two_words_stays_whole() -> None:
    assert listed_topics("Who wrote Romeo and Juliet?") == ["Who wrote Romeo and Juliet"]


@pytest.mark.parametrize(("brief", "topics"), [
    ("What do solar panels and home batteries cost?", ["What do solar panels cost", "What do home batteries cost"]),
    # a frame that asks something of each item shares the words before the first one
    ("What are wind turbine blades and towers made of?",
     ["What are wind turbine blades made of", "What are wind turbine towers made of"]),
    ("What are wind turbine blades and solar panels made of?",
     ["What are wind turbine blades made of", "What are solar panels made of"]),
    ("How do solar panels and wind turbines work?", ["How do solar panels work", "How do wind turbines work"]),
    # the item is the object after the subject's verb: the words before it are shared
    ("How does asyncio cancel tasks and timeouts?", ["How does asyncio cancel tasks", "How does asyncio cancel timeouts"]),
])
def test_first_item_keeps_its_own_words(brief: str, topics: list[str]) -> None:
    assert listed_topics(brief) == topics


@pytest.mark.parametrize(("brief", "topics"), [
    ("How efficient are ground-source and air-source heat pumps?",
     ["How efficient are ground-source heat pumps", "How efficient are air-source heat pumps"]),
    ("How efficient are ground-source and air-source heat pumps in winter?",
     ["How efficient are ground-source heat pumps in winter", "How efficient are air-source heat pumps in winter"]),
    ("What do solar and wind farms cost?", ["What do solar farms cost", "What do wind farms cost"]),
    ("How loud were Daikin, Vaillant and Bosch heat pumps in tests?",
     ["How loud were Daikin heat pumps in tests", "How loud were Vaillant heat pumps in tests",
      "How loud were Bosch heat pumps in tests"]),
    # the item alone is the noun: the verb agrees with it
    ("Are Kafka and NATS fast?", ["Is Kafka fast", "Is NATS fast"]),
    ("How do Kafka and RabbitMQ handle requests?", ["How does Kafka handle requests", "How does RabbitMQ handle requests"]),
    ("What do coffee and tea cost?", ["What does coffee cost", "What does tea cost"]),
    ("How do coffee and tea cause headaches?", ["How does coffee cause headaches", "How does tea cause headaches"]),
])
def test_verb_agrees_with_the_noun_after_the_list(brief: str, topics: list[str]) -> None:
    assert listed_topics(brief) == topics


def test_frame_agrees_too() -> None:
    assert listed_frames("How efficient are ground-source and air-source heat pumps?") == {
        "How efficient are ground-source heat pumps": "How efficient are … heat pumps",
        "How efficient are air-source heat pumps": "How efficient are … heat pumps",
    }


@pytest.mark.parametrize(("brief", "topics"), [
    ("How does asyncio cancel tasks and handle timeouts?",
     ["How does asyncio cancel tasks", "How does asyncio handle timeouts"]),
    ("How does Kafka store messages and replicate partitions?",
     ["How does Kafka store messages", "How does Kafka replicate partitions"]),
    ("How do I read files and write logs?", ["How do I read files", "How do I write logs"]),
    ("How can I cancel tasks and handle timeouts?", ["How can I cancel tasks", "How can I handle timeouts"]),
    ("How does asyncio cancel tasks, handle timeouts and close loops?",
     ["How does asyncio cancel tasks", "How does asyncio handle timeouts", "How does asyncio close loops"]),
])
def test_verb_phrases_of_one_subject_are_questions_of_their_own(brief: str, topics: list[str]) -> None:
    assert listed_topics(brief) == topics
    assert set(listed_frames(brief).values()) == {""}  # clauses of their own: no list frame


@pytest.mark.parametrize(("brief", "topics"), [
    ("Should the city or the state pay for it?", ["Should the city pay for it", "Should the state pay for it"]),
    ("Does the landlord or the tenant fix the boiler?",
     ["Does the landlord fix the boiler", "Does the tenant fix the boiler"]),
    ("Can a process or a thread hold a lock?", ["Can a process hold a lock", "Can a thread hold a lock"]),
    ("Would the tenant or the owner be liable?", ["Would the tenant be liable", "Would the owner be liable"]),
    ("Is the kernel or the compiler responsible for alignment?",
     ["Is the kernel responsible for alignment", "Is the compiler responsible for alignment"]),
    ("Does the city or the county or the state collect property taxes?",
     ["Does the city collect property taxes", "Does the county collect property taxes",
      "Does the state collect property taxes"]),
])
def test_subjects_after_an_auxiliary_share_the_verb_after_them(brief: str, topics: list[str]) -> None:
    """Listed subjects right after an auxiliary ("Should | the city or the state | pay for it") have no verb
    of their own: the words after the last one are every subject's, not the last one's own phrase."""
    assert listed_topics(brief) == topics


@pytest.mark.parametrize(("brief", "topics"), [
    ("Can the kernel schedule threads or processes?",
     ["Can the kernel schedule threads", "Can the kernel schedule processes"]),
    ("Does the compiler inline functions or macros?",
     ["Does the compiler inline functions", "Does the compiler inline macros"]),
    ("Should the state fund schools or hospitals?", ["Should the state fund schools", "Should the state fund hospitals"]),
    ("Can the kernel schedule threads, processes or tasks?",
     ["Can the kernel schedule threads", "Can the kernel schedule processes", "Can the kernel schedule tasks"]),
    ("Should the city use heat pumps or batteries?", ["Should the city use heat pumps", "Should the city use batteries"]),
])
def test_the_verb_after_a_subject_is_every_objects(brief: str, topics: list[str]) -> None:
    """After an auxiliary and its subject ("Can the kernel"), the next word is the verb every listed object
    takes ("schedule"), not the first object's own word as "heat" of "heat pumps" is."""
    assert listed_topics(brief) == topics


@pytest.mark.parametrize(("brief", "topics"), [
    ("Should I use Redis or Memcached?", ["Should I use Redis", "Should I use Memcached"]),
    ("Should we cache with Redis or Memcached?", ["Should we cache with Redis", "Should we cache with Memcached"]),
])
def test_a_name_in_ed_is_no_participle(brief: str, topics: list[str]) -> None:
    """"Memcached" ends like "compressed", but a capitalised name is no participle: it lists with "Redis"."""
    assert listed_topics(brief) == topics
