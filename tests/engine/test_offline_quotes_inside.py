"""A finding, claim or title the offline review quotes may hold quotation marks of its own („…“,
« … », 「…」, ”…”, "…"): the review writes them as the language's inner quotes, so its own quote
ends where the quoted text does, and every follow-up, objection and change it reads back from its
quotes holds the whole text, words unchanged."""

from __future__ import annotations

import asyncio
import re

import pytest

from engine import offline_follow_ups as F
from engine import offline_review as R
from engine.offline_phrases import LANGUAGES, phrase
from engine.offline_quotes import _nested
from engine.offline_synthesis import finalize
from engine.runner import run_turn
from engine.search.corpus_index import index_directory
from tests.engine.test_offline_review import DOCS
from tests.engine.test_offline_review import QUESTION as HEAT_PUMPS

QUESTION = "How do daemon threads end?"
#: (language, a finding holding quotation marks, the finding as the review quotes it in that language)
FINDINGS = [
    ("en", "A thread can be flagged as a “daemon thread”.", "A thread can be flagged as a ‘daemon thread’."),
    ("en", "The German manual calls it „Daemon-Thread“ in its index.",
     "The German manual calls it ‘Daemon-Thread’ in its index."),
    ("en", "Its «daemon» flag is inherited from the creating thread.",
     "Its ‘daemon’ flag is inherited from the creating thread."),
    ("en", "The Japanese guide writes 「デーモン」 for a daemon thread.",
     "The Japanese guide writes ‘デーモン’ for a daemon thread."),
    ("en", "A thread can be flagged as a \"daemon thread\".", "A thread can be flagged as a \"daemon thread\"."),
    ("de", "Ein Thread kann als „Daemon-Thread“ markiert werden.",
     "Ein Thread kann als ‚Daemon-Thread‘ markiert werden."),
    ("de", "Die Doku nennt ihn “daemon thread” und beendet ihn zuletzt.",
     "Die Doku nennt ihn ‚daemon thread‘ und beendet ihn zuletzt."),
    ("fr", "Un fil peut être marqué « démon » par le système.", "Un fil peut être marqué ‹ démon › par le système."),
    ("fr", "La doc dit “daemon thread” pour ce cas.", "La doc dit ‹daemon thread› pour ce cas."),
    ("es", "Un hilo puede marcarse como «demonio» en Python.", "Un hilo puede marcarse como ‘demonio’ en Python."),
    ("it", "Un thread può essere marcato come «demone» in Python.",
     "Un thread può essere marcato come ‘demone’ in Python."),
    ("sv", "En tråd kan markeras som ”daemon” i koden.", "En tråd kan markeras som ’daemon’ i koden."),
    ("ja", "スレッドは「デーモンスレッド」として設定できる。", "スレッドは『デーモンスレッド』として設定できる。"),
    ("zh", "线程可以被标记为“守护线程”。", "线程可以被标记为‘守护线程’。"),
]
IDS = [f"{language}-{i}" for i, (language, _, _) in enumerate(FINDINGS)]


def _perspective(finding: str, language: str) -> str:
    """The offline reader's objections to a solution that leaves ``finding`` (of source S000001) out."""
    prompt = f"Question: {QUESTION}\n<Solution>\n</Solution>"
    return R.perspective(prompt, f"### Threads\n- {finding} [S000001]\n", language)


@pytest.mark.parametrize(("language", "finding", "nested"), FINDINGS, ids=IDS)
def test_the_objection_and_the_follow_up_quote_the_whole_finding(language, finding, nested):
    view = _perspective(finding, language)
    [left_out] = [line for line in view.splitlines() if "[S000001]" in line]
    assert phrase("quoted", language, q=nested) in left_out, left_out
    assert R._QUOTED.findall(left_out)[0] == nested, left_out
    [asked] = [q for q in F.follow_up_questions(view, QUESTION, language)
               if phrase("quoted", language, q=nested) in q]
    assert R._QUOTED.findall(asked)[0] == nested, asked


