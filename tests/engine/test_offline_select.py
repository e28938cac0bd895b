"""The offline model chooses sentences for a question: stemmed in the question's language, above a
relevance floor, and diverse (maximal marginal relevance)."""

from __future__ import annotations

import pytest

from engine.offline_select import choose, rank
from engine.offline_terms import terms

POOL = [
    "Reviewers rated the hotel's breakfast highly in every season.",
    "The hotel has four hundred rooms and a garden.",
    "Its rooftop bar opens at six in the evening.",
]


def test_an_inflected_word_matches_its_stem():
    assert choose(POOL, "hotel rating", 3) == [POOL[0]]
    assert terms("Ratings were rated", "en") == ["rate", "were", "rate"]


def test_the_stemmer_is_the_questions_language():
    assert terms("Leistungen der Wärmepumpen", "de") == ["leistung", "der", "warmepump"]
    german = ["Die Leistung einer Wärmepumpe sinkt bei Frost.", "Der Garten ist groß und grün im Sommer."]
    assert choose(german, "Leistungen von Wärmepumpen", 2, "de") == [german[0]]


def test_identifiers_are_split_into_their_words():
    assert "timeout" in terms("asyncio.TimeoutError is raised", "en")
    assert "timeout" in terms("wait_for(timeout_seconds)", "en")


def test_a_sentence_sharing_only_a_common_word_is_below_the_floor():
    pool = [
        "asyncio.timeout() cancels the current task when the deadline passes.",
        "The asyncio event loop can run servers that handle connections.",
        "asyncio queues are not thread safe.",
        "asyncio streams work with network connections.",
    ]
    chosen = choose(pool, "How does asyncio handle timeouts", 4)
    assert chosen == [pool[0]]


def test_nothing_is_chosen_when_no_sentence_is_about_the_question():
    pool = ["Return the number of items currently in the history.",
            "Time zones are named like America/New_York or Europe/Paris.",
            "The history file is read when the shell starts."]
    assert choose(pool, "the history of the bicycle in Europe", 5) == []


def test_a_near_repeat_gives_way_to_a_different_relevant_sentence():
    pool = [
        "Task.cancel() requests that the task be cancelled at its next await.",
        "Task.cancel() requests that the task be cancelled at the next await point.",
        "A cancelled task raises CancelledError inside the coroutine it wraps.",
    ]
    assert choose(pool, "cancel a task", 2) == [pool[0], pool[2]]


def test_the_floor_is_off_for_ranking_and_groups_are_capped():
    pool = ["Cats purr when content.", "Dogs bark at night.", "Dogs dig holes in gardens."]
    assert rank(pool, "dogs", 3) == [pool[1], pool[2], pool[0]]
    assert choose(pool, "dogs", 3, groups=["a", "b", "b"], per_group=1) == [pool[1]]


def test_a_two_word_question_needs_both_words():
    pool = ["asyncio.wait_for() raises TimeoutError when the timeout expires.",
            "Using asyncio.Queue to distribute workload between several tasks.",
            "The ssl_handshake_timeout is the time to wait for the TLS handshake.",
            "The ssl_shutdown_timeout is the time to wait for the TLS shutdown."]
    assert choose(pool, "How does asyncio handle timeouts", 4) == [pool[0]]


