"""The offline review says only what is true of the run: counts from the sources found and cited,
objections drawn from the report's own claims and the question, round 2 saying what changed."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from engine.runner import run_turn
from engine.search.corpus_index import index_directory

QUESTION = "How do air-source heat pumps handle cold weather, and what do they cost to install?"
DOCS = {
    "basics.md": "# How heat pumps work\n\nAn air-source heat pump moves heat from the outside air into a house "
    "instead of burning fuel. In cold weather the heat pump needs more electricity for the same heat. "
    "However this does not matter much in mild climates where winters are short. "
    "The coefficient of performance of a heat pump falls as the outdoor air gets colder.\n",
    "costs.md": "# Costs\n\nInstalling an air-source heat pump in a house costs between 8,000 and 15,000 euros "
    "before subsidies. The cost to install a heat pump is lower in a new house with underfloor heating. "
    "Grants cover a quarter to a half of the cost to install a heat pump in several countries.\n",
    "cold.md": "# Cold climates\n\nCold-climate heat pumps keep working in cold weather down to minus twenty-five "
    "degrees. Below that a resistive backup heater takes over from the heat pump in cold weather. "
    "A heat pump in cold weather defrosts its outdoor coil several times an hour.\n",
    "config.md": "# Configuration\n\nfor pump in pumps: pump.start() # start every heat pump in the house.\n"
    "The heat pump controller reads the outdoor air temperature every minute in cold weather.\n",
    "noise.md": "# Noise\n\nThe outdoor unit of an air-source heat pump makes noise, and rules set a distance "
    "to the neighbours. Night-time noise limits apply to heat pumps in many towns.\n",
    "history.md": "# History\n\nThe first heat pumps were built in the nineteenth century for salt works. "
    "Heat pumps became common in houses in Sweden in the nineteen-eighties.\n",
}


def _run(offline_settings, tmp_path, rounds: int = 2):
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    settings = offline_settings(search="corpus", corpus_dir=folder, allow_clarification=False,
                                max_review_iterations=rounds, search_max_results=6)
    index_directory(settings.corpus_dir, settings.corpus_index_path)
    out = asyncio.run(run_turn("console:review", question=QUESTION, settings=settings))
    assert out.status == "done", out
    sources = json.loads(out.artifacts.sources_json.read_text())
    return out.artifacts.report_md.read_text(), out.artifacts.review_md.read_text(), sources


def test_the_review_outcome_counts_the_sources_found_and_cited(offline_settings, tmp_path):
    report, _review, sources = _run(offline_settings, tmp_path)
    found, cited = len(sources["found"]), len(sources["cited"])
    assert found > cited  # the corpus is made so that a source is found and left out
    outcome = report.split("## Review outcome", 1)[1].split("## Open objections", 1)[0]
    assert f"cites {cited} of the {found} sources found" in outcome
    not_cited = [s["title"] for s in sources["found"] if s["id"] not in {c["id"] for c in sources["cited"]}]
    assert all(f"“{title}”" in outcome for title in not_cited[:3])
    assert not re.search(r"all \d+ available sources|of \d+ available sources", report)


def test_the_objections_are_about_this_report_not_boilerplate(offline_settings, tmp_path):
    report, review, _sources = _run(offline_settings, tmp_path)
    for boilerplate in ("Regulator", "Competitor", "Affected user", "compliance", "Unstated assumption",
                        "no figures, dates or counter-examples", "state the conditions under which"):
        assert boilerplate not in report and boilerplate not in review, boilerplate
    # the source's code line is never quoted as a finding (the critique names code lines that reach
    # a solution: see test_the_critique_names_code_lines_and_dangling_references)
    assert "for pump in pumps" not in report and "for pump in pumps" not in review
    # the reader's objections quote findings the solution leaves out, with their source
    perspective_1 = review.split("### Perspective", 1)[1].split("## Round 2", 1)[0]
    assert re.search(r"the findings also say “[^”]+” \[S[0-9a-f]{6}\], which the solution leaves out", perspective_1)


def test_round_two_says_what_changed(offline_settings, tmp_path):
    _report, review, _sources = _run(offline_settings, tmp_path)
    round_1, round_2 = review.split("## Round 2", 1)
    solution_1 = round_1.split("## Recommendation", 1)[1].split("### Critique", 1)[0]
    changes, _, solution_2 = round_2.split("## Changes from the previous solution", 1)[1].partition("## Recommendation")
    solution_2 = solution_2.split("### Critique", 1)[0]
    added = re.search(r"Added (\d+) findings? that the perspective named as left out: (.*)", changes)
    assert added, changes
    quotes = [q.rstrip("…") for q in re.findall(r"“([^”]+)”", added.group(2))]
    assert len(quotes) == int(added.group(1)) >= 1
    assert all(q in solution_2 and q not in solution_1 for q in quotes)
    critique_1 = round_1.split("### Critique", 1)[1].split("### Perspective", 1)[0]
    critique_2 = round_2.split("### Critique", 1)[1].split("### Perspective", 1)[0]
    assert critique_2 != critique_1


def test_nothing_changed_is_said_when_nothing_did():
    from engine.offline_review import solution

    previous = "## Recommendation\n\n- Heat pumps move heat from outside air into a house. [S000001]\n"
    prompt = (f"Question: How do heat pumps work?\n<Research Report>\n{previous}</Research Report>\n"
              f"<Previous solution>\n{previous}</Previous solution>\n<Previous perspective>\n(none)\n"
              "</Previous perspective>")
    revised = solution(prompt, "en")
    assert "Nothing changed" in revised and "Heat pumps move heat from outside air" in revised


@pytest.mark.parametrize("language", ["en", "de", "fr", "es"])
def test_a_solution_with_no_finding_to_build_on_does_not_say_no_source_was_found(language):
    from engine.offline_phrases import phrase
    from engine.offline_review import solution

    # five sources were found and none had a passage to quote: not "no sources were found", and
    # that note is not a finding to recommend from either
    note = phrase("no_passages", language, 5, n="5")
    prompt = f"Question: How do heat pumps work?\n<Research Report>\n# Heat pumps\n\n{note}\n</Research Report>\n"
    first = solution(prompt, language)
    second = solution(f"{prompt}<Previous solution>\n{first}</Previous solution>\n"
                      "<Previous perspective>\n(none)\n</Previous perspective>", language)
    for written in (first, second):
        assert phrase("no_findings", language) not in written and note not in written, written
        assert phrase("no_claims", language) in written, written


def test_a_topic_the_report_shows_nothing_more_on_is_not_said_to_rest_on_one_source():
    from engine.offline_review import critique
    from engine.offline_text import extractive_report

    # the second topic found only what the first one quotes already: the report names it as having
    # nothing more to quote, so the critique must not speak of "the findings on" it
    line = "- The vendor promises a ten-year warranty on the compressor of the heat pump. [S000001]\n"
    findings = f"### Vendor warranty terms\n{line}### Vendor promise — how it works\n{line}"
    report = extractive_report(brief="What does the vendor promise?", findings=findings, language="en",
                               notice="offline", sources_found=1)
    assert "Nothing more to quote was found on: Vendor promise — how it works" in report, report
    sources = "1 source found; 1 cited so far.\n[S000001] Warranty — file:///w.md"
    prompt = f"Question: What does the vendor promise?\n<Solution>\n{line}</Solution>"
    points = critique(prompt, sources, findings, "en")
    assert "“Vendor promise — how it works”" not in points, points
    assert "“Vendor warranty terms” rest on one source only" in points, points


def test_a_sentence_whose_subject_is_lost_is_named():
    from engine.offline_review import critique

    findings = ("### asyncio cancellation\n- However this doesn’t work with asyncio because it can interrupt "
                "asyncio internals. [S000003]\n- Task.cancel() asks a task to stop at its next await. [S000001]\n")
    sources = "3 sources found; 1 cited so far.\n[S000001] Tasks — file:///t.html\nFound, not cited so far:\n" \
              "[S000002] Queues — file:///q.html\n[S000003] Runners — file:///r.html"
    prompt = ("Question: How does asyncio cancel tasks?\n<Solution>\n- Task.cancel() asks a task to stop at its "
              "next await. [S000001]\n- Cancelled tasks raise CancelledError at the await. [S000001]\n</Solution>")
    points = critique(prompt, sources, findings, "en")
    assert "“However this doesn’t work with asyncio" in points and "starts with “this”" in points
    assert "The solution rests on one source or none" in points
    assert "The findings on “asyncio cancellation”" not in points  # two sources back that topic


def test_the_critique_names_code_lines_and_dangling_references():
    """A code line that reaches the findings (from a model's notes, not the offline extractor, which
    drops them) is named and quoted by the critique."""
    from engine.offline_review import critique

    findings = ("### asyncio cancellation\n- for task in tasks: task.cancel() # Wait until all worker tasks are "
                "cancelled. [S000002]\n- Task.cancel() asks a task to stop at its next await. [S000001]\n")
    sources = "2 sources found; 1 cited so far.\n[S000001] Tasks — file:///t.html\nFound, not cited so far:\n" \
              "[S000002] Queues — file:///q.html"
    prompt = ("Question: How does asyncio cancel tasks?\n<Solution>\n- Task.cancel() asks a task to stop at its "
              "next await. [S000001]\n</Solution>")
    points = critique(prompt, sources, findings, "en")
    assert "“for task in tasks: task.cancel()" in points and "line of code" in points


def test_every_counted_phrase_agrees_with_its_number_in_every_language():
    from engine.offline_phrases import PHRASES, phrase
    from engine.offline_synthesis import _report_sources

    counted = {key for key, table in PHRASES.items() if any(isinstance(t, tuple) for t in table.values())}
    assert {"all_sources_cited", "no_passages", "sources_outcome", "uncited"} <= counted
    for key, table in PHRASES.items():
        for language, text in table.items():
            forms = text if isinstance(text, tuple) else (text,)
            for form in forms:  # no "round(s)", "Ergebnis(se)", "afirmación(es)": a form for each number
                assert not re.search(r"\w\((?:s|e|n|en|se|es)\)", form), (key, language, form)
            if key in counted and not isinstance(text, tuple):  # one cardinal form (CLDR): Japanese, Chinese
                assert language in ("ja", "zh", "zh-Hant"), (key, language)
            elif key in counted:
                one = phrase(key, language, 1, n="1", m="1", titles="“A”", quotes="“q”", example="x", sources="")
                many = phrase(key, language, 3, n="3", m="3", titles="“A”", quotes="“q”", example="x", sources="")
                assert one != many.replace("3", "1"), (key, language)
    sources = "1 sources found\n[Sabc123] Wärmepumpen — https://example.org/wp\n"
    assert _report_sources("Sie sparen Strom [Sabc123].", sources, "de") == "Der Bericht zitiert die eine gefundene Quelle."
    assert _report_sources("Sparen [Sabc123].", sources.replace("1 sources", "3 sources"), "de").startswith(
        "Der Bericht zitiert 1 der 3 gefundenen Quellen")
    assert phrase("sources_outcome", "fr", 0, n="0", sources="") == "Le rapport a connu 0 tour de revue. "


def test_the_questions_words_are_quoted_as_it_wrote_them():
    from engine.offline_review import critique

    # a German noun keeps its capital letter, a name its spelling: „Wärmepumpen“, not „wärmepumpen“
    prompt = ("Question: Wie laut sind Wärmepumpen von Viessmann im Winter?\n<Solution>\n"
              "- Die Außeneinheit erzeugt Schall. [S000001]\n</Solution>")
    sources = "1 source found; 1 cited so far.\n[S000001] Schall — file:///s.md"
    points = critique(prompt, sources, "### Schall\n- Die Außeneinheit erzeugt Schall. [S000001]\n", "de")
    assert "„Wärmepumpen“" in points and "„Viessmann“" in points, points
    assert "„wärmepumpen“" not in points, points


def _revised(critique: str, perspective: str, language: str) -> str:
    from engine.offline_review import solution

    previous = "## Recommendation\n\n- Heat pumps move heat from outside air into a house. [S000001]\n"
    return solution(f"Question: How do heat pumps work?\n<Research Report>\n{previous}</Research Report>\n"
                    f"<Previous solution>\n{previous}</Previous solution>\n<Previous critique>\n{critique}"
                    f"</Previous critique>\n<Previous perspective>\n{perspective}</Previous perspective>", language)


@pytest.mark.parametrize("language", ["en", "de", "fr", "es", "it", "nl", "pt", "sv", "ja", "zh", "zh-Hant"])
def test_nothing_changed_says_what_the_previous_round_raised(language):
    """A round that changes nothing says whether the critique and the perspective raised anything: an
    objection it could not act on (the question's words no finding answers) is not "nothing"."""
    from engine.offline_phrases import phrase

    reader = phrase("reader", language)
    objection = "- " + phrase("role_says", language, role=reader,
                              text=phrase("not_addressed", language, terms="“bricht”"))
    perspective = f"{phrase('reader_intro', language)}\n\n{objection}\n"
    revised = _revised(f"1. {phrase('nothing_to_check', language)}\n", perspective, language)
    assert phrase("nothing_changed_raised", language, c="1", p="1") in revised, revised
    assert phrase("nothing_changed", language) not in revised
    # only the perspective objected; a critique that found no flaw, or every source used, raised nothing
    for critique in (phrase("no_flaw", language), phrase("all_sources_used", language, 3, m="3")):
        revised = _revised(f"1. {critique}\n", perspective, language)
        assert phrase("nothing_changed_raised", language, c="0", p="1") in revised, revised
        none = f"{phrase('reader_intro', language)}\n\n{phrase('none', language)}\n"
        assert phrase("nothing_changed", language) in _revised(f"1. {critique}\n", none, language)
    unused = phrase("unused_sources", language, 3, n="1", m="3", titles="“A”")
    assert phrase("nothing_changed_raised", language, c="1", p="0") in _revised(
        f"1. {unused}\n", f"{phrase('reader_intro', language)}\n\n{phrase('none', language)}\n", language)


#: Findings of one topic from three pages, as ``read_findings`` gives them: every page names "asyncio"
#: and "Tasks"; the index page's line names nothing else of the topic.
ASYNCIO_FINDINGS = """### How does asyncio cancel tasks

- Tasks can easily and safely be cancelled with Task.cancel() in asyncio. [S000001]
- When a task is cancelled, asyncio.CancelledError is raised in the task at the next opportunity. [S000001]
- Using asyncio.Queue to distribute workload between several Tasks. [S000003]
- After the main task is cancelled, asyncio.Runner.run() raises KeyboardInterrupt. [S000002]
"""


def test_the_reader_names_as_left_out_only_findings_about_their_topic():
    """A finding that shares only words every source names ("asyncio", "Tasks") with its topic is not
    named as left out, so round 2 does not add it; one about the topic's own words ("cancel") is."""
    from engine.offline_review import about_topic, perspective, solution

    block = [ln[2:] for ln in ASYNCIO_FINDINGS.splitlines() if ln.startswith("- ")]
    topic = "How does asyncio cancel tasks"
    assert [about_topic(ln, topic, block, "en") for ln in block] == [True, True, False, True]
    # one source, or words every source names alike: nothing tells a line apart, none is left out
    assert about_topic(block[2], topic, [block[2]], "en")
    assert about_topic(block[2], "How do asyncio Tasks work", block, "en")
    prompt = (f"Question: How does asyncio cancel tasks?\n<Solution>\n## Recommendation\n\n- {block[0]}\n"
              "</Solution>")
    said = perspective(prompt, ASYNCIO_FINDINGS, "en")
    assert "Queue" not in said and "When a task is cancelled" in said, said
    report = "## Findings\n\n" + "\n".join(f"- {ln}" for ln in block) + "\n"
    revised = solution(f"Question: How does asyncio cancel tasks?\n<Research Report>\n{report}</Research Report>\n"
                       f"<Previous solution>\n## Recommendation\n\n- {block[0]}\n</Previous solution>\n"
                       f"<Previous perspective>\n{said}</Previous perspective>", "en")
    assert "Added 2 findings" in revised and "Queue" not in revised, revised


@pytest.mark.parametrize("language", ["de", "fr", "es", "ja", "zh", "en"])
def test_every_round_of_the_review_speaks_the_questions_language(language):
    """The offline roles take the language from the prompt's instruction ("Write in German."), never
    from the text it quotes: a German solution saying "kein Ergebnis;", a report "in Python.", a
    question asking for a word "in French," do not turn the critique English or French."""
    from engine import prompts
    from engine.language import language_name
    from engine.offline import OfflineChatModel
    from engine.offline_phrases import phrase

    name = language_name(language)
    solution = (f"## {phrase('recommendation', language)}\n\n{phrase('no_claims', language)}\n"
                "Der Bericht zitiert kein Ergebnis; es steht in Python. Say it in French, please.\n")
    common = dict(date="2026-01-01", question="How do I say timeout in French, in Python?", iteration=1, rounds=2,
                  tools_note="", language=name)
    model = OfflineChatModel(role="review")
    critique = model.invoke(prompts.CRITIQUE.format(**common, solution=solution)).text
    assert critique.strip() == f"1. {phrase('nothing_to_check', language)}", critique
    perspective = model.invoke(prompts.PERSPECTIVE.format(**common, solution=solution, critique=critique)).text
    assert perspective.startswith(phrase("reader_intro", language)), perspective
    revised = model.invoke(prompts.SOLUTION.format(
        **common, report=f"# T\n\n{phrase('no_findings', language)}\n",
        previous=f"\n<Previous solution>\n{solution}</Previous solution>\n<Previous critique>\n{critique}"
                 f"</Previous critique>\n<Previous perspective>\n{perspective}</Previous perspective>\n",
        revise_rule=prompts.SOLUTION_REVISE_RULE)).text
    # the critique and the perspective each raised one point, which the revision could not act on
    raised = phrase("nothing_changed_raised", language, c="1", p="1")
    assert f"## {phrase('changes', language)}" in revised and raised in revised, revised


def test_a_question_written_without_spaces_is_quoted_by_its_words_not_its_chunks():
    from engine.offline_follow_ups import follow_up_questions, is_question
    from engine.offline_phrases import phrase
    from engine.offline_review import _QUOTED, critique, perspective

    question = "asyncioはタスクをどのようにキャンセルし、タイムアウトをどう扱いますか？"
    finding = "- asyncio runs coroutines concurrently on one thread. [S000001]"
    prompt = f"Question: {question}\n<Solution>\n{finding}\n</Solution>"
    sources = "1 source found; 1 cited so far.\n[S000001] asyncio — file:///a.md"
    view = perspective(prompt, f"### asyncio\n{finding}\n", "ja")
    points = critique(prompt, sources, f"### asyncio\n{finding}\n", "ja")
    follow_ups = follow_up_questions(view, question, "ja")
    for text in (view, points, *follow_ups):
        # the question's own words quoted (a source's title "asyncio" may be quoted too), besides the
        # question itself, which a follow-up names without the words it asks about ("asyncioは…をどう扱いますか")
        quoted = {q for q in _QUOTED.findall(text.replace(question.rstrip("？"), "Q"))
                  if not q.isascii() and not is_question(q, question)}
        assert quoted and quoted <= {"タスク", "キャンセル", "タイムアウト", "扱い"}, text
    assert phrase("quoted", "ja", q="asyncio") not in view, view  # the solution speaks of it


@pytest.mark.parametrize(("question", "word", "finding", "said"), [
    ("How do heat pumps handle frost?", "frost", "- Heat pumps move heat from the outside air. [S000001]",
     "- Frosts slow the outdoor unit down. [S000002]"),
    ("asyncioはタスクをどのようにキャンセルしますか？", "キャンセル", "- asyncio runs coroutines on one thread. [S000001]",
     "- タスクのキャンセルはcancel()で行います。 [S000002]"),
])
def test_question_words_no_finding_mentions_stay_an_open_objection(question, word, finding, said):
    from engine.offline_phrases import phrase
    from engine.offline_review import perspective
    from engine.offline_synthesis import finalize

    # the report's headings repeat the question: that answers none of its words
    report = f"# {question}\n\n## Findings: {question}\n\n{finding}\n"
    view = perspective(f"Question: {question}\n<Solution>\n{finding}\n</Solution>", "", "en")
    assert phrase("quoted", "en", q=word) in view, view
    review = f"### Solution 1\n\n{finding}\n\n### Critique 1\n\n1. Fine.\n\n### Perspective 1\n\n{view}"
    final = finalize(f"<Research Report>\n{report}\n</Research Report>\n<Review>\n{review}\n</Review>", "en", "N.")
    assert phrase("quoted", "en", q=word) in final.split("## Open objections", 1)[1], final
    # once a finding mentions the word (in any inflection), the objection is answered
    final = finalize(f"<Research Report>\n# {question}\n\n{finding}\n{said}\n</Research Report>\n<Review>\n{review}\n</Review>",
                     "en", "N.")
    assert phrase("quoted", "en", q=word) not in final.split("## Open objections", 1)[1], final


@pytest.mark.parametrize(("name", "question"), [
    ("Zephyr-9", "How many watts does the Zephyr-9 heat pump draw at minus ten degrees?"),
    ("GPT-4o", "How long is the context window of GPT-4o?"),
    ("Python3", "Which Python3 release added the walrus operator?"),
])
def test_a_name_with_a_number_is_answered_by_a_claim_that_writes_it_so(name, question):
    """A question's word is met by a claim that writes it inside a name ("Zephyr" in "Zephyr-9"):
    the review must not object that the solution says nothing about it."""
    from engine.offline_review import unanswered

    claim = f"The {name} figure is given on page 3 of the datasheet, with its context and release."
    missing = unanswered(question, [claim])
    assert not [m for m in missing if m.lower() in name.lower()], missing


ASYNCIO_PAGES = {
    "task.html": "<html><head><title>Coroutines and Tasks</title></head><body><main><h1>Coroutines and Tasks</h1>"
    "<p>Tasks can easily and safely be cancelled in asyncio. When a task is cancelled, asyncio.CancelledError "
    "is raised in the task at the next opportunity. Task.cancel() does not guarantee that the task will be "
    "cancelled, as a coroutine may suppress the cancellation.</p><p>The asyncio.timeout() context manager cancels "
    "the current task when the timeout expires and raises TimeoutError outside of it.</p></main></body></html>",
    "runner.html": "<html><head><title>Runners</title></head><body><main><h1>Runners</h1><p>When Ctrl-C is "
    "pressed, the asyncio runner cancels the main task by calling Task.cancel(). After the main task is "
    "cancelled, asyncio.Runner.run() raises KeyboardInterrupt.</p><p>A task that catches CancelledError should "
    "re-raise it after its cleanup, or the cancellation is lost. The uncancel() method of a task undoes one "
    "request to cancel it. A TaskGroup cancels the remaining tasks when one of its tasks fails.</p>"
    "</main></body></html>",
    "shield.html": "<html><head><title>Shielding</title></head><body><main><h1>Shielding from cancellation</h1>"
    "<p>The asyncio.shield() function protects an awaitable from being cancelled when the task awaiting it "
    "is cancelled. Cancelling the outer task still raises CancelledError in the task that awaits the shield. "
    "A shielded inner task keeps running until it completes even when its caller is cancelled.</p>"
    "</main></body></html>",
    "index.html": "<html><head><title>High-level API Index</title></head><body><main><h1>High-level API Index</h1>"
    "<h2>Queues</h2><p>Using asyncio.Queue to distribute workload between several Tasks.</p>"
    "</main></body></html>",
}


def test_the_review_adds_no_finding_that_only_shares_the_sources_common_words(offline_settings, tmp_path):
    """End to end on a small HTML corpus: the reader never names as left out, and round 2 never adds, a
    finding that shares only "asyncio" and "Tasks" with its topic."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in ASYNCIO_PAGES.items():
        (folder / name).write_text(text, encoding="utf-8")
    settings = offline_settings(search="corpus", corpus_dir=folder, allow_clarification=False,
                                max_review_iterations=2, search_max_results=6)
    index_directory(settings.corpus_dir, settings.corpus_index_path)
    out = asyncio.run(run_turn("console:asyncio", question="How does asyncio cancel tasks?", settings=settings))
    assert out.status == "done", out
    review = out.artifacts.review_md.read_text()
    assert "Queue" in out.artifacts.report_md.read_text()  # a finding of the report, as the corpus is made
    # every other finding is in round 1's solution: the one left out is the index page's
    named = [ln for ln in review.splitlines() if "leaves out" in ln or ln.startswith("- Added")]
    assert not [ln for ln in named if "Queue" in ln], named
