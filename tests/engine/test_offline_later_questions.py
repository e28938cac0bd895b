"""A question asked after another, in the same sentence ("…, and how loud are they?") or in a
sentence of its own ("…? How loud are they?"), is a sub-question of its own, written as asked
without the "and" or "but" that joined it; so when nothing answers it, the report names it in one
line under the findings instead of letting it vanish inside the first question's heading."""

from __future__ import annotations

import pytest

from engine.offline_text import extractive_report, plan_topics

FIRST = "Which heat pumps are cheapest to run in Germany"


@pytest.mark.parametrize(("question", "language", "expected"), [
    (f"{FIRST}, and how loud are they?", "en", [FIRST, "how loud are they"]),
    (f"{FIRST}? How loud are they?", "en", [FIRST, "How loud are they"]),
    (f"{FIRST}? And how loud are they?", "en", [FIRST, "how loud are they"]),
    (f"{FIRST}, but how loud are they?", "en", [FIRST, "how loud are they"]),
    (f"{FIRST}, and also how loud are they?", "en", [FIRST, "how loud are they"]),
    (f"{FIRST} — and how loud are they?", "en", [FIRST, "how loud are they"]),
    (f"{FIRST}! Are they loud?", "en", [FIRST, "Are they loud"]),
    ("Welche Wärmepumpen sind in Deutschland am günstigsten? Und wie laut sind sie?", "de",
     ["Welche Wärmepumpen sind in Deutschland am günstigsten", "wie laut sind sie"]),
    ("Quelles pompes à chaleur coûtent le moins cher en Allemagne, et sont-elles bruyantes ?", "fr",
     ["Quelles pompes à chaleur coûtent le moins cher en Allemagne", "sont-elles bruyantes"]),
    ("¿Qué bombas de calor son las más baratas en Alemania? ¿Y cuánto ruido hacen?", "es",
     ["Qué bombas de calor son las más baratas en Alemania", "cuánto ruido hacen"]),
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
    assert "*Nothing more to quote was found on: How loud are they.*" in report, report
