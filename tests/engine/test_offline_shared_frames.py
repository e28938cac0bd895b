"""Words around a list of two items that both items share: a plural noun after "1" or "one" is
singular in that item ("Is 1 or 2 cats enough?": "Is 1 cat enough"); French "est-ce que" is every
item's with the verb after the list ("Est-ce que 5 % ou 10 % suffit ?"); two subjects before a verb
share it in French, Italian, Spanish and Portuguese ("La ville ou l'État doit payer ?"); a German
infinitive at the end of the question is every item's ("Kann der Kernel Threads oder Prozesse
planen?"); an English object after a verb ("Does the library lend books or DVDs?") and a head noun
after two nouns used as adjectives ("Should the city or state government pay?") are each item's."""

from __future__ import annotations

import pytest

from engine.offline_lists import listed_topics


@pytest.mark.parametrize(
    ("brief", "language", "topics"),
    [
        ("Is 1 or 2 cats enough?", "en", ["Is 1 cat enough", "Is 2 cats enough"]),
        ("Is 2 or 1 cats enough?", "en", ["Is 2 cats enough", "Is 1 cat enough"]),
        ("Which is better, one or two monitors?", "en", ["one monitor", "two monitors"]),
        ("Are 1 or 2 batteries enough?", "en", ["Is 1 battery enough", "Are 2 batteries enough"]),
        ("Do 1 or 2 boxes fit?", "en", ["Does 1 box fit", "Do 2 boxes fit"]),
        (
            "Is one or two coats of paint enough?",
            "en",
            ["Is one coat of paint enough", "Is two coats of paint enough"],
        ),
        ("Is 1 or 2 mm enough?", "en", ["Is 1 mm enough", "Is 2 mm enough"]),
        ("Is 1 or 2 kubernetes enough?", "en", ["Is 1 kubernetes enough", "Is 2 kubernetes enough"]),
    ],
)
def test_one_takes_the_shared_noun_in_the_singular(brief: str, language: str, topics: list[str]) -> None:
    assert listed_topics(brief, language) == topics


@pytest.mark.parametrize(
    ("brief", "language", "topics"),
    [
        ("Est-ce que 5 % ou 10 % suffit ?", "fr", ["Est-ce que 5 % suffit", "Est-ce que 10 % suffit"]),
        (
            "Est-ce que le chat ou le chien dort ?",
            "fr",
            ["Est-ce que le chat dort", "Est-ce que le chien dort"],
        ),
        (
            "Est-ce que la ville ou l'État doit payer ?",
            "fr",
            ["Est-ce que la ville doit payer", "Est-ce que l'État doit payer"],
        ),
        (
            "Est-ce que les pompes à chaleur ou les chaudières sont plus efficaces ?",
            "fr",
            [
                "Est-ce que les pompes à chaleur sont plus efficaces",
                "Est-ce que les chaudières sont plus efficaces",
            ],
        ),
        (
            "Est-ce que Python ou Java est plus rapide ?",
            "fr",
            ["Est-ce que Python est plus rapide", "Est-ce que Java est plus rapide"],
        ),
    ],
)
def test_est_ce_que_and_the_verb_are_each_items(brief: str, language: str, topics: list[str]) -> None:
    assert listed_topics(brief, language) == topics


@pytest.mark.parametrize(
    ("brief", "language", "topics"),
    [
        ("La ville ou l'État doit payer ?", "fr", ["La ville doit payer", "L'État doit payer"]),
        ("Il comune o lo Stato deve pagare?", "it", ["Il comune deve pagare", "Lo Stato deve pagare"]),
        ("Le chat ou le chien peut dormir ?", "fr", ["Le chat peut dormir", "Le chien peut dormir"]),
        (
            "La ville de Paris ou l'État doit payer ?",
            "fr",
            ["La ville de Paris doit payer", "L'État doit payer"],
        ),
        (
            "La ville ou l'État est responsable ?",
            "fr",
            ["La ville est responsable", "L'État est responsable"],
        ),
        (
            "El gobierno o la empresa es responsable?",
            "es",
            ["El gobierno es responsable", "La empresa es responsable"],
        ),
        ("Il treno o l'aereo è più veloce?", "it", ["Il treno è più veloce", "L'aereo è più veloce"]),
        ("¿La ciudad o el estado debe pagar?", "es", ["La ciudad debe pagar", "El estado debe pagar"]),
        ("A cidade ou o estado deve pagar?", "pt", ["A cidade deve pagar", "O estado deve pagar"]),
    ],
)
def test_two_subjects_share_the_verb_after_them(brief: str, language: str, topics: list[str]) -> None:
    assert listed_topics(brief, language) == topics


@pytest.mark.parametrize(
    ("brief", "language", "topics"),
    [
        (
            "Kann der Kernel Threads oder Prozesse planen?",
            "de",
            ["Kann der Kernel Threads planen", "Kann der Kernel Prozesse planen"],
        ),
        (
            "Kann der Kernel Threads und Prozesse planen?",
            "de",
            ["Kann der Kernel Threads planen", "Kann der Kernel Prozesse planen"],
        ),
        (
            "Kann der Kernel Threads und Prozesse gleichzeitig planen?",
            "de",
            ["Kann der Kernel Threads gleichzeitig planen", "Kann der Kernel Prozesse gleichzeitig planen"],
        ),
        (
            "Soll ich mit Gas oder einer Wärmepumpe heizen?",
            "de",
            ["Soll ich mit Gas heizen", "Soll ich mit einer Wärmepumpe heizen"],
        ),
        (
            "Kann der Kernel Threads oder einen Prozess planen?",
            "de",
            ["Kann der Kernel Threads planen", "Kann der Kernel einen Prozess planen"],
        ),
        (
            "Kann Python Dateien oder Ordner lesen?",
            "de",
            ["Kann Python Dateien lesen", "Kann Python Ordner lesen"],
        ),
        (
            "Soll die Stadt Schulen oder Straßen bauen?",
            "de",
            ["Soll die Stadt Schulen bauen", "Soll die Stadt Straßen bauen"],
        ),
    ],
)
def test_a_german_infinitive_at_the_end_is_each_items(brief: str, language: str, topics: list[str]) -> None:
    assert listed_topics(brief, language) == topics


@pytest.mark.parametrize(
    ("brief", "language", "topics"),
    [
        (
            "Does the library lend books or DVDs?",
            "en",
            ["Does the library lend books", "Does the library lend DVDs"],
        ),
        (
            "Should the city or state government pay?",
            "en",
            ["Should the city government pay", "Should the state government pay"],
        ),
        (
            "Should the federal or state government pay?",
            "en",
            ["Should the federal government pay", "Should the state government pay"],
        ),
        (
            "Is the city or county council responsible?",
            "en",
            ["Is the city council responsible", "Is the county council responsible"],
        ),
        ("Should the city or state pay?", "en", ["Should the city pay", "Should the state pay"]),
        (
            "Should the city or state help pay?",
            "en",
            ["Should the city help pay", "Should the state help pay"],
        ),
        (
            "Should a city or state agency decide?",
            "en",
            ["Should a city agency decide", "Should a state agency decide"],
        ),
        ("Is the city or state responsible?", "en", ["Is the city responsible", "Is the state responsible"]),
        ("Is the cat or dog food better?", "en", ["Is the cat food better", "Is the dog food better"]),
        (
            "Does Python support threads or GPUs?",
            "en",
            ["Does Python support threads", "Does Python support GPUs"],
        ),
    ],
)
def test_english_words_around_two_nouns_are_each_items(brief: str, language: str, topics: list[str]) -> None:
    assert listed_topics(brief, language) == topics
