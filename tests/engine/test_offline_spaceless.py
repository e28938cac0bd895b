"""A question in a language written without spaces (Japanese, Chinese) is researched by its words:
the Latin names in it ("asyncio", "Task") find the English documents about them, whose passages the
report quotes, and the review and its follow-up questions quote the question's words, not its chunks."""

from __future__ import annotations

import asyncio
import re

import pytest

from engine.offline_follow_ups import is_question
from engine.runner import run_turn
from tests.engine.test_offline_and_process import corpus_settings

DOCS = {
    "tasks.md": "# Coroutines and Tasks\n\nA running Task is cancelled with its cancel() method, which throws a "
    "CancelledError into the wrapped coroutine on the next cycle of the event loop. The asyncio.timeout() "
    "context manager cancels the current task when the timeout expires and raises TimeoutError instead.\n",
    "asyncio.md": "# The asyncio library\n\nThe asyncio module runs coroutines concurrently on one thread with an "
    "event loop. Programs written with asyncio use async and await to wait for input and output.\n",
    "garden.md": "# Tomatoes\n\nTomatoes grow best in warm sun with regular watering in the summer months.\n",
}
_QUOTED = re.compile(r"[“„«]\s?(.+?)\s?[”“»]")


@pytest.mark.slow
@pytest.mark.parametrize("question", [
    # a Latin name besides the pages' subject ("asyncio", which all of them carry: quoted alone, a
    # sentence naming it says nothing about the question, test_offline_shared_names.py)
    "asyncioはTaskをどのようにキャンセルし、タイムアウトをどう扱いますか？",
    "asyncio如何取消Task并处理超时？",
])
def test_a_question_without_spaces_quotes_the_english_passages_on_its_latin_names(offline_settings, tmp_path,
                                                                                 question):
    settings = corpus_settings(offline_settings, tmp_path, DOCS, allow_clarification=False)
    out = asyncio.run(run_turn("console:cjk", question=question, settings=settings))
    report = out.artifacts.report_md.read_text()
    quoted = re.findall(r"^- (.*asyncio.*) \[\d+\]$", report, re.MULTILINE | re.IGNORECASE)
    assert quoted, report
    assert "Tomatoes" not in report.split("## Sources", 1)[0], report  # nothing about the garden is quoted
    chunk = re.compile(r"[はをに如并]")  # a particle glued to a word: a chunk of the question, not a word
    objections = report.split("## Open objections", 1)[-1].split("\n## ", 1)[0]
    for text in (objections, *out.follow_ups):
        # the question itself is named too, whole or without the words a follow-up asks about
        assert not [q for q in _QUOTED.findall(text.replace(question.rstrip("？"), ""))
                    if chunk.search(q) and not is_question(q, question)], text
