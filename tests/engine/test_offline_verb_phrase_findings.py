"""A question of two verb phrases of one subject ("How does asyncio cancel tasks and handle timeouts?")
is researched as two ("How does asyncio cancel tasks", "How does asyncio handle timeouts"); what each
asks is its verb ("cancel"; the object when the verb only asks how: "timeouts" of "handle timeouts"), so
a sentence quoted under it names that, not only the subject and the object every page of the subject
carries ("The signature matches that of asyncio.create_task()." says nothing of cancelling)."""

from __future__ import annotations

import pytest

from engine import offline_text as T
from engine.offline import OfflineChatModel

QUESTION = "How does asyncio cancel tasks and handle timeouts?"
TASKS = (
    "When a task is cancelled, asyncio.CancelledError will be raised in the task at the next opportunity. "
    "The signature matches that of asyncio.create_task(). "
    "Task.cancel() does not guarantee that the Task will be cancelled in asyncio."
)
TIMEOUTS = (
    "The asyncio.timeout() context manager turns the asyncio.CancelledError into an asyncio.TimeoutError. "
    "Use asyncio.wait_for() to wait for a task with a timeout."
)
RUNNERS = "The asyncio runner creates the main task for the coroutine it runs and closes the event loop."
FUTURES = (
    "Cancel the Future and schedule its callbacks. If the Future is already done or cancelled, it returns "
    "False. A cancelled Future raises CancelledError from its result() method."
)
ERRORS = (
    "The operation has been cancelled: asyncio.CancelledError is raised when a task or a future is cancelled."
)
#: The pages the sub-question finds: "asyncio", "task" and "cancel" each on most of them, as in Python's docs.
PAGES = [TASKS, TIMEOUTS, RUNNERS, FUTURES, ERRORS]


def _findings(question: str, topic: str, pages: list[str]) -> str:
    sources = "".join(
        f"--- SOURCE [S00000{i}]\nTitle: page {i}\n{page}\n\n" for i, page in enumerate(pages, 1)
    )
    prompt = (
        f"Clean up the findings on the topic: {topic}\n<Research Brief>{question}</Research Brief>\n"
        f"<Search results>\n{sources}</Search results>"
    )
    return OfflineChatModel()._task_compress_research(prompt, [], [])[0]


@pytest.mark.parametrize(
    ("topic", "asked"),
    [
        ("How does asyncio cancel tasks", "cancel"),
        ("How does asyncio handle timeouts", "handle timeouts"),  # "handle" only asks how
    ],
)
def test_a_verb_phrase_asks_its_verb(topic, asked):
    assert T.asked_of(QUESTION, topic) == asked


def test_a_listed_item_still_asks_its_frame_and_a_question_of_its_own_nothing():
    assert (
        T.asked_of(
            "How much noise do heat pumps and wind turbines make?", "How much noise do heat pumps make"
        )
        == "How much noise do … make"
    )
    assert (
        T.asked_of(
            "How do subprocess pipes deadlock and how to avoid it?", "How do subprocess pipes deadlock"
        )
        == ""
    )
    assert T.asked_of("How does asyncio cancel tasks?", "How does asyncio cancel tasks") == ""


def test_a_sentence_that_names_the_subject_and_the_object_but_not_the_verb_is_not_quoted():
    found = _findings(QUESTION, "How does asyncio cancel tasks", PAGES)
    assert "When a task is cancelled" in found, found
    assert "Task.cancel() does not guarantee" in found, found
    assert "signature" not in found, found
    assert "runner creates the main task" not in found, found


def test_the_other_verb_phrase_quotes_what_names_its_object():
    found = _findings(QUESTION, "How does asyncio handle timeouts", PAGES)
    assert "TimeoutError" in found and "wait_for" in found, found
    assert "signature" not in found, found
