"""Three kinds of choice the offline model split wrongly.

A choice that names the items' kind ("Which cloud provider is cheapest for GPU training: AWS, GCP or
Azure?") is asked of each item as "Which is cheapest, …" is, its kind a noun phrase of a few words
and its degree a comparative or a superlative, after a colon or a comma; this gave "Which cloud
provider is cheapest for GPU training: AWS".
A name typed in small letters ("postgres", "emacs", "jenkins") is no plural: a word in "-s" is an
English plural when English writes its singular (wordfreq), so "Which is faster, postgres or mysql?"
asks "Is postgres faster", where "heat pumps" and "boilers" stay plural.
A choice between two verb phrases after a modal and its subject ("Should the city build a new stadium
or renovate the old one?") gives each its modal and subject: this gave "renovate the old one"."""

from __future__ import annotations

import pytest

from engine.offline_text import plan_topics


@pytest.mark.parametrize(
    ("brief", "language", "topics"),
    [
        (
            "Which cloud provider is cheapest for GPU training: AWS, GCP or Azure?",
            "en",
            [
                "Is AWS cheapest for GPU training",
                "Is GCP cheapest for GPU training",
                "Is Azure cheapest for GPU training",
            ],
        ),
        (
            "Which cloud provider is cheapest for GPU training, AWS, GCP or Azure?",
            "en",
            [
                "Is AWS cheapest for GPU training",
                "Is GCP cheapest for GPU training",
                "Is Azure cheapest for GPU training",
            ],
        ),
        (
            "Which database is fastest for writes: Postgres, MySQL or SQLite?",
            "en",
            ["Is Postgres fastest for writes", "Is MySQL fastest for writes", "Is SQLite fastest for writes"],
        ),
        (
            "Which language is easiest to learn: Python, Go or Rust?",
            "en",
            ["Is Python easiest to learn", "Is Go easiest to learn", "Is Rust easiest to learn"],
        ),
        ("Which provider is cheapest: AWS or Hetzner?", "en", ["Is AWS cheapest", "Is Hetzner cheapest"]),
        (
            "Which city is most expensive: London, Paris or Zurich?",
            "en",
            ["Is London most expensive", "Is Paris most expensive", "Is Zurich most expensive"],
        ),
        (
            "Which heating system is cheaper to run: a heat pump or a gas boiler?",
            "en",
            ["Is a heat pump cheaper to run", "Is a gas boiler cheaper to run"],
        ),
        (
            "Welcher Anbieter ist am günstigsten: Telekom, Vodafone oder O2?",
            "de",
            ["Ist Telekom am günstigsten", "Ist Vodafone am günstigsten", "Ist O2 am günstigsten"],
        ),
        (
            "Welcher Anbieter ist günstiger, Telekom oder Vodafone?",
            "de",
            ["Ist Telekom günstiger", "Ist Vodafone günstiger"],
        ),
        (
            "¿Qué proveedor es más barato: AWS, GCP o Azure?",
            "es",
            ["Es AWS más barato", "Es GCP más barato", "Es Azure más barato"],
        ),
        ("¿Qué proveedor es más barato, AWS o Azure?", "es", ["Es AWS más barato", "Es Azure más barato"]),
    ],
)
def test_a_choice_naming_the_items_kind_is_asked_of_each(brief, language, topics):
    assert plan_topics(brief, 5, language) == topics


@pytest.mark.parametrize(
    ("brief", "topics"),
    [
        ("Which heat pumps are cheapest to run?", ["Which heat pumps are cheapest to run?"]),
        ("Which cloud providers offer GPUs, AWS or Hetzner?", None),
    ],
)
def test_a_which_question_with_a_noun_that_chooses_nothing_is_as_it_was(brief, topics):
    got = plan_topics(brief, 5, "en")
    if topics is not None:
        assert got == topics
    assert not any(t.startswith(("Is ", "Are ")) for t in got), got


@pytest.mark.parametrize(
    ("brief", "language", "topics"),
    [
        ("Which is faster, postgres or mysql?", "en", ["Is postgres faster", "Is mysql faster"]),
        (
            "Which is cheaper, postgres, mysql or sqlite?",
            "en",
            ["Is postgres cheaper", "Is mysql cheaper", "Is sqlite cheaper"],
        ),
        ("Which is faster, vim or emacs?", "en", ["Is vim faster", "Is emacs faster"]),
        ("Which is older, rome or athens?", "en", ["Is rome older", "Is athens older"]),
        (
            "Which is more reliable, jenkins or gitlab?",
            "en",
            ["Is jenkins more reliable", "Is gitlab more reliable"],
        ),
        (
            "Which is faster for caching, redis or memcached?",
            "en",
            ["Is redis faster for caching", "Is memcached faster for caching"],
        ),
        ("Which is healthier, apples or bananas?", "en", ["Are apples healthier", "Are bananas healthier"]),
        (
            "Which are cheaper, heat pumps or boilers?",
            "en",
            ["Are heat pumps cheaper", "Are boilers cheaper"],
        ),
        ("Which is riskier, stocks or bonds?", "en", ["Are stocks riskier", "Are bonds riskier"]),
        (
            "Which is cheaper to run, gas or a heat pump?",
            "en",
            ["Is gas cheaper to run", "Is a heat pump cheaper to run"],
        ),
        (
            "Which lasts longer, capacitors or batteries?",
            "en",
            ["Do capacitors last longer", "Do batteries last longer"],
        ),
        ("Which is faster, GPUs or CPUs?", "en", ["Are GPUs faster", "Are CPUs faster"]),
    ],
)
def test_a_name_in_small_letters_is_no_plural(brief, language, topics):
    assert plan_topics(brief, 5, language) == topics


@pytest.mark.parametrize(
    ("brief", "language", "topics"),
    [
        (
            "Should the city build a new stadium or renovate the old one?",
            "en",
            ["Should the city build a new stadium", "Should the city renovate the old one"],
        ),
        (
            "Should I hire a designer or do it myself?",
            "en",
            ["Should I hire a designer", "Should I do it myself"],
        ),
        (
            "Should we migrate to Kubernetes or keep our VMs?",
            "en",
            ["Should we migrate to Kubernetes", "Should we keep our VMs"],
        ),
        (
            "Could the council close the road or add a bike lane?",
            "en",
            ["Could the council close the road", "Could the council add a bike lane"],
        ),
        (
            "Should my team adopt TypeScript or stay with JavaScript?",
            "en",
            ["Should my team adopt TypeScript", "Should my team stay with JavaScript"],
        ),
        (
            "Should the company raise prices or cut costs?",
            "en",
            ["Should the company raise prices", "Should the company cut costs"],
        ),
        (
            "¿Debería la ciudad construir un estadio nuevo o renovar el viejo?",
            "es",
            ["Debería la ciudad construir un estadio nuevo", "Debería la ciudad renovar el viejo"],
        ),
        (
            "Sollte ich einen Designer einstellen oder es selbst machen?",
            "de",
            ["Sollte ich einen Designer einstellen", "Sollte ich es selbst machen"],
        ),
    ],
)
def test_a_choice_of_verb_phrases_after_a_modal_and_its_subject_keeps_both(brief, language, topics):
    assert plan_topics(brief, 5, language) == topics
