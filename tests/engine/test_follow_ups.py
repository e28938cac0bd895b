"""Suggested follow-up questions: written by the summary step from the review's open objections."""

from __future__ import annotations

import asyncio
import re

import pytest

from engine import offline_follow_ups as F
from engine.graph.finish import open_objections
from engine.runner import run_turn

# the follow-ups are what these tests read, not the typeset files
pytestmark = pytest.mark.usefixtures("untypeset")


def test_the_summary_suggests_follow_ups_from_the_open_objections(online_settings, script):
    script.follow_ups = ["Which rules apply to vendor A [Sdeadbe]?", "  which rules apply to vendor A? ", "",
                         "Is vendor B cheaper to run?", "What do users of vendor A report?", "A fourth one?"]
    settings = online_settings(max_review_iterations=1)
    out = asyncio.run(run_turn("t:follow", question="Should we buy vendor A or vendor B?", settings=settings))
    # at most three, distinct, on one line each, without source ids
    assert out.follow_ups == ["Which rules apply to vendor A?", "Is vendor B cheaper to run?",
                              "What do users of vendor A report?"]
    [prompt] = script.calls("executive_summary")
    objections = re.search(r"<Open objections>(.*)</Open objections>", prompt, re.DOTALL).group(1)
    assert "Flaw number 1" in objections and "As a regulator: objection 1" in objections
    assert "Question: Should we buy vendor A or vendor B?" in prompt


def test_without_a_review_there_is_nothing_open():
    assert open_objections({}) == "(none)"
    assert open_objections({"critiques": ["1. old", "1. last"], "perspectives": ["- Regulator: x"]}) == (
        "### Critique\n1. last\n\n### Perspective\n- Regulator: x")


def test_the_offline_model_asks_about_each_open_objection_in_the_questions_language():
    german = ("- Leser: die Ergebnisse sagen auch „Luft-Wärmepumpen kosten 9.000 Euro.“ [S000001], was die Lösung "
              "auslässt.\n- Leser: in der Frage geht es um „günstigsten“, und die Lösung sagt nichts dazu.\n")
    asked = F.follow_up_questions(german, "Welche Wärmepumpen sind in Deutschland am günstigsten?", "de")
    assert len(asked) == 2 and all("„Welche Wärmepumpen sind in Deutschland am günstigsten“" in q for q in asked)
    assert asked[0].startswith("Was bedeutet das Ergebnis „Luft-Wärmepumpen kosten")
    assert asked[1] == "Was sagen die Quellen zu „günstigsten“ bei „Welche Wärmepumpen sind in Deutschland am günstigsten“?"
    other = F.follow_up_questions("- Investor: the payback period is never computed; nobody asked.",
                                  "heat pumps", "en")
    assert other == ["What does the evidence say about “the payback period is never computed”, an objection to "
                     "“heat pumps”?"]
    assert F.follow_up_questions("", "heat pumps", "en") == []


def test_a_follow_up_keeps_its_spacing_before_punctuation_and_loses_only_the_ids_gap(online_settings, script):
    # French puts a space before "?", "!", ";" and ":"; only the space a removed source id leaves goes
    script.follow_ups = ["Quelles règles s’appliquent au fournisseur A [Sdeadbe] ?", "Et « B » : est-il moins cher ?",
                         "Does vendor B report costs [Sdeadbe]?"]
    settings = online_settings(max_review_iterations=1)
    out = asyncio.run(run_turn("t:follow-fr", question="Faut-il acheter A ou B ?", settings=settings))
    assert out.follow_ups == ["Quelles règles s’appliquent au fournisseur A ?", "Et « B » : est-il moins cher ?",
                              "Does vendor B report costs?"]


def test_the_offline_model_asks_nothing_about_a_finding_the_final_report_quotes():
    # the last perspective said the solution left this finding out; the final report quotes it, and its
    # Open objections leave it out: the follow-ups, drawn from what stays open, must too
    finding = "After the main task is cancelled, asyncio.Runner.run() raises KeyboardInterrupt."
    objections = (f"### Critique\n1. A point.\n\n### Perspective\n- Reader: the findings also say “{finding}” "
                  "[S0a1b2c], which the solution leaves out.\n- Reader: the question asks about “timeouts”, "
                  "and the solution says nothing about it.\n")
    report = (f"# How does asyncio cancel tasks?\n\n## Findings\n\n- {finding} [S0a1b2c]\n\n"
              "## Review outcome\n\n## Open objections\n\n- Reader: the question asks about “timeouts”, and the "
              "solution says nothing about it.\n")
    prompt = ("Write a title (at most 12 words, no citations) and an executive summary\n\n"
              "Question: How does asyncio cancel tasks?\n\n"
              f"<Report>\n{report}\n</Report>\n\n<Open objections>\n{objections}\n</Open objections>")
    asked = _offline_follow_ups(prompt)
    assert asked and not any("Runner.run()" in q for q in asked), asked
    assert any("timeouts" in q for q in asked), asked


def _offline_follow_ups(prompt: str) -> list[str]:
    """The follow-up questions the offline model's summary step writes for ``prompt``."""
    from engine.offline import OfflineChatModel

    _, calls = OfflineChatModel()._task_executive_summary(prompt, [], [])
    return calls[0][1]["follow_up_questions"]
