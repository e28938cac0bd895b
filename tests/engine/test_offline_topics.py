"""The offline planner's sub-questions read as phrases in the question's language, composed with the
subject as the user wrote it; never keyword lists."""

from __future__ import annotations

import pytest

from engine.offline_text import plan_topics


@pytest.mark.parametrize(("question", "language", "expected"), [
    ("the history of the bicycle in Europe", "en",
     ["the history of the bicycle in Europe", "History of the bicycle in Europe — limitations and problems",
      "History of the bicycle in Europe — examples"]),
    ("How does garbage collection work in Python?", "en",
     ["How does garbage collection work in Python?", "Garbage collection in Python — limitations and problems",
      "Garbage collection in Python — examples"]),
    ("solid-state batteries for electric cars", "en",
     ["solid-state batteries for electric cars", "Solid-state batteries for electric cars — how it works",
      "Solid-state batteries for electric cars — limitations and problems"]),
    ("Wie funktioniert die Garbage Collection in Python?", "de",
     ["Wie funktioniert die Garbage Collection in Python?", "Garbage Collection in Python — Grenzen und Probleme",
      "Garbage Collection in Python — Beispiele"]),
    ("Die Geschichte des Fahrrads in Europa", "de",
     ["Die Geschichte des Fahrrads in Europa", "Geschichte des Fahrrads in Europa — Grenzen und Probleme",
      "Geschichte des Fahrrads in Europa — Beispiele"]),
    ("l'énergie solaire en France", "fr",
     ["l'énergie solaire en France", "L'énergie solaire en France — fonctionnement",
      "L'énergie solaire en France — limites et problèmes"]),
    ("¿Cómo funciona la energía geotérmica?", "es",
     ["¿Cómo funciona la energía geotérmica?", "Energía geotérmica — límites y problemas",
      "Energía geotérmica — ejemplos"]),
])
def test_a_single_subject_gets_readable_sub_questions(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "heading"), [
    # one verb asks how ("say"); a later one of those words is the subject's noun ("remote work")
    ("What do experts say about the future of remote work?", "Experts about the future of remote work"),
    ("What do studies say about the effects of shift work?", "Studies about the effects of shift work"),
    ("What does the research say about social media use?", "Social media use"),
])
def test_a_noun_that_reads_as_a_verb_that_asks_how_stays_in_the_heading(question, heading):
    facets = plan_topics(question, 5, "en")[1:]
    assert facets and all(f.startswith(heading + " — ") for f in facets), facets


def test_a_question_whose_rest_is_a_clause_is_its_own_one_topic():
    question = "how much power does the Zephyr turbine deliver at coastal sites?"
    assert plan_topics(question, 5) == [question]
    background = " — Background from the thread's discussion: Bob: pitch and files below; Alice: in writing?"
    assert plan_topics(question + background, 5) == [question]


def test_the_answer_to_the_clarifying_question_is_not_part_of_the_subject():
    topics = plan_topics("heat pumps — for homes in Germany", 5, "en")
    assert topics[0] == "heat pumps — for homes in Germany"
    assert topics[1:] == ["Heat pumps — how it works", "Heat pumps — limitations and problems"]


def test_a_list_still_gives_one_topic_per_item():
    assert plan_topics("Compare solar panels; wind turbines; heat pumps", 5) == [
        "Compare solar panels", "wind turbines", "heat pumps"]


@pytest.mark.parametrize(("question", "expected"), [
    ("What does the study say about the turbine efficiency, weight, formula and noise?",
     ["What does the study say about the turbine efficiency", "What does the study say about the turbine weight",
      "What does the study say about the turbine formula", "What does the study say about the turbine noise"]),
    ("What are the costs, risks and benefits of solar panels?",
     ["What are the costs of solar panels", "What are the risks of solar panels",
      "What are the benefits of solar panels"]),
    ("How does asyncio cancel tasks and handle timeouts?",
     ["How does asyncio cancel tasks", "How does asyncio handle timeouts"]),
    ("Was kosten Wärmepumpen, Gasheizungen und Pelletöfen?",
     ["Was kosten Wärmepumpen", "Was kosten Gasheizungen", "Was kosten Pelletöfen"]),
])
def test_a_list_of_nouns_in_a_question_gives_one_whole_question_per_noun(question, expected):
    assert plan_topics(question, 5) == expected


