"""Items whose words a list shares or does not: a later Romance item that is a noun of its own keeps
its own words ("les panneaux solaires et les batteries": "les batteries"), only an adjective takes the
first item's noun ("la energía solar, la eólica": "la energía eólica"); German nouns are capitalised,
so two capitalised German words joined by "und" are two items, not a name ("Was kosten Solarmodule
und Batterien?"); adjectives listed before one noun share it ("small and large companies"); and two
verb phrases of a subject of several words are two questions of that subject, without a list frame
("How does the event loop cancel tasks and handle timeouts?")."""

from __future__ import annotations

import pytest

from engine.offline_lists import listed_frames, listed_topics


@pytest.mark.parametrize(("brief", "language", "topics"), [
    ("Comment les panneaux solaires et les batteries interagissent-ils ?", "fr",
     ["les panneaux solaires", "les batteries"]),
    ("Combien coûtent les panneaux solaires et les batteries ?", "fr",
     ["Combien coûtent les panneaux solaires", "Combien coûtent les batteries"]),
    ("¿Cuánto cuestan los paneles solares y los inversores?", "es",
     ["Cuánto cuestan los paneles solares", "Cuánto cuestan los inversores"]),
    ("Quanto costano i pannelli solari e i cavi?", "it",
     ["Quanto costano i pannelli solari", "Quanto costano i cavi"]),
    ("Quanto custam os painéis solares e os cabos?", "pt",
     ["Quanto custam os painéis solares", "Quanto custam os cabos"]),
    # an adjective takes the first item's noun
    ("¿Qué ventajas tienen la energía solar, la eólica y la hidráulica?", "es",
     ["Qué ventajas tienen la energía solar", "Qué ventajas tienen la energía eólica",
      "Qué ventajas tienen la energía hidráulica"]),
    ("Combien coûtent les voitures électriques et les hybrides ?", "fr",
     ["Combien coûtent les voitures électriques", "Combien coûtent les voitures hybrides"]),
])
def test_a_later_noun_keeps_its_own_words(brief: str, language: str, topics: list[str]) -> None:
    assert [t.lstrip("¿") for t in listed_topics(brief, language)] == topics


@pytest.mark.parametrize(("brief", "topics"), [
    ("Was kosten Solarmodule und Batterien?", ["Was kosten Solarmodule", "Was kosten Batterien"]),
    ("Wie laut sind Wärmepumpen und Klimaanlagen?", ["Wie laut sind Wärmepumpen", "Wie laut sind Klimaanlagen"]),
    ("Wo kauft man Fahrräder und Roller?", ["Wo kauft man Fahrräder", "Wo kauft man Roller"]),
])
def test_german_nouns_are_no_name(brief: str, topics: list[str]) -> None:
    assert listed_topics(brief, "de") == topics


def test_an_english_name_pair_stays_whole() -> None:
    assert listed_topics("What is the history of Procter and Gamble?") == ["What is the history of Procter and Gamble"]


@pytest.mark.parametrize(("brief", "topics"), [
    ("How do small and large companies use heat pumps?",
     ["How do small companies use heat pumps", "How do large companies use heat pumps"]),
    ("How do new and used cars differ in price?", ["How do new cars differ in price", "How do used cars differ in price"]),
    ("How do small, medium and large firms use AI?",
     ["How do small firms use AI", "How do medium firms use AI", "How do large firms use AI"]),
    ("How do public and private schools handle bullying?",
     ["How do public schools handle bullying", "How do private schools handle bullying"]),
    ("How do electric and gas heaters compare?", ["electric heaters", "gas heaters"]),
    # a noun first is an item of its own
    ("How do cats and guinea pigs eat?", ["How do cats eat", "How do guinea pigs eat"]),
    ("How do coffee and energy drinks affect sleep?",
     ["How does coffee affect sleep", "How do energy drinks affect sleep"]),
])
def test_adjectives_share_the_noun_after_them(brief: str, topics: list[str]) -> None:
    assert listed_topics(brief) == topics


@pytest.mark.parametrize(("brief", "language", "topics"), [
    ("Wie nutzen kleine und große Unternehmen Wärmepumpen?", "de",
     ["Wie nutzen kleine Unternehmen Wärmepumpen", "Wie nutzen große Unternehmen Wärmepumpen"]),
    ("Was kosten kleine und große Wärmepumpen?", "de", ["Was kosten kleine Wärmepumpen", "Was kosten große Wärmepumpen"]),
    ("Comment les petites et grandes entreprises utilisent-elles les pompes à chaleur ?", "fr",
     ["Comment les petites entreprises utilisent-elles les pompes à chaleur",
      "Comment les grandes entreprises utilisent-elles les pompes à chaleur"]),
    ("Combien coûtent les petites et grandes pompes à chaleur ?", "fr",
     ["Combien coûtent les petites pompes à chaleur", "Combien coûtent les grandes pompes à chaleur"]),
    ("¿Cómo usan las pequeñas y grandes empresas la energía solar?", "es",
     ["Cómo usan las pequeñas empresas la energía solar", "Cómo usan las grandes empresas la energía solar"]),
    ("Quanto costano le piccole e grandi auto?", "it", ["Quanto costano le piccole auto", "Quanto costano le grandi auto"]),
    ("Quanto custam os pequenos e grandes carros?", "pt", ["Quanto custam os pequenos carros", "Quanto custam os grandes carros"]),
])
def test_adjectives_share_their_noun_in_other_languages(brief: str, language: str, topics: list[str]) -> None:
    assert [t.lstrip("¿") for t in listed_topics(brief, language)] == topics


@pytest.mark.parametrize(("brief", "subject"), [
    ("How does the event loop cancel tasks and handle timeouts?", "How does the event loop"),
    ("How does the garbage collector free memory and handle cycles?", "How does the garbage collector"),
    ("How does asyncio cancel tasks and handle timeouts?", "How does asyncio"),
    ("How does the event loop create tasks and handle timeouts?", "How does the event loop"),
])
def test_verb_phrases_of_a_longer_subject_are_questions(brief: str, subject: str) -> None:
    verbs = brief.removeprefix(subject + " ").rstrip("?").split(" and ")
    assert listed_topics(brief) == [f"{subject} {v}" for v in verbs]
    assert set(listed_frames(brief).values()) == {""}


def test_a_shared_verb_after_a_longer_subject_is_a_frame() -> None:
    assert listed_frames("How does the event loop handle tasks and timeouts?") == {
        "How does the event loop handle tasks": "How does the event loop handle …",
        "How does the event loop handle timeouts": "How does the event loop handle …",
    }
    assert set(listed_frames("How does the event loop schedule small tasks and large timeouts?").values()) == {
        "How does the event loop schedule …"}
