"""An answer stopped at the model's output limit, kept to its last whole paragraph (engine.graph.output_limit)."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage

from engine.graph.output_limit import cut_answer, output_limit_note, whole_paragraphs


@pytest.mark.parametrize(("text", "kept"), [
    # the last block is the one the limit cut
    ("# T\n\nOne whole paragraph.\n\nA second one cut in the mid", "# T\n\nOne whole paragraph."),
    # an open code fence is never kept, even when its lines look whole
    ("Intro [S1a2b3c].\n\n```python\nx = 1\ny = 2\n", "Intro [S1a2b3c]."),
    # a table cut in a row goes whole
    ("Intro.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 |", "Intro."),
    # a list keeps its whole items
    ("Intro.\n\n- one\n- two\n- thr", "Intro.\n\n- one\n- two"),
    # a heading left at the end introduces nothing
    ("Intro.\n\n## Costs\n\nHeat pumps co", "Intro."),
    ("Intro.\n\n## Costs\n\n---\n\nHeat pumps co", "Intro."),
    # one paragraph only: its whole sentences
    ("# T\n\nThe first sentence. The second (quoted) one.\" The thi", "# T\n\nThe first sentence. The second (quoted) one.\""),
    ("Der erste Satz [S1a2b3c]! Der zwei", "Der erste Satz [S1a2b3c]!"),
    # nothing whole
    ("The first sentence never reaches its e", ""),
    ("```python\nx = 1\n", ""),
    ("", ""),
])
def test_whole_paragraphs(text, kept):
    assert whole_paragraphs(text) == kept


def test_a_cut_answer_carries_its_note_and_an_uncut_one_none():
    cut = cut_answer(AIMessage("Whole.\n\nCut", response_metadata={"finish_reason": "length"}), "final_report", 300)
    assert cut.text == "Whole." and cut.response_metadata["finish_reason"] == "length"
    assert output_limit_note(cut, "the report") == (
        "The language model stopped at its output limit while writing the report, so it ends at its last whole "
        "paragraph (max_tokens 300: raise DEEPRESEARCH_FINAL_REPORT_MAX_OUTPUT_TOKENS (or "
        "DEEPRESEARCH_MAX_OUTPUT_TOKENS for every role)).")
    assert output_limit_note(AIMessage("Whole."), "the report") is None
    unset = cut_answer(AIMessage("Whole.\n\nCut"), "compression", None)
    assert "the server's own limit: set DEEPRESEARCH_COMPRESSION_MAX_OUTPUT_TOKENS" in output_limit_note(unset, "x")
    assert cut_answer(AIMessage("Cut in the mid"), "final_report", 300) is None
