"""A question in another language than the corpus is matched by the names it shares with it
("Wie bricht asyncio Tasks ab?" over English pages: "asyncio" and "Tasks"), its own words ("bricht")
not counting against a sentence; marks that are no words (a shell variable, a LaTeX command, a
percentage, a hashtag, a placeholder in braces) do not keep a sentence about the question out; and a
sentence naming only the name most of the pages found carry ("asyncio") is no evidence for a question
that asks about more."""

from __future__ import annotations

import asyncio
import re

import pytest

from engine.offline_asked import unmarked
from engine.offline_select import choose, rank
from engine.runner import run_turn
from engine.search.corpus_index import index_directory

CANCEL = "The asyncio.Task.cancel() method asks the Task to stop: it throws a CancelledError into the coroutine."
WAIT_FOR = "Using asyncio.wait_for() to enforce a timeout."
SOURCE_CODE = "The source code for asyncio can be found in Lib/asyncio/."
DEBUG = "In order to ease the development asyncio has a debug mode."
QUEUE = "Queues can be used to distribute the workload between several concurrent coroutines."
SCHEDULE = "Tasks are used to schedule coroutines concurrently in asyncio."
GATHER = "The asyncio.gather() function wraps each awaitable in a Task and runs them concurrently."
POOL = [SOURCE_CODE, DEBUG, CANCEL, WAIT_FOR, QUEUE, SCHEDULE, GATHER]
GROUPS = ["asyncio", "dev", "task", "task", "queue", "task", "task"]

GERMAN = "Wie bricht asyncio Tasks ab?"
NOISY = r"How do I use `asyncio.wait_for()` with a 5% timeout & $HOME_DIR {a_b} #tag \section …"
JAPANESE = "asyncioはどのようにタスクをキャンセルし、タイムアウトを処理しますか？"


@pytest.mark.parametrize("question,language", [
    (GERMAN, "de"),
    ("Wat doet asyncio met Tasks die worden afgebroken?", "nl"),
    ("¿Cómo cancela asyncio las Tasks?", "es"),
    ("Como o asyncio cancela as Tasks?", "pt"),
])
def test_the_names_a_question_shares_with_english_sentences_choose_them(question, language):
    chosen = choose(POOL, question, 5, language, groups=GROUPS)
    assert CANCEL in chosen and set(chosen) <= {CANCEL, SCHEDULE, GATHER}, chosen


def test_words_of_the_corpus_language_the_sentences_lack_still_count():
    """Over sentences in the question's own language, a word none of them has is still asked for: an
    English question about loudness quotes nothing from sentences that only share its subject."""
    pool = ["Wind turbines turn the energy of the wind into electricity.",
            "Offshore wind turbines stand in the sea, far from houses."]
    assert choose(pool, "How loud are wind turbines at night?", 5) == []
    german = ["Windräder wandeln die Energie des Windes in Strom um.",
              "Windräder auf dem Meer stehen weit entfernt von Häusern."]
    assert choose(german, "Wie laut sind Windräder in der Nacht?", 5, "de") == []


def test_a_word_meeting_a_sentence_only_by_its_stem_counts_beside_a_shared_name():
    """A cognate (Spanish "cancela", "cancel()") is matched beside a name the question shares
    ("asyncio"); alone, a stem is as often a false friend (French "attente", "attention")."""
    attention = "ATTENTION: in user-defined coordinate systems angles may appear distorted."
    pool, groups = [*POOL, attention], [*GROUPS, "turtle"]
    assert choose(pool, "gère-t-il les délais d'attente", 5, "fr", groups=groups) == []
    assert choose(pool, "¿Cómo cancela asyncio las tareas?", 5, "es", groups=groups) == [CANCEL]


@pytest.mark.parametrize("noise", ["5%", "12,5 %", "$HOME_DIR", "${HOME_DIR}", "%APPDATA%", r"\section",
                                   "#tag", "{a_b}"])