def test_an_audience_named_in_the_answer_is_no_topic_of_its_own():
    topics = plan_topics("asyncio — task cancellation in asyncio, for Python developers", 5, "en")
    assert topics[0] == "asyncio — task cancellation in asyncio, for Python developers"
    assert not any(t.startswith("for ") for t in topics), topics


def test_the_limit_is_kept():
    assert plan_topics("the history of the bicycle in Europe", 1) == ["the history of the bicycle in Europe"]


@pytest.mark.parametrize(("language", "said"), [
    ("en", "Nothing more to quote was found on: Heat pumps — limitations and problems; Heat pumps — examples."),
    ("de", "Zu diesen Teilfragen fand sich nichts weiter zu zitieren: Heat pumps — limitations and problems; "
           "Heat pumps — examples."),
])
def test_a_topic_with_nothing_of_its_own_to_quote_is_named_not_dropped(language, said):
    """The report's sections are the topics that found passages; the others are named in one line
    (italic: a note, not a claim needing a citation), so no researched topic vanishes without a word."""
    from engine.offline_text import extractive_report

    findings = ("### Heat pumps\n\n- Heat pumps move heat from outside air indoors. [S0a1b2c]\n\n"
                "### Heat pumps — limitations and problems\n\n(nothing)\n\n"
                "### Heat pumps — examples\n\n- Heat pumps move heat from outside air indoors. [S0a1b2c]\n")
    report = extractive_report(brief="Heat pumps", findings=findings, language=language, notice="offline",
                               sources_found=1)
    assert report.count("\n## ") == 1 and "[S0a1b2c]" in report, report
    assert f"*{said}*" in report, report
    # every topic found something of its own: no such line
    whole = extractive_report(brief="Heat pumps", findings=findings.split("### Heat pumps —")[0], language=language,
                              notice="offline", sources_found=1)
    assert "—" not in whole.split("[S0a1b2c]", 1)[1], whole


@pytest.mark.parametrize(("topic", "language"), [
    ("Wärmepumpen — Grenzen und Probleme", "de"),
    ("Wärmepumpen — limitations and problems", "en"),  # one German word read as English
    ("Heat pumps — limitations and problems", "en"),
    ("heat pumps — for homes in Germany", "en"),  # the answer to the clarifying question after the dash
])
def test_a_sub_questions_notes_quote_only_passages_about_its_subject(topic, language):
    from engine.offline import OfflineChatModel
    from engine.prompts import COMPRESS

    # the facet's own words ("limitations", "problems") or the answer's ("homes") alone do not make a
    # passage about the subject: a page on something else that happens to use them is not quoted
    subject = ("Wärmepumpen stoßen bei sehr niedrigen Außentemperaturen an Grenzen und haben Probleme mit Lärm."
               if topic.startswith("Wärme") else
               "Heat pumps reach their limits in very cold weather and have problems with noise in homes.")
    results = ("--- SOURCE [S000001]: Resource limits (docs.python.org)\n"
               "Setting a low limit can lead to problems. "
               "Setting a low limit can lead to problems and Grenzen for homes of the processes. "
               "A limit that is too low leads to problems, Probleme and Grenzen in homes and in tests.\n"
               f"--- SOURCE [S000002]: Heat pumps (example.org)\n{subject}\n")
    prompt = COMPRESS.format(date="2026-12-03", topic=topic, brief=topic, language=language, results=results)
    notes = OfflineChatModel().invoke(prompt).content
    assert "[S000002]" in notes, notes
    assert "[S000001]" not in notes, notes
