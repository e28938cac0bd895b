"""An answer the model stopped at its output limit (``finish_reason == "length"``): kept up to its
last whole paragraph, with a note that says so and names the setting to raise.

Shortening the input cannot help an answer that ran out of OUTPUT tokens, so such an answer is not
retried (:func:`engine.graph.llm.invoke_with_context_retry`); what the model wrote is delivered up to
its last whole block. The Markdown is split into blocks by mistletoe (the CommonMark parser the
citations use), so the cut never falls inside a sentence, an open code fence or a table.
"""

from __future__ import annotations

import re

from langchain_core.messages import AIMessage

#: ``response_metadata`` key of an answer cut here: ``{"max_tokens": int | None, "role": str}``.
CUT_KEY = "cut_at_output_limit"
# The end of a sentence: terminal punctuation, closing quotes or brackets, then a space or the end.
_SENTENCE_END = re.compile(r"[.!?…。！？][\"'”’)\]]*(?=\s|$)")


def whole_paragraphs(text: str) -> str:
    """``text`` (Markdown cut off at an arbitrary character) up to its last whole block.

    The last block is the one the limit cut, so it is dropped; when it is a list, only its last
    item is. Headings and rules left at the end (they would introduce nothing) are dropped too.
    When no whole block with content remains, the cut paragraph is kept up to its last whole
    sentence. Returns "" when nothing whole is left (for example a cut code block alone).
    """
    from mistletoe import block_token  # a parser only reports need (about 0.15 s to import)

    blocks = _blocks(text)
    if not blocks:
        return ""
    last = blocks[-1]
    cut = last.line_number
    if isinstance(last, block_token.List) and len(last.children or ()) > 1:
        cut = list(last.children)[-1].line_number
    lines = text.splitlines(keepends=True)
    kept = _without_trailing_headings("".join(lines[: cut - 1]))
    if kept or not isinstance(last, block_token.Paragraph):
        return kept
    ends = list(_SENTENCE_END.finditer("".join(lines[last.line_number - 1:])))
    if not ends:
        return ""
    head = "".join(lines[: last.line_number - 1]).rstrip()
    sentences = "".join(lines[last.line_number - 1:])[: ends[-1].end()].strip()
    return f"{head}\n\n{sentences}".strip()


def _blocks(text: str) -> list:
    """The top-level Markdown blocks of ``text`` (mistletoe tokens with a 1-based ``line_number``)."""
    from mistletoe import Document

    from engine.text import MISTLETOE_LOCK

    with MISTLETOE_LOCK:
        return list(Document(text).children or ())


def _without_trailing_headings(text: str) -> str:
    """``text`` without the headings and thematic breaks at its end, stripped."""
    from mistletoe import block_token

    trailing = (block_token.Heading, block_token.SetextHeading, block_token.ThematicBreak)
    while text.strip():
        blocks = _blocks(text)
        if not blocks or not isinstance(blocks[-1], trailing):
            break
        text = "".join(text.splitlines(keepends=True)[: blocks[-1].line_number - 1])
    return text.strip()


def cut_answer(response: AIMessage, role: str, max_tokens: int | None) -> AIMessage | None:
    """``response`` (stopped at its output limit) with its text cut by :func:`whole_paragraphs` and
    :data:`CUT_KEY` in its metadata; None when nothing whole is left."""
    text = whole_paragraphs(response.text.strip())
    if not text:
        return None
    metadata = {**(response.response_metadata or {}), CUT_KEY: {"max_tokens": max_tokens, "role": role}}
    return AIMessage(content=text, response_metadata=metadata, usage_metadata=response.usage_metadata,
                     id=response.id)


def setting_hint(role: str, max_tokens: int | None) -> str:
    """Which setting to raise for ``role``'s answers, with the limit that applied."""
    own = f"DEEPRESEARCH_{role.upper()}_MAX_OUTPUT_TOKENS"
    if max_tokens:
        return f"max_tokens {max_tokens}: raise {own} (or DEEPRESEARCH_MAX_OUTPUT_TOKENS for every role)"
    return f"the server's own limit: set {own} (or DEEPRESEARCH_MAX_OUTPUT_TOKENS for every role)"


def output_limit_note(response: AIMessage, what: str) -> str | None:
    """The line a report carries (Problems section, chat summary) when ``response`` was cut by
    :func:`cut_answer`, else None. ``what`` names the text, e.g. "the report"."""
    cut = (response.response_metadata or {}).get(CUT_KEY)
    if not cut:
        return None
    return (f"The language model stopped at its output limit while writing {what}, so it ends at its last "
            f"whole paragraph ({setting_hint(cut['role'], cut['max_tokens'])}).")