def test_marks_that_are_no_words_do_not_keep_a_sentence_about_the_question_out(noise):
    assert choose(POOL, f"How do I use asyncio.wait_for() with a timeout {noise}?", 5) == [WAIT_FOR]


def test_the_whole_noisy_question_chooses_the_sentence_on_its_names():
    assert choose(POOL, NOISY, 5, groups=GROUPS) == [WAIT_FOR]
    assert rank(POOL, NOISY, 1) == [WAIT_FOR]


def test_a_mark_the_sentences_write_the_same_way_is_asked_for():
    pool = ["os.path.expanduser() replaces a leading ~ with the value of $HOME on POSIX systems.",
            "The expanduser() function works on Windows as well as on POSIX systems."]
    question = "How does expanduser() replace $HOME?"
    assert unmarked(question, pool) == question
    assert unmarked(question, pool[1:]) == "How does expanduser() replace  ?"
    assert unmarked("Is 5 % of 12.5% or #tag {x} taken?", ["A 5% share of it.", "Sets {x} to #Tag."]) == \
        "Is 5 % of   or #tag {x} taken?"
    assert choose(pool, question, 5) == [pool[0]]


def test_a_sentence_naming_only_the_name_most_pages_carry_is_no_evidence():
    assert choose(POOL, JAPANESE, 5, "ja", groups=GROUPS) == []
    assert choose(POOL, "Comment asyncio annule-t-il les tâches et gère-t-il les délais d'attente ?", 5, "fr",
                  groups=GROUPS) == []
    # a name only some pages carry is what the question asks about: its sentences are quoted
    assert choose(POOL, "Wie benutzt man wait_for richtig?", 5, "de", groups=GROUPS) == [WAIT_FOR]
    # a question asking about that name alone is answered by its sentences
    assert SOURCE_CODE in choose(POOL, "Was ist asyncio?", 5, "de", groups=GROUPS)


PAGES = {
    "asyncio.html": ("asyncio — Asynchronous I/O", f"""asyncio is a library to write concurrent code using the
        async/await syntax. {SOURCE_CODE}"""),
    "asyncio-task.html": ("Coroutines and Tasks", f"""Tasks are used to schedule coroutines concurrently in asyncio.
        {CANCEL} {WAIT_FOR}"""),
    "asyncio-dev.html": ("Developing with asyncio", f"""By default asyncio runs in production mode. {DEBUG}"""),
    "garden.html": ("Tomatoes", "Tomatoes grow best in warm sun with regular watering in the summer months."),
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shared-names") / "docs"
    folder.mkdir()
    for name, (title, text) in PAGES.items():
        (folder / name).write_text(f"<html><head><title>{title}</title></head><body><h1>{title}</h1>"
                                   f"<p>{' '.join(text.split())}</p></body></html>", encoding="utf-8")
    return folder


def _quoted(report: str) -> list[str]:
    return re.findall(r"^- (.*?) \[\d+\]$", report, re.MULTILINE)


@pytest.mark.slow
@pytest.mark.parametrize("question,wanted,unwanted", [
    (GERMAN, CANCEL, SOURCE_CODE),
    (NOISY, WAIT_FOR, SOURCE_CODE),
    (JAPANESE, None, SOURCE_CODE),
])
def test_an_offline_run_over_english_pages_quotes_what_the_question_shares_with_them(
        offline_settings, corpus, question, wanted, unwanted):
    settings = offline_settings(search="corpus", corpus_dir=corpus, allow_clarification=False,
                                max_review_iterations=1)
    index_directory(settings.corpus_dir, settings.corpus_index_path)
    out = asyncio.run(run_turn("console:shared", question=question, settings=settings))
    report = out.artifacts.report_md.read_text(encoding="utf-8")
    quoted = [re.sub(r"\\(.)", r"\1", q) for q in _quoted(report)]
    if wanted:
        assert wanted in quoted, report
    assert unwanted not in re.sub(r"\\(.)", r"\1", report), report
