"""The offline synthesis's Open objections agree with the last critique: every point of that critique
the final report does not settle is open (said by the critique, there alone), a point the report settles
says so where the review's outcome quotes it, and "(none)" is never written under a critique that still
objects."""

from __future__ import annotations

import asyncio
import re

import pytest

from engine.offline_phrases import phrase
from engine.offline_review import critique, perspective
from engine.offline_synthesis import finalize
from engine.prompt_sources import found_sources_block
from engine.runner import run_turn
from tests.engine.test_offline_and_process import corpus_settings

REGISTRY = {f"S00000{i}": {"title": f"Source {i}", "url": f"https://example.org/{i}"} for i in range(1, 4)}
QUESTION = "Which heat pumps work best in cold climates?"
TOPIC = "Which heat pumps work best in cold climates?"


def _final(report: str, points: list[str], objections: list[str] = (), language: str = "en") -> str:
    """The synthesis of ``report`` after one round whose critique is ``points`` (numbered here) and
    whose perspective objects with ``objections`` (``- Role: text`` lines)."""
    critique_text = "\n".join(f"{i}. {p}" for i, p in enumerate(points, 1))
    view = phrase("reader_intro", language) + "\n\n" + ("\n".join(objections) or phrase("none", language))
    review = f"### Solution (round 1)\n- x\n\n### Critique (round 1)\n{critique_text}\n\n### Perspective (round 1)\n{view}\n"
    sources = found_sources_block(REGISTRY, [report, review])
    return finalize(f"Question: {QUESTION}\n<Research Report>\n{report}\n</Research Report>\n<Review>\n{review}\n"
                    f"</Review>\n<Sources>\n{sources}\n</Sources>", language, "N.")


def _said(final: str, language: str = "en") -> list[str]:
    """The points the synthesis quotes as the last critique's, as it writes them."""
    outcome = final.split(f"## {phrase('open_objections', language)}", 1)[0]
    if phrase("last_critique", language) not in outcome:
        return []
    listed = outcome.split(phrase("last_critique", language), 1)[1]
    return [re.sub(r"^\d+\.\s*", "", ln) for ln in listed.splitlines() if re.match(r"^\d+\.\s", ln)]


def _open(final: str, language: str = "en") -> list[str]:
    section = final.split(f"## {phrase('open_objections', language)}", 1)[1].split("\n## ", 1)[0]
    return [ln[2:] for ln in section.splitlines() if ln.startswith("- ")]


def _settled(point: str, language: str = "en") -> bool:
    return point.endswith(" " + phrase("settled_in_report", language))


def _critique_open(final: str, language: str = "en") -> list[str]:
    """The open objections the synthesis says the critique raises, without the role."""
    said_by = phrase("role_says", language, role=phrase("role_critique", language), text="")
    return [o[len(said_by):] for o in _open(final, language) if o.startswith(said_by)]


def _consistent(final: str, language: str = "en") -> None:
    """Each point of the last critique is said once: open (said by the critique) under the open
    objections, or quoted in the review's outcome as settled or as objecting to nothing; "(none)" only
    when nothing is open."""
    open_ = _critique_open(final, language)
    for point in _said(final, language):
        assert _settled(point, language) or point.startswith(phrase("no_flaw", language)[:30]), (point, final)
        assert point.rsplit(" ", 1)[0] not in "\n".join(open_), final
    if open_:
        assert phrase("none", language) not in "\n".join(_open(final, language)), final


REPORT = (f"# {TOPIC}\n\n## {phrase('findings_on', 'en', t=TOPIC)}\n\n"
          "- Ground-source heat pumps keep their efficiency in cold climates. [S000001]\n"
          "- Heat pumps in cold climates lose efficiency below minus 15 degrees. [S000001]\n")


def test_a_topic_on_one_source_stays_open_though_the_reader_asks_nothing():
    point = phrase("single_source_topic", "en", topic=f"“{TOPIC}”", title="“Source 1”", sid="S000001")
    final = _final(REPORT, [point])
    assert _said(final) == [], final
    assert _open(final) == [phrase("role_says", "en", role="Critique", text=point)], final
    _consistent(final)


def test_the_whole_solution_on_one_source_is_not_said_again_beside_the_topic_on_one_source():
    topic = phrase("single_source_topic", "en", topic=f"“{TOPIC}”", title="“Source 1”", sid="S000001")
    final = _final(REPORT, [phrase("one_source", "en"), topic])
    assert _critique_open(final) == [topic], final
    assert _said(final) == [], final


def test_a_topic_the_report_finds_in_two_sources_is_settled():
    point = phrase("single_source_topic", "en", topic=f"“{TOPIC}”", title="“Source 1”", sid="S000001")
    report = REPORT + "- Air-source heat pumps lose efficiency in cold climates. [S000002]\n"
    final = _final(report, [point])
    assert _said(final) == [f"{point} {phrase('settled_in_report', 'en')}"], final
    assert _open(final) == [phrase("none", "en")], final


def test_one_source_for_the_whole_solution_stays_open_while_the_report_cites_one():
    point = phrase("one_source", "en")
    final = _final(REPORT, [point])
    assert _open(final) == [phrase("role_says", "en", role="Critique", text=point)], final
    _consistent(final)
    report = REPORT + "- Air-source heat pumps lose efficiency in cold climates. [S000002]\n"
    final = _final(report, [point])
    assert _said(final) == [f"{point} {phrase('settled_in_report', 'en')}"], final
    _consistent(final)