@pytest.mark.parametrize(("language", "finding", "nested"), FINDINGS, ids=IDS)
def test_an_objection_the_report_answers_is_dropped_and_one_it_does_not_stays(language, finding, nested):
    view = _perspective(finding, language)
    review = f"### Solution 1\n\n- x\n\n### Critique 1\n\n1. x\n\n### Perspective 1\n\n{view}"
    answered = finalize(f"<Research Report>\n# Threads\n\n- {finding} [S000001]\n</Research Report>\n"
                          f"<Review>\n{review}\n</Review>", language, "N.")
    open_ = answered.rsplit(phrase("open_objections", language), 1)[1]
    assert "[S000001]" not in open_ and nested not in open_, answered
    other = finalize(f"<Research Report>\n# Threads\n\n- Threads end. [S000002]\n</Research Report>\n"
                       f"<Review>\n{review}\n</Review>", language, "N.")
    open_ = other.rsplit(phrase("open_objections", language), 1)[1]
    assert phrase("quoted", language, q=nested) in open_, other


@pytest.mark.parametrize(("language", "finding", "nested"), FINDINGS, ids=IDS)
def test_round_two_adds_the_finding_the_perspective_named(language, finding, nested):
    kept = "- Threads end when their function returns. [S000002]"
    report = f"# Threads\n\n{kept}\n- {finding} [S000001]\n"
    prompt = (f"Question: {QUESTION}\n<Research Report>\n{report}</Research Report>\n"
              f"<Previous solution>\n{kept}\n</Previous solution>\n"
              f"<Previous perspective>\n{_perspective(finding, language)}</Previous perspective>")
    revised = R.solution(prompt, language)
    assert f"- {finding} [S000001]" in revised, revised
    changes = revised.split(phrase("recommendation", language))[0]
    assert phrase("quoted", language, q=nested) in changes, revised


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_language_writes_inner_quotes_the_review_reads_as_its_own(language):
    inner = phrase("quoted_inner", language, q="x")
    assert not R._QUOTED.search(inner) and not set(inner) & set("“”„«»「」\""), inner
    nested = _nested("a “b” „c“ « d » 「e」 ”f”", language)
    assert not set(nested) & set("“”„«»「」"), nested
    assert R._QUOTED.findall(phrase("quoted", language, q=nested)) == [nested]


def test_an_offline_run_quotes_findings_with_quotes_whole(offline_settings, tmp_path):
    """The heat pump corpus of the review's tests, its words "heat pump" quoted in every sentence."""
    folder = tmp_path / "docs"
    folder.mkdir()
    pages = {name: re.sub(r"\b([Hh]eat pumps?)\b", r"“\1”", text) for name, text in DOCS.items()}
    for name, text in pages.items():
        (folder / name).write_text(text, encoding="utf-8")
    settings = offline_settings(search="corpus", corpus_dir=folder, allow_clarification=False,
                                max_review_iterations=2, search_max_results=6)
    index_directory(settings.corpus_dir, settings.corpus_index_path)
    out = asyncio.run(run_turn("console:quotes", question=HEAT_PUMPS, settings=settings))
    assert out.status == "done", out
    text = " ".join(_unquoted(page.split("\n\n", 1)[1].strip()) for page in pages.values())
    review = out.artifacts.review_md.read_text()
    left_out = [R._QUOTED.findall(line)[0] for line in review.splitlines() if "which the solution leaves out" in line]
    assert left_out, review
    # the follow-ups the first round's objections give (the run's own come from the last round's, if open)
    perspective_1 = review.split("### Perspective", 1)[1].split("## Round 2", 1)[0]
    follow_ups = [*F.follow_up_questions(perspective_1, HEAT_PUMPS, "en"), *out.follow_ups]
    asked = [R._QUOTED.findall(q)[0] for q in follow_ups if q.startswith("How does the finding")]
    assert asked, follow_ups
    for quote in left_out + asked:  # whole sentences (or their start, shortened), their quotes the inner ones
        assert "“" not in quote and "”" not in quote, quote
        assert quote.endswith(("…", ".")) and re.search(r"(?:^|\. )" + re.escape(_unquoted(quote.rstrip("…"))),
                                                       text), quote


def _unquoted(text: str) -> str:
    """``text`` without its quotation marks: its words as written."""
    return re.sub(r"[“”‘’]", "", text)
