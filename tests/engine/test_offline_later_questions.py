"""A question asked after another, in the same sentence ("…, and how loud are they?") or in a
sentence of its own ("…? How loud are they?"), is a sub-question of its own, written as asked
without the "and" or "but" that joined it; so when nothing answers it, the report names it in one
line under the findings instead of letting it vanish inside the first question's heading."""

from __future__ import annotations

import pytest

from engine.offline_text import extractive_report, plan_topics

FIRST = "Which heat pumps are cheapest to run in Germany"


@pytest.mark.parametrize(("question", "language", "expected"), [
    (f"{FIRST}, and how loud are they?", "en", [FIRST, "How loud are heat pumps"]),
    (f"{FIRST}? How loud are they?", "en", [FIRST, "How loud are heat pumps"]),
    (f"{FIRST}? And how loud are they?", "en", [FIRST, "How loud are heat pumps"]),
    (f"{FIRST}, but how loud are they?", "en", [FIRST, "How loud are heat pumps"]),
    (f"{FIRST}, and also how loud are they?", "en", [FIRST, "How loud are heat pumps"]),
    (f"{FIRST} — and how loud are they?", "en", [FIRST, "How loud are heat pumps"]),
    (f"{FIRST}! Are they loud?", "en", [FIRST, "Are heat pumps loud"]),
    ("Welche Wärmepumpen sind in Deutschland am günstigsten? Und wie laut sind sie?", "de",
     ["Welche Wärmepumpen sind in Deutschland am günstigsten", "Wie laut sind Wärmepumpen"]),
    ("Quelles pompes à chaleur coûtent le moins cher en Allemagne, et sont-elles bruyantes ?", "fr",
     ["Quelles pompes à chaleur coûtent le moins cher en Allemagne", "Les pompes à chaleur sont-elles bruyantes"]),
    ("¿Qué bombas de calor son las más baratas en Alemania? ¿Y cuánto ruido hacen?", "es",
     ["Qué bombas de calor son las más baratas en Alemania", "Cuánto ruido hacen"]),
])
def test_a_later_question_is_a_sub_question_of_its_own(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize("question", [
    "What is a heat pump? Explain it in detail.",  # no question after the mark: one question
    "What does 1.5 mean? in the spec",
])
def test_a_sentence_that_asks_nothing_stays_with_the_question(question):
    assert plan_topics(question, 5)[0] == question


def test_the_later_question_with_nothing_to_quote_is_named_under_the_findings():
    topics = plan_topics(f"{FIRST}? How loud are they?", 5)
    findings = "\n\n".join([
        f"### {topics[0]}\n\n- Air-source heat pumps cost about 1,200 € per year to run in Germany in 2026. [S1a2b3c]",
        f"### {topics[1]}\n\nNo passage of the 2 sources found answers this.",
    ])
    report = extractive_report(brief=f"{FIRST}? How loud are they?", findings=findings, language="en",
                               notice="offline", sources_found=2)
    assert "*Nothing more to quote was found on: How loud are heat pumps.*" in report, report


@pytest.mark.parametrize(("question", "language", "expected"), [
    ("Which heat pumps are cheapest to run in Germany in 2026? How loud are they?", "en",
     ["Which heat pumps are cheapest to run in Germany in 2026", "How loud are heat pumps"]),
    ("How efficient is a heat pump and what does it cost?", "en", ["How efficient is a heat pump", "What does a heat pump cost"]),
    ("What are heat pumps, and how do you install them?", "en", ["What are heat pumps", "How do you install heat pumps"]),
    ("What is asyncio and how does it compare to threads?", "en", ["What is asyncio", "How does asyncio compare to threads"]),
    ("Wie laut sind Wärmepumpen und was kosten sie?", "de", ["Wie laut sind Wärmepumpen", "Was kosten Wärmepumpen"]),
    ("Wie laut sind moderne Wärmepumpen? Was kosten sie?", "de",
     ["Wie laut sind moderne Wärmepumpen", "Was kosten moderne Wärmepumpen"]),
    ("Was kostet eine Wärmepumpe und wie lange hält sie?", "de", ["Was kostet eine Wärmepumpe", "Wie lange hält eine Wärmepumpe"]),
    ("Was ist asyncio und wie nutzt man es?", "de", ["Was ist asyncio", "Wie nutzt man asyncio"]),
    ("Wie funktionieren Wärmepumpen und was spricht gegen sie?", "de",
     ["Wie funktionieren Wärmepumpen", "Was spricht gegen Wärmepumpen"]),
    ("Quelles pompes à chaleur coûtent le moins cher en Allemagne, et sont-elles bruyantes ?", "fr",
     ["Quelles pompes à chaleur coûtent le moins cher en Allemagne", "Les pompes à chaleur sont-elles bruyantes"]),
    ("Combien coûtent les pompes à chaleur et sont-elles bruyantes ?", "fr",
     ["Combien coûtent les pompes à chaleur", "Les pompes à chaleur sont-elles bruyantes"]),
    ("Comment fonctionne un onduleur et coûte-t-il cher ?", "fr", ["Comment fonctionne un onduleur", "Un onduleur coûte-t-il cher"]),
    ("Comment fonctionne une pompe à chaleur et à quoi sert-elle ?", "fr",
     ["Comment fonctionne une pompe à chaleur", "À quoi une pompe à chaleur sert-elle"]),
    ("Comment fonctionne une pompe à chaleur et est-ce qu'elle est rentable ?", "fr",
     ["Comment fonctionne une pompe à chaleur", "Est-ce qu'une pompe à chaleur est rentable"]),
    ("Qu'est-ce qu'une pompe à chaleur et comment fonctionne-t-elle ?", "fr",
     ["Qu'est-ce qu'une pompe à chaleur", "Comment une pompe à chaleur fonctionne-t-elle"]),
    ("Quanto costano le pompe di calore? Sono esse rumorose?", "it",
     ["Quanto costano le pompe di calore", "Sono le pompe di calore rumorose"]),
    ("Como funciona uma bomba de calor e quanto custa ela?", "pt",
     ["Como funciona uma bomba de calor", "Quanto custa uma bomba de calor"]),
    ("Hoe werkt een warmtepomp, en waarvoor dient hij?", "nl", ["Hoe werkt een warmtepomp", "Waarvoor dient een warmtepomp"]),
    ("Hur fungerar en värmepump och när lönar den sig?", "sv", ["Hur fungerar en värmepump", "När lönar en värmepump sig"]),
])
def test_a_later_question_s_pronoun_is_the_first_question_s_subject(question, language, expected):
    """"How loud are they" named nothing as a heading of its own, nor did "was kosten sie": the
    pronoun is the first question's subject, in its words, and the heading opens with a capital."""
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "language", "expected"), [
    ("Wie effizient ist eine Wärmepumpe im Altbau und welche Förderung gibt es?", "de",
     ["Wie effizient ist eine Wärmepumpe im Altbau", "Welche Förderung gibt es"]),  # "es" of "gibt es" is no thing
    ("Hur fungerar värmepumpar och vilka bidrag finns det?", "sv", ["Hur fungerar värmepumpar", "Vilka bidrag finns det"]),
    ("Wie funktionieren Wärmepumpen und was empfehlen Sie?", "de",
     ["Wie funktionieren Wärmepumpen", "Was empfehlen Sie"]),  # "Sie" is the asker
    ("How do Kafka and RabbitMQ work, and how do they scale?", "en",
     ["How does Kafka work", "How does RabbitMQ work", "How do they scale"]),  # "they" are both: no one subject
])
def test_a_pronoun_that_stands_for_no_one_subject_is_left_as_written(question, language, expected):
    assert plan_topics(question, 5, language) == expected