def test_a_code_line_the_report_quotes_stays_open_and_one_it_dropped_is_settled():
    code = "for pump in pumps: pump.start() # start every heat pump."
    point = phrase("code_line", "en", q=f"“{code}”", sid="S000002")
    final = _final(REPORT + f"- {code} [S000002]\n", [point])
    assert phrase("role_says", "en", role="Critique", text=point) in _open(final), final
    final = _final(REPORT, [point])
    assert _said(final) == [f"{point} {phrase('settled_in_report', 'en')}"], final
    _consistent(final)


def test_figures_that_differ_stay_open_while_the_report_quotes_both():
    a, b = "Pumps cost 8000 euros to install.", "Pumps cost 12000 euros to install."
    point = phrase("numbers_differ", "en", a=f"“{a}”", sa="S000001", b=f"“{b}”", sb="S000002")
    final = _final(REPORT + f"- {a} [S000001]\n- {b} [S000002]\n", [point])
    assert phrase("role_says", "en", role="Critique", text=point) in _open(final), final
    final = _final(REPORT + f"- {a} [S000001]\n", [point])
    assert _said(final) == [f"{point} {phrase('settled_in_report', 'en')}"], final


def test_words_no_claim_of_the_report_mentions_are_said_open_once():
    """The critique and the reader name the same words of the question: open, said once."""
    point = phrase("unanswered", "en", terms="“best”")
    reader = "- " + phrase("role_says", "en", role="Reader", text=phrase("not_addressed", "en", terms="“best”"))
    final = _final(REPORT, [point], [reader])
    assert _open(final) == [phrase("role_says", "en", role="Critique", text=point)], final
    settled = _final(REPORT + "- Ground-source pumps work best below freezing. [S000002]\n", [point], [reader])
    assert _said(settled) == [f"{point} {phrase('settled_in_report', 'en')}"], settled
    assert _open(settled) == [phrase("none", "en")], settled


def test_a_flawless_critique_leaves_the_reader_objections_and_an_unknown_point_stays_open():
    final = _final(REPORT, [phrase("no_flaw", "en")])
    assert _open(final) == [phrase("none", "en")], final
    final = _final(REPORT, ["Installers were never asked."])
    assert _open(final) == ["Critique: Installers were never asked."], final


@pytest.mark.parametrize("language", ["de", "fr", "ja", "zh-Hant"])
def test_every_language_keeps_its_open_critique_points(language):
    point = phrase("single_source_topic", language, topic=phrase("quoted", language, q=TOPIC),
                   title=phrase("quoted", language, q="Source 1"), sid="S000001")
    final = _final(REPORT.replace(phrase("findings_on", "en", t=TOPIC), phrase("findings_on", language, t=TOPIC)),
                   [point], language=language)
    assert _open(final, language) == [phrase("role_says", language, role=phrase("role_critique", language),
                                             text=point)], final
    _consistent(final, language)


def test_the_review_as_computed_agrees_with_its_synthesis():
    """The roles' own output, one round: whatever the critique still raises is open."""
    report = REPORT
    sources = found_sources_block(REGISTRY, [report])
    solution = "- Heat pumps in cold climates lose efficiency below minus 15 degrees. [S000001]\n"
    findings = f"### {TOPIC}\n\n" + "\n".join(ln for ln in report.splitlines() if ln.startswith("- "))
    points = critique(f"Question: {QUESTION}\n<Solution>\n{solution}\n</Solution>", sources, findings, "en")
    view = perspective(f"Question: {QUESTION}\n<Solution>\n{solution}\n</Solution>", findings, "en")
    review = (f"### Solution (round 1)\n{solution}\n\n### Critique (round 1)\n{points}\n\n"
              f"### Perspective (round 1)\n{view}\n")
    final = finalize(f"Question: {QUESTION}\n<Research Report>\n{report}\n</Research Report>\n<Review>\n{review}\n"
                     f"</Review>\n<Sources>\n{sources}\n</Sources>", "en", "N.")
    assert _said(final) or _critique_open(final), final
    _consistent(final)


@pytest.mark.parametrize(("question", "answer"), [("Which heat pumps work best in cold climates?", None),
                                                  ("solar", "home solar panels and inverters")])
def test_a_run_never_says_none_open_under_a_critique_that_objects(offline_settings, tmp_path, question, answer):
    settings = corpus_settings(offline_settings, tmp_path, {
        "pumps.md": "# Heat pumps\n\nGround-source heat pumps reach a seasonal efficiency of 4.5 in cold climates.\n"
                    "Heat pumps in cold climates lose efficiency below minus 15 degrees.\n",
        "solar.md": "# Solar panels\n\nHome solar panels produce about 1000 kWh per installed kW each year in central "
                    "Europe.\nSolar inverters convert the direct current of the panels into alternating current for "
                    "the house.\n"}, allow_clarification=answer is not None)
    out = asyncio.run(run_turn("console:open", question=question, settings=settings))
    if answer is not None:
        assert out.status == "clarify", out
        out = asyncio.run(run_turn("console:open", answer=answer, settings=settings))
    report = out.artifacts.report_md.read_text(encoding="utf-8")
    assert _said(report) or _critique_open(report), report
    _consistent(report)
    summary = report.split("## Executive summary", 1)[1].split("\n## ", 1)[0]
    assert "Critique:" not in summary and "Reader:" not in summary, summary  # findings only, no objection