def test_threads_stem_at_once_without_mixing_their_words():
    import threading

    text = " ".join(["cancellations", "timeouts", "Wärmepumpen", "handshakes", "distributing"] * 2000)
    expected = terms(text, "en")
    results, threads = [], [threading.Thread(target=lambda: results.append(terms(text, "en"))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 4


def test_a_sentence_leaning_on_the_one_before_is_quoted_only_with_it():
    from engine.offline import readable

    text = [
        "asyncio.timeout() returns an asynchronous context manager that limits the time spent waiting.",
        "Similar to asyncio.timeout(), except when is the absolute time to stop waiting, or None.",
        "Below that, the event loop keeps running other callbacks while the task waits.",
        "A similar function exists for the wait_for() call and takes a timeout in seconds.",
    ]
    out = readable(text)
    assert out[0] == " ".join(text[:3])  # the two leaning sentences come with the one they lean on
    assert out[1:] == [text[3]]  # "A similar ..." names its own subject
    assert readable(text[1:3]) == []  # with nothing before them, neither is quoted


FIRST = "The Zephyr-9 is a compact wind turbine designed for rooftops in windy coastal towns."


@pytest.mark.parametrize("leaning", [
    "It was released in 2024 by Nordwind GmbH.",
    "They were released in 2024 by Nordwind GmbH in Bremen.",
    "This model was released in 2024 by Nordwind GmbH.",
    "However, these turbines were released in 2024 by Nordwind GmbH.",
    "Similar designs were released in 2024 by Nordwind GmbH.",
])
@pytest.mark.parametrize("blank", ["\n\n", "\n  \n", "\n\n\n", "\n \n\n", "\n\t\n"])
def test_a_sentence_leaning_on_the_one_before_is_not_joined_to_it_across_a_paragraph_break(leaning, blank):
    """A pronoun sentence after a blank line was quoted with the last sentence of the paragraph
    before it, as if one passage; the paragraph before may be about something else."""
    from engine.offline import passages

    out = passages(f"{FIRST}{blank}{leaning}\n\nIts blades are made of recycled carbon fibre and turn slowly.",
                   "Who released the Zephyr-9?")
    assert FIRST in out and not any(leaning in s for s in out), out
    assert passages(f"{FIRST} {leaning}", "Who released the Zephyr-9?") == [f"{FIRST} {leaning}"]
    assert passages(f"{FIRST}\n{leaning}", "Who released the Zephyr-9?") == [f"{FIRST} {leaning}"]  # one line break: one paragraph


def test_a_leaning_sentence_is_joined_to_the_sentence_before_it_in_its_own_paragraph():
    from engine.offline import passages

    second = "The Nordwind N-3 is a larger turbine for farms and small wind parks on the coast."
    out = passages(f"{FIRST}\n\n{second} It was released in 2024 by Nordwind GmbH.", "Nordwind turbines")
    assert out == [FIRST, f"{second} It was released in 2024 by Nordwind GmbH."]


SOLAR = ["Monocrystalline solar panels reach an efficiency of 22 % in 2026 tests.",
         "Solar panels on a south-facing roof in Munich produce about 1,000 kWh per kWp each year."]
BATTERY = "A home battery of 10 kWh raises the self-consumption of solar panels from 30 % to 70 %."


def test_a_sentence_is_chosen_alone_as_among_sentences_on_something_else():
    """A PDF's page found alone (a shared file is indexed page by page) and the same PDF whole (a corpus
    file) give the same choice: the battery sentence was left out alone, because a word of the
    question no candidate writes ("add") weighed more among fewer candidates."""
    question = "How much does a home battery add?"
    assert choose(SOLAR + [BATTERY], question, 8) == [BATTERY]
    assert choose([BATTERY], question, 8) == [BATTERY]
    assert choose([BATTERY, *SOLAR], question, 8, groups=["p2", "p1", "p1"], per_group=4) == [BATTERY]


def test_a_word_no_candidate_writes_still_keeps_out_sentences_on_the_subject_alone():
    """A word the question asks about that no candidate writes ("loud") still keeps out the sentences
    that name only what every candidate is about ("wind turbines")."""
    pool = ["Wind turbines on the coast stand about 150 m tall.",
            "Wind turbines turn slowly in light wind and stop in storms.",
            "Wind turbines are serviced twice a year by crews from the port."]
    assert choose(pool, "How loud are wind turbines?", 8) == []


#: German sentences on the running and buying costs of gas heating and heat pumps, one on neither.
HEATING = [
    "Eine neue Gasheizung kostet mit Einbau etwa 8.000 bis 12.000 Euro.",
    "Luftwärmepumpen kosten mit Einbau zwischen 25.000 und 35.000 Euro.",
    "Die Betriebskosten einer Wärmepumpe liegen bei rund 1.200 Euro im Jahr.",
    "Eine Wärmepumpe nutzt die Wärme der Umgebungsluft zum Heizen.",
    "Der Vergleich der Angebote lohnt sich immer.",
]


def test_a_compound_counts_as_the_words_it_is_made_of():
    # "Gasheizung" is "gas boiler": a sentence naming it and "kostet" names three of the question's five
    # words, as "A gas boiler costs" does of "How much does a gas boiler cost compared to a heat pump?"
    chosen = choose(HEATING, "Was kostet eine Gasheizung im Vergleich zu einer Wärmepumpe?", 5, "de")
    assert sorted(chosen) == sorted(HEATING[:3])


@pytest.mark.parametrize(("word", "language", "parts"), [
    ("Gasheizung", "de", ("gas", "heizung")),
    ("Gasheizungen", "de", ("gas", "heizungen")),
    ("Betriebskosten", "de", ("betrieb", "kosten")),
    ("Jahresarbeitszahl", "de", ("jahr", "arbeit", "zahl")),
    ("warmtepomp", "nl", ("warmte", "pomp")),
    ("värmepump", "sv", ("värme", "pump")),
    ("Kosten", "de", ("kosten",)),  # "kos" and "ten" are too short, too rare
    ("Nachteile", "de", ("nachteile",)),  # a particle and a word, not "Nacht" and "Eile"
    ("Einbau", "de", ("einbau",)),
    ("Vergleich", "de", ("vergleich",)),
    ("heatpump", "en", ("heatpump",)),  # English writes its compounds apart
])
def test_a_closed_compound_is_cut_into_the_words_its_language_writes(word, language, parts):
    from engine.word_forms import compound_parts

    assert compound_parts(word, language) == parts


def test_a_french_verb_in_the_plural_is_the_questions_verb():
    # three of the question's six words: "coûtent" is "coûte", which Snowball's French stemmer does not tell
    pool = ["Les pompes à chaleur coûtent entre 10 000 et 16 000 euros avec la pose.",
            "Une pompe à chaleur chauffe aussi l'eau de la maison."]
    assert choose(pool, "Combien coûte une pompe à chaleur par rapport à une chaudière à gaz ?", 2, "fr") == [pool[0]]


@pytest.mark.parametrize(("question", "language", "pool"), [
    ("How much does a heat pump cost compared to a gas boiler?", "en",
     ["Air-source heat pumps cost between 10,000 and 16,000 euros installed.", "A new gas boiler costs about 4,000 euros.",
      "Gas prices rise every winter."]),
    ("¿Cuánto cuesta una bomba de calor frente a una caldera de gas?", "es",
     ["Las bombas de calor cuestan entre 8.000 y 14.000 euros con la instalación.",
      "Una caldera de gas nueva cuesta unos 3.000 euros instalada.", "El precio del gas sube cada invierno."]),
    ("Quanto costa una pompa di calore rispetto a una caldaia a gas?", "it",
     ["Le pompe di calore costano tra 8.000 e 14.000 euro con l'installazione.",
      "Una caldaia a gas nuova costa circa 3.000 euro.", "Il prezzo del gas sale ogni inverno."]),
])
def test_a_word_that_only_compares_is_asked_of_no_sentence(question, language, pool):
    # no sentence on what one of the things costs writes "compared", "frente" or "rispetto"
    assert sorted(choose(pool, question, 3, language)) == sorted(pool[:2])


@pytest.mark.parametrize(("question", "language", "claim"), [
    ("¿Cuánto cuesta una bomba de calor frente a una caldera de gas?", "es",
     "Una bomba de calor cuesta más que una caldera de gas. [S000001]"),
    ("Quanto costa una pompa di calore rispetto a una caldaia a gas?", "it",
     "Una pompa di calore costa più di una caldaia a gas. [S000001]"),
    ("Combien coûte une pompe à chaleur par rapport à une chaudière à gaz ?", "fr",
     "Une pompe à chaleur coûte plus qu'une chaudière à gaz. [S000001]"),
])
def test_the_review_asks_no_claim_for_a_word_that_only_compares(question, language, claim):
    from engine.offline_review import unanswered

    assert unanswered(question, [claim], language) == []
