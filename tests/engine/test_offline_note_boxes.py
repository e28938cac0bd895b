"""A note or warning box ("Note", "Warning" over its text, as Sphinx pages render them) annotates the
entry it sits under: a sentence opening one with "This" or "It" refers to that entry, which no sentence
before it in the box carries, and says what it says of it ("This will deadlock when using
stdout=PIPE …"). It is quoted with its label ("Note: This will deadlock …"), not dropped as a sentence
that leans on one it does not quote."""

from __future__ import annotations

from engine.offline import OfflineChatModel, passages

PAGE = (
    "Popen.wait(timeout=None)\n\nWait for child process to terminate. Set and return returncode attribute.\n\n"
    "Note\n\nThis will deadlock when using stdout=PIPE or stderr=PIPE and the child process generates enough "
    "output to a pipe such that it blocks waiting for the OS pipe buffer to accept more data. Use "
    "Popen.communicate() when using pipes to avoid that.\n\n"
    "Warning\n\nThe function is implemented using a busy loop and short sleeps in the subprocess module.\n\n"
    "They block forever when the pipe buffer of the subprocess fills up and nobody reads from it.\n"
)
QUESTION = "How do subprocess pipes deadlock and how to avoid it?"


def test_a_note_that_opens_with_this_is_quoted_with_its_label():
    found = passages(PAGE, QUESTION)
    assert any(p.startswith("Note: This will deadlock when using stdout=PIPE") for p in found), found


def test_a_box_that_opens_with_its_own_subject_is_quoted_as_written_and_a_leaning_paragraph_still_is_not():
    found = passages(PAGE, QUESTION)
    assert "The function is implemented using a busy loop and short sleeps in the subprocess module." in found
    assert not [p for p in found if "block forever" in p], found  # "They": no label says what they are


def test_the_note_is_a_finding_of_its_sub_question():
    summary = "\n\n".join(passages(PAGE, QUESTION))
    prompt = (
        "Clean up the findings on the topic: How do subprocess pipes deadlock\n"
        f"<Research Brief>{QUESTION}</Research Brief>\n<Search results>\n--- SOURCE [S000001]\n"
        f"Title: subprocess\nSUMMARY:\n{summary}\n</Search results>"
    )
    found = OfflineChatModel()._task_compress_research(prompt, [], [])[0]
    assert "Note: This will deadlock when using stdout=PIPE" in found, found
