"""Follow-up research questions the offline model offers below its report, from the review's open objections.

A follow-up is the text of a new research (a chat button starts one with it): it names the whole
question, or leaves it out where the words it quotes are the question already, and what tells the
follow-ups apart comes first (:data:`engine.offline_phrases.PHRASES`).
"""

from __future__ import annotations

import re

from engine.citations import SID
from engine.offline_phrases import phrase
from engine.offline_quotes import _QUOTED, _quote, _quoted, _unquoted
from engine.offline_review import MAX_QUOTED, _terms
from engine.offline_terms import QUESTION_VERBS, named_tokens, terms, word_spans
from engine.offline_text import _short, content_words
from engine.text import markdown_unescape, without_end_marks


def follow_up_questions(objections: str, question: str, language: str, limit: int = 3, *,
                        sources_read: bool = True, clarified: bool = False) -> list[str]:
    """Follow-up research questions from the review's open objections (``- Role: text`` lines).

    The reader's objections give "how does the finding … bear on …" (a finding left out) or "what
    do the sources say about …" (words of the question left unanswered); any other objection
    gives "what does the evidence say about …, an objection to …", quoting its first clause. Without a
    source read (``sources_read`` False, see :func:`read_sources`) none speaks of sources, which
    a follow-up would again not find: the question's words left unanswered give "which use case,
    period or region should … be narrowed to" and "which data or documents would settle …", any
    other objection "which data or documents would settle …, an objection to …" (and a finding left
    out, which quotes a source, none). So do words that are the whole question when sources were read
    (every content word of it left unanswered): "what do the sources say about" them would be the
    question again. None asks to narrow a question the asker's answer to a clarifying question
    narrowed already (``clarified``).

    Each names the whole question, so that it reads on its own as a new research question (a chat
    button starts one with it): "about “best” for “Which heat pumps work best in cold climates”"; when
    the words, the finding or the objection quoted name every word of the question already (a one-word
    question is the very word left unanswered: :func:`_without` leaves nothing), the phrase's
    ``_no_topic`` form leaves the question out (:func:`_names_question`). What tells the follow-ups apart comes first in every phrase, before the
    question (:data:`engine.offline_phrases.PHRASES`): a chat button shows only their first 75
    characters. None without objections. ``objections`` is Markdown and ``question`` plain text; the
    questions are plain text (a chat button's label, a new question).
    """
    asked = without_end_marks(question)

    def topic(text: str) -> str:
        return _quote(text, language, 80) if text.strip() else "…"

    reader = phrase("reader", language).casefold()

    def ask(key: str, part: str, **fmt: str) -> str:
        alone = _names_question(part, question, language)
        return phrase(f"{key}_no_topic", language, **fmt) if alone else phrase(key, language, topic=topic(asked), **fmt)

    def ask_words(key: str, said: list[str], **fmt: str) -> str:
        whole = not _without(asked, said, language)  # the words are the whole question: not named twice
        return phrase(f"{key}_no_topic", language, **fmt) if whole else phrase(key, language, topic=topic(asked), **fmt)

    out: list[str] = []
    for line in objections.splitlines():
        item = re.match(r"^\s*[-*]\s+(?:(?:As an? |Als |En tant que |Como )?([^:：]{1,40})[:：]\s*)?(.+)$", line)
        if not item:
            continue
        # the objection is Markdown (its quotes escaped); a follow-up question is plain text
        label, rest = (item.group(1) or "").strip().casefold(), markdown_unescape(item.group(2).strip())
        quoted = _QUOTED.findall(rest)
        finding = label == reader and bool(quoted) and bool(SID.search(rest))  # a finding left out
        said = quoted[:MAX_QUOTED] if label == reader and quoted and not finding else []
        words_ = _terms(said, language, markdown=False)
        point = _short(re.split(r"[;?!]|\.(?!\S)", rest)[0], 100)  # a full stop, not one inside "1.5" or "asyncio.run"
        quoted_point = _quoted(point, language)
        if finding:  # it quotes what a source said: none in a run that read no source
            texts = [ask("follow_up_finding", quoted[0], q=_quote(quoted[0], language, 100))] if sources_read else []
        elif said and sources_read and _without(asked, said, language):
            texts = [ask_words("follow_up_terms", said, terms=words_)]
        elif said:  # no source read, or the words are the whole question: narrow it, name the evidence
            texts = [*([] if clarified else [phrase("follow_up_narrow", language, topic=topic(asked))]),
                     ask_words("follow_up_evidence_terms", said, terms=words_)]
        elif sources_read:
            texts = [ask("follow_up_other", point, point=quoted_point)]
        else:
            texts = [ask("follow_up_evidence_other", point, point=quoted_point)]
        out += [text for text in texts if text not in out]
    return out[:limit]


def _without(question: str, said: list[str], language: str) -> str:
    """``question`` (plain text) with the words of ``said`` (as the question writes them, case aside;
    a name with its symbols one word, :func:`engine.offline_terms.word_spans`) left out: each run of
    them, with the words of grammar between them, one "…" ("Which heat pumps work … in cold
    climates"); ``question`` as it is when it writes none of them. "" when no content word of it
    (:func:`engine.offline_text.content_words`, not a verb that asks how,
    :data:`engine.offline_terms.QUESTION_VERBS`) is left: ``said`` is the whole question."""
    wanted = {t.casefold() for w in said for t in named_tokens(w)}  # a phrase's words ("heat pumps")
    spans = word_spans(question)
    tokens = [question[a:b] for a, b in spans]
    gone = [t.casefold() in wanted for t in tokens]
    content = [bool(content_words(t, names=True)) and t.lower() not in QUESTION_VERBS for t in tokens]
    if not any(c and not g for c, g in zip(content, gone, strict=True)):
        return ""
    out, at, i = [], 0, 0
    while i < len(tokens):
        if not gone[i]:
            i += 1
            continue
        last = k = i
        while k + 1 < len(tokens) and (gone[k + 1] or not content[k + 1]):
            k += 1
            last = k if gone[k] else last
        out.append(question[at:spans[i][0]] + "…")
        at, i = spans[last][1], last + 1
    return "".join(out) + question[at:]


def is_question(part: str, question: str) -> bool:
    """True when ``part`` (the text of a quote in a follow-up, plain) is ``question`` as a follow-up
    names it: whole, shortened (:func:`engine.offline_text._short`) or with words left out
    (:func:`_without`), each "…" standing for what it leaves out; quotation marks read alike."""
    pattern = ".*?".join(re.escape(_unquoted(piece).strip()) for piece in part.split("…"))
    return re.fullmatch(pattern, _unquoted(without_end_marks(question)), re.DOTALL) is not None


def _names_question(part: str, question: str, language: str) -> bool:
    """True when ``part`` (the words, finding or objection a follow-up quotes) holds every content
    word of ``question`` (:func:`engine.offline_text.content_words`; every word when it has none,
    as a two-character Chinese question "热泵" has), compared by their Snowball stem in
    ``language`` (:func:`engine.offline_terms.terms`): naming the question after it would name
    the same thing twice."""
    asked = set(terms(" ".join(content_words(question, names=True) or named_tokens(question)), language))
    return bool(asked) and asked <= set(terms(part, language))
