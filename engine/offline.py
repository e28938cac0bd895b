"""The offline model: a deterministic, network-free extractive chat model that drives every node.

It is a LangChain chat model like any other: it reads the prompt (each starts with a ``Task:``
line), answers with tool calls when tools are bound, and with a schema's tool call for
structured output, so the research graph runs exactly the same code as with a real model.
Its "writing" is extractive: sentences from the sources chosen for the topic
(:mod:`engine.offline_select`: stemmed BM25+, a relevance floor, maximal marginal relevance),
with their citations kept.
"""

from __future__ import annotations

import functools
import json
import re
import uuid
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

from engine import offline_review as R
from engine import offline_synthesis as S
from engine import offline_text as T
from engine.citations import SID
from engine.language import NAMES, detect_language
from engine.offline_follow_ups import follow_up_questions, is_question
from engine.offline_phrases import LANGUAGES, phrase
from engine.offline_quotes import _QUOTED, _quote
from engine.offline_select import choose, rank
from engine.segments import latin_length, latin_prefix, paragraphs, sentences, word_count, words
from engine.settings import OFFLINE_MODEL_NAME
from engine.text import ends_as_question, markdown_literal, markdown_unescape, without_end_marks

__all__ = ["OfflineChatModel", "choose", "distinct", "notice", "passages", "rank", "readable"]

MODEL_NAME = OFFLINE_MODEL_NAME


def notice(language: str) -> str:
    """The offline-mode notice in ``language`` (the ``offline_notice`` phrase, English outside
    :data:`engine.offline_phrases.LANGUAGES`)."""
    return phrase("offline_notice", language)


def _tag(text: str, name: str) -> str:
    m = re.search(rf"<{name}>\s*(.*?)\s*</{name}>", text, re.DOTALL)
    return m.group(1).strip() if m else ""


#: What a prompt quotes rather than instructs: its tagged blocks (``<Solution>…</Solution>``) and
#: the lines that carry the user's question or a topic (:mod:`engine.prompts`).
_QUOTED_TEXT = re.compile(r"<([A-Z][\w ]*)>.*?</\1>|^(?:Question:|[^\n]*\b(?:working on|on the topic):)[^\n]*$",
                          re.DOTALL | re.MULTILINE)
#: The prompts' language instruction: "Write in German.", "in German, the language of …", "(German)",
#: "Write in Traditional Chinese." (a name of two words).
_INSTRUCTION = re.compile(r"\bin \(?([A-Z][a-z]+(?: [A-Z][a-z]+)?)\)?(?=[.,;)])")


@functools.cache
def _facet_phrases(language: str) -> frozenset[str]:
    """The facet phrases a topic can end with after " — " (:func:`engine.offline_text.facet_topics`) in
    ``language`` (none outside :data:`engine.offline_phrases.LANGUAGES`): what follows the dash in any
    other topic is the answer to the clarifying question. Written on first use, per language (the
    Traditional Chinese ones load OpenCC)."""
    return frozenset(phrase(key, language) for key, _ in T.FACETS) if language in LANGUAGES else frozenset()


def _language(prompt: str) -> str:
    """The language code the prompt asks to write in (:data:`engine.language.NAMES`), "en" when it
    names none: read from its instructions only, never from the text it quotes (a German solution's
    "kein Ergebnis;", a question asking for a word "in French,"); the last instruction counts."""
    names = {name: code for code, name in NAMES.items()}
    found = [m.group(1) for m in _INSTRUCTION.finditer(_QUOTED_TEXT.sub("", prompt)) if m.group(1) in names]
    return names[found[-1]] if found else "en"


def distinct(sentences_: list[str]) -> list[str]:
    """``sentences_`` in order, without any whose words repeat, or are repeated by, an earlier one
    (a list intro merged with its first item must not appear twice)."""
    kept: list[str] = []
    seen: list[str] = []
    for s in sentences_:
        norm = " ".join(words(s))
        if norm and not any(norm in other or other in norm for other in seen):
            kept.append(s)
            seen.append(norm)
    return kept


#: Characters of a suggested follow-up question at most, as the summary prompt asks of a model
#: (:data:`engine.prompts.EXECUTIVE_SUMMARY`): a longer one would be cut mid-phrase.
FOLLOW_UP_MAX = 200


def _whole_objections(objections: str) -> str:
    """The lines of ``objections`` (the review's, as the summary prompt carries them, cut to its
    length) that are whole: each ends as a sentence does and closes every quote it opens; the line
    the prompt's cut ended is left out, so no follow-up quotes a piece of it."""
    def whole(line: str) -> bool:
        text = line.strip()
        return text.endswith(_SENTENCE_END) and not re.search(r"[“”„«»「」]", _QUOTED.sub("", text))

    return "\n".join(line for line in objections.splitlines() if not line.strip() or whole(line))


def _whole_follow_ups(questions: list[str], question: str, language: str) -> list[str]:
    """``questions`` (follow-ups) that quote whole phrases: none longer than :data:`FOLLOW_UP_MAX`
    characters (a chat would cut it), none quoting a shortened objection or word ("“the payback
    period…”"); the question each names may be shortened (:func:`engine.offline_text._short`) or name
    it without the words it asks about (:func:`engine.offline_follow_ups.is_question`: "“Which inverters
    are …”"). None is left when nothing whole can be asked: a question of one 8,000-letter word."""
    topic = _quote(without_end_marks(question), language, 80) if question.strip() else "…"
    return [q for q in questions
            if len(q) <= FOLLOW_UP_MAX
            and not any(part.rstrip().endswith("…") and not is_question(part, question)
                        for part in _QUOTED.findall(q.replace(topic, "")))]


#: Latin letters' worth (:func:`engine.segments.latin_length`) of Chinese, Japanese or Korean text that
#: make a question clear enough to research without asking, as three content words do in English (a word
#: and its space are six to seven letters): "少子化" (12) is asked about, "日本の少子化の原因" is not.
CLEAR_DENSE = 20

#: How a prose sentence ends; code lines, table rows and list intros ("as follows:") end otherwise.
_SENTENCE_END = (".", "!", "?", "…", "。", "！", "？")


#: The shortest and the longest prose sentence quoted, in Latin letters' worth
#: (:func:`engine.segments.latin_length`: a Japanese sentence of 24 characters says what an English one of
#: 60 does): a shorter one is a fragment or a caption, a longer one a run-on list or a paragraph without stops.
SENTENCE_MIN = 40
SENTENCE_MAX = 500


def _asks(s: str) -> bool:
    """True when ``s`` ends as a question does (:func:`engine.text.ends_as_question`): a FAQ's "Q: …?"
    or a page's rhetorical question names what it asks about and says nothing of it, so it is no finding."""
    return ends_as_question(s)


def _good_sentence(s: str, minimum: float = SENTENCE_MIN) -> bool:
    """True for a prose sentence worth quoting: ``minimum`` (:data:`SENTENCE_MIN` unless given) to
    :data:`SENTENCE_MAX` long, six tenths of it letters (both measured by :func:`engine.segments.latin_length`),
    ending as a sentence does but not as a question (:func:`_asks`), and no list, table row, heading or address."""
    size = latin_length(s)
    letters = latin_length("".join(ch for ch in s if ch.isalpha()))
    listing = s.count("(") > 3 or s.count("|") > 1 or s.count("*") > 3
    prose = s.rstrip("\"'”’»« ").endswith(_SENTENCE_END) and not _asks(s)
    return (minimum <= size <= SENTENCE_MAX and letters >= 0.6 * size and prose and not listing
            and not s.startswith(("#", "|", "URL:", "-")))


#: The fewest words of a sentence shorter than :data:`SENTENCE_MIN` that may be quoted
#: (:func:`_short_answer`), and the fewest of the question's words it must name.
SHORT_ANSWER_WORDS = 3
SHORT_ANSWER_NAMED = 2


def _short_answer(s: str, wanted: frozenset[str]) -> bool:
    """True for a prose sentence shorter than :data:`SENTENCE_MIN` that answers the question on its own:
    at least :data:`SHORT_ANSWER_WORDS` words, :data:`SHORT_ANSWER_NAMED` of them among ``wanted`` (the
    question's content words, :func:`engine.offline_text.content_words`), as "Solar panels make no noise at
    all." names "solar", "panels" and "noise" of "How much noise do solar panels make?"; "Their inverters
    hum quietly." or "See the table below." names none and stays out."""
    return (len(words(s)) >= SHORT_ANSWER_WORDS and _good_sentence(s, minimum=0)
            and len(wanted & set(T.content_words(s))) >= SHORT_ANSWER_NAMED)


#: Words of a page summary: the most the summarisation prompt allows (prompts.SUMMARIZE_PAGE), counted
#: as :func:`engine.segments.word_count` does (a Japanese sentence is its words, not one).
SUMMARY_WORDS = 300
#: The start of a page that stands for its summary when no passage of it can be quoted, in Latin letters'
#: worth (:func:`engine.segments.latin_length`).
SUMMARY_FALLBACK = 600
#: The chat thread's discussion kept as background of a research brief, in Latin letters' worth.
BACKGROUND_MAX = 1500
#: Notes kept per research topic, and at most per source among them (so one long page does not
#: crowd out the others).
NOTES_PER_TOPIC = 8
NOTES_PER_SOURCE = 4
#: The longest short passage (a line, a CSV row) quoted when a text has no prose sentence, in Latin
#: letters' worth (:func:`engine.segments.latin_length`).
SHORT_PASSAGE_MAX = 300


def readable(sentences_: list[str], wanted: frozenset[str] = frozenset(), query: str = "") -> list[str]:
    """The prose sentences (:func:`_good_sentence`, or shorter ones that name the question's words
    ``wanted``: :func:`_short_answer`) of ``sentences_`` that read on their own.

    A code line is dropped; a sentence that opens with a reference to what came before ("They cost
    more.", "That depends.", "However this ...", see :func:`engine.offline_review.flaw`) is kept only
    joined to the sentence before it, and only when that one names what ``query`` asks about
    (:func:`_names_the_topic`: "Heat pumps are efficient. They cost more." for "How much do heat pumps
    cost?"); after a sentence on another subject ("Gas boilers burn gas to heat water.") it is
    dropped, as what it says is said of that subject. Without ``query`` it is joined to any.
    ``sentences_`` are taken as one paragraph's (:func:`passages` gives them so).
    """
    out: list[str] = []
    prev = ""
    for s in sentences_:
        kind = R.flaw(s)
        if kind and kind[0] == "code":
            prev = ""
            continue
        if kind:
            joined = f"{prev} {s}" if prev and (not query or _names_the_topic(prev, query)) else ""
            if joined and _good_sentence(joined) and not R.flaw(joined):
                if out and out[-1] == prev:
                    out[-1] = joined
                else:
                    out.append(joined)
            prev = joined if joined else ""
            continue
        if _good_sentence(s) or _short_answer(s, wanted):
            out.append(s)
        prev = s
    return out


def _names_the_topic(before: str, query: str) -> bool:
    """True when ``before``, the sentence before one that leans on it ("They cost more."), names what
    ``query`` asks about: two of the terms of the question's subject (:func:`_topic_terms`: "heat",
    "pump" of "How much do heat pumps cost?", not the verb "cost"), or all of them when it has fewer.
    "In cold weather the heat pump needs more electricity." names them; "Gas boilers burn natural gas
    to heat water." does not ("They" are gas boilers), nor "Heat pumps cost more." for "How much do
    gas boilers cost?". True when the question names no subject (nothing to tell a topic by)."""
    from engine.offline_terms import terms

    language = detect_language(query)
    topic = _topic_terms(query, language)
    return len(topic & set(terms(before, language))) >= min(TOPIC_NAMED, len(topic))


#: How many of the terms of a question's subject (:func:`_topic_terms`) a sentence must name, at most, for
#: one that leans on it to be quoted joined to it (:func:`readable`).
TOPIC_NAMED = 2


def _topic_terms(query: str, language: str) -> set[str]:
    """The stemmed terms (:func:`engine.offline_terms.query_terms`) of what ``query`` asks about: its
    subject as written (:func:`engine.offline_list_pronouns.subject_as_written`: "heat pumps" of "How
    much do heat pumps cost", not the verb "cost"), and the words after a preposition that says
    whose ("heat pumps" of "What are the pros and cons of heat pumps":
    :data:`engine.offline_list_words.GENITIVES`); its terms (:func:`engine.offline_terms.query_terms`)
    when it has neither."""
    from engine.offline_list_pronouns import subject_as_written
    from engine.offline_list_words import GENITIVES
    from engine.offline_terms import query_terms

    tokens = query.strip(T._ENDS).split()  # "do" is Portuguese "of" and an English auxiliary
    of = next((i for i, t in enumerate(tokens) if i and t.lower() in GENITIVES - T._AUXILIARIES), None)
    named = [subject_as_written(query.strip(T._ENDS), language), " ".join(tokens[of + 1:]) if of else ""]
    found = {t for phrase_ in named for t in query_terms(phrase_, language)} if any(named) else set()
    return found or set(query_terms(query, language))


def passages(text: str, query: str) -> list[str]:
    """What may be quoted from ``text``: its prose sentences that read on their own, short ones among
    them when they name two of ``query``'s words (:func:`readable`, paragraph by paragraph: a sentence that refers to the one before it, "It was
    released in 2024", is joined to it only within one paragraph and when that one names what
    ``query`` asks about; after a blank line or a sentence on another subject it is dropped), else, for a short file or a table, its
    short sentences and lines (CSV rows) that share a word with ``query``, no code line among them
    (a command line, :func:`engine.offline_review.flaw`), none that refers to a line before it ("It …",
    a FAQ's "A: …") nor a question (:func:`_asks`)."""
    wanted = frozenset(T.content_words(query))
    good = distinct([s for paragraph in T.labelled(paragraphs(text)) for s in readable(sentences(paragraph), wanted, query)])
    if good:
        return good
    short = [s.strip() for line in text.splitlines() for s in sentences(line)]
    return distinct([s for s in short if 0 < latin_length(s) <= SHORT_PASSAGE_MAX and not s.startswith(("#", "URL:", "Title:"))
                     and wanted & set(words(s)) and R.flaw(s) is None and not _asks(s)])


class OfflineChatModel(BaseChatModel):
    """Deterministic extractive chat model (no network) for demos, smoke tests and offline use.

    ``role`` is the settings role it stands in for. Output carries ``usage_metadata`` (tokens
    estimated as characters / 4) and ``finish_reason`` like a real model's.
    """

    role: str = "research"

    @property
    def _llm_type(self) -> str:
        return "offline-extractive"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": MODEL_NAME, "role": self.role}

    def bind_tools(self, tools: list, *, tool_choice: Any = None, **kwargs: Any):
        """Bind tools as OpenAI tool schemas (the structured-output path uses this too)."""
        formatted = [convert_to_openai_tool(t) for t in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        tools = [t["function"]["name"] for t in kwargs.get("tools") or []]
        prompt = "\n\n".join(m.text for m in messages if not isinstance(m, ToolMessage))
        m = re.search(r"^Task: (\w+)", prompt, re.MULTILINE)
        task = m.group(1) if m else "chat"
        handler = getattr(self, f"_task_{task}", None)
        content, calls = handler(prompt, messages, tools) if handler else (T.chat_reply(prompt), [])
        message = AIMessage(
            content=content,
            tool_calls=[
                {"name": name, "args": args, "id": f"call_{uuid.uuid5(uuid.NAMESPACE_OID, prompt + name + json.dumps(args, sort_keys=True)).hex[:20]}", "type": "tool_call"}
                for name, args in calls
            ],
            response_metadata={"finish_reason": "tool_calls" if calls else "stop", "model_name": MODEL_NAME},
            usage_metadata={
                "input_tokens": sum(len(x.text) for x in messages) // 4 + 1,
                "output_tokens": (len(content) + len(json.dumps([c[1] for c in calls]))) // 4 + 1,
                "total_tokens": 0,
            },
        )
        message.usage_metadata["total_tokens"] = (
            message.usage_metadata["input_tokens"] + message.usage_metadata["output_tokens"]
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    # ---- tasks: each returns (content, [(tool name, args), ...]) -------------------------
    def _task_clarify_with_user(self, prompt: str, messages, tools):
        convo = _tag(prompt, "Messages")
        user_turns = re.findall(r"^User: (.*)$", convo, re.MULTILINE)
        asked = re.search(r"^Assistant: ", convo, re.MULTILINE) is not None
        language = _language(prompt)
        text = " ".join(user_turns)
        # three content words; a question in a script that says much in few characters (Chinese, Japanese,
        # Korean), whose words ICU may join, also by what its characters measure
        dense = latin_length("".join(ch for ch in text if latin_length(ch) > 1))
        vague = len([w for w in words(text) if w not in T.STOPWORDS]) < 3 and dense < CLEAR_DENSE
        if vague and not asked:
            args = {"need_clarification": True, "question": T.clarifying_question(text, language), "verification": ""}
        else:
            args = {"need_clarification": False, "question": "", "verification": phrase("starting", language)}
        return "", [("ClarifyWithUser", args)]

    def _task_write_research_brief(self, prompt: str, messages, tools):
        convo = _tag(prompt, "Messages")
        user_turns = [t.strip() for t in re.findall(r"^User: (.*)$", convo, re.MULTILINE)]
        brief = " — ".join(user_turns) or convo  # the question, then the answer that narrowed it
        thread = " ".join(_tag(prompt, "Conversation").split())
        if thread:  # the chat thread's discussion, as background of the brief
            brief += f"{T.BACKGROUND}{latin_prefix(thread, BACKGROUND_MAX)}"
        return "", [("ResearchQuestion", {"research_brief": brief})]

    def _task_supervisor(self, prompt: str, messages, tools):
        if any(isinstance(m, ToolMessage) for m in messages):
            return "", [("ResearchComplete", {})]
        brief = _tag(prompt, "Research Brief")
        m = re.search(r"at most (\d+) topics", prompt)
        limit = max(1, int(m.group(1))) if m else 5
        topics = T.plan_topics(brief, max(limit, 5), _language(prompt))
        return "", [("ConductResearch", {"research_topic": t}) for t in topics]

    def _task_researcher(self, prompt: str, messages, tools):
        if any(isinstance(m, ToolMessage) and m.name in ("search", "search_thread_files") for m in messages):
            return phrase("research_done", "en"), []
        topic = _tag(prompt, "Topic")
        calls = [("search", {"queries": [topic]})]
        if "search_thread_files" in tools:  # the thread's files, the same way as the corpus
            calls.append(("search_thread_files", {"queries": [topic]}))
        return "", calls

    def _task_summarize_webpage(self, prompt: str, messages, tools):
        m = re.search(r"working on: (.*)", prompt)
        # the run's research brief, without the chat thread's talk (no topic: plan_topics)
        query = (m.group(1) if m else "").split(T.BACKGROUND.strip())[0].strip(" —")
        doc = _tag(prompt, "Document")
        cands = passages(doc, query)
        # the whole budget the prompt allows: a page is summarised once per run, for the whole brief,
        # and each sub-question that finds it needs more than the brief's few best sentences
        top = choose(cands, query, len(cands), detect_language(query), floor=0)
        kept, used = set(), 0
        for s in top:  # words as a budget counts them in any language: 300 words of Japanese are not 300 sentences
            if used + word_count(s) > SUMMARY_WORDS:
                break
            kept.add(s)
            used += word_count(s)
        ordered = [s for s in cands if s in kept]
        return "", [("Summary", {"summary": "\n\n".join(ordered) or latin_prefix(doc, SUMMARY_FALLBACK),
                                 "key_excerpts": top[:3]})]

    def _task_compress_research(self, prompt: str, messages, tools):
        topic = re.search(r"on the topic: (.*)", prompt)
        query = topic.group(1) if topic else ""
        language = _language(prompt)
        pool: list[tuple[str, str]] = []
        found = 0
        for block in re.split(r"^--- SOURCE ", _tag(prompt, "Search results"), flags=re.MULTILINE):
            sid = SID.match(block)
            if not sid:
                continue
            found += 1
            body = re.sub(r"^(URL|Title):.*$", "", block.split("\n", 1)[-1], flags=re.MULTILINE)
            # the summary and each key excerpt (joined by " | ") are separate passages
            body = body.replace("SUMMARY:", "\n\n").replace("KEY EXCERPTS:", "\n\n").replace(" | ", "\n\n")
            pool += [(s, sid.group(1)) for s in passages(body, query)]
        keep = distinct([s for s, _ in pool])
        sid_of = {s: sid for s, sid in reversed(pool)}  # a sentence two sources share: the first one's
        # "subject — facet" or "subject — the answer to the clarifying question": a passage is about
        # the subject, not only about the words after the dash ("limitations and problems")
        subject, _, after = query.partition(" — ")
        if not after:
            # a listed item's sub-question ("How much noise do heat pumps make"): a passage names what
            # the question asks of every item ("noise"), not the item alone ("rent heat pumps"); a verb
            # phrase's ("How does asyncio cancel tasks"), its verb ("cancel"), not the subject alone
            subject = T.asked_of(_tag(prompt, "Research Brief"), query, language)
        groups = [sid_of[s] for s in keep]
        best = set(choose(keep, query, NOTES_PER_TOPIC, language, groups=groups,
                          per_group=NOTES_PER_SOURCE, subject=subject))
        if not best and after and after not in _facet_phrases(language):
            # the answer to the clarifying question narrows what is quoted, it never empties it: when no
            # passage names its words ("for skyscrapers"), those about the question are quoted
            best = set(choose(keep, subject, NOTES_PER_TOPIC, language, groups=groups, per_group=NOTES_PER_SOURCE))
        # a page's text is plain: its *args and __init__ are written, not emphasis
        lines = [f"- {markdown_literal(s)} [{sid_of[s]}]" for s in keep if s in best]
        none = phrase("no_passages", language, found, n=str(found)) if found else phrase("no_findings", language)
        return "\n".join(lines) or none, []

    def _task_final_report(self, prompt: str, messages, tools):
        language = _language(prompt)
        return T.extractive_report(
            brief=_tag(prompt, "Research Brief"),
            findings=_tag(prompt, "Findings"),
            language=language,
            notice=notice(language),
            sources_found=R.found_sources(_tag(prompt, "Sources"))[0],
        ), []

    def _review_tools_first(self, messages, tools, wanted: tuple[str, ...]) -> list:
        """The calls of ``wanted`` tools that are bound, on a role's first turn; [] after it."""
        if any(isinstance(m, ToolMessage) for m in messages):
            return []
        return [(name, {}) for name in wanted if name in tools]

    @staticmethod
    def _tool_text(messages, name: str) -> str:
        return "\n\n".join(m.text for m in messages if isinstance(m, ToolMessage) and m.name == name)

    def _task_solution(self, prompt: str, messages, tools):
        if calls := self._review_tools_first(messages, tools, ("read_findings",)):
            return "", calls
        return R.solution(prompt, _language(prompt)), []

    def _task_critique(self, prompt: str, messages, tools):
        if calls := self._review_tools_first(messages, tools, ("list_sources", "read_findings")):
            return "", calls
        return R.critique(prompt, self._tool_text(messages, "list_sources"),
                          self._tool_text(messages, "read_findings"), _language(prompt)), []

    def _task_perspective(self, prompt: str, messages, tools):
        if calls := self._review_tools_first(messages, tools, ("read_findings",)):
            return "", calls
        return R.perspective(prompt, self._tool_text(messages, "read_findings"), _language(prompt)), []

    def _task_finalize(self, prompt: str, messages, tools):
        language = _language(prompt)
        return S.finalize(prompt, language, notice(language)), []

    def _task_executive_summary(self, prompt: str, messages, tools):
        report = _tag(prompt, "Report")
        title = next((markdown_unescape(line[2:].strip()) for line in report.splitlines() if line.startswith("# ")),
                     "Research report")
        findings = report.split(f"## {phrase('review_outcome', _language(prompt))}", 1)[0]  # its review left out
        cited = [re.sub(r"^\s*[-*]\s+", "", line).strip() for line in findings.splitlines()
                 if re.match(r"^\s*[-*]\s+", line) and SID.search(line)]
        cited = list(dict.fromkeys(cited))
        language = _language(prompt)
        top = choose(cited, title, 3, language, floor=0)
        summary = " ".join(s for s in cited if s in top) or T.first_statement(report) or phrase("no_findings", language)
        objections = _tag(prompt, "Open objections").split("### Perspective", 1)
        still_open = S.still_open(objections[1], findings, language) if len(objections) > 1 else ""
        question = re.search(r"^Question: (.*)$", prompt, re.MULTILINE)
        # an answer to a clarifying question narrowed the question already: no follow-up asks for it again
        follow_ups = _whole_follow_ups(follow_up_questions(_whole_objections(still_open),
                                                             question.group(1) if question else title, language,
                                                             sources_read=S.read_sources(report, language),
                                                             clarified=bool(_tag(prompt, "Clarification"))),
                                       question.group(1) if question else title, language)
        return "", [("ExecutiveSummary", {"title": T._short(title, 120),
                                          "executive_summary": T._short(summary, 1500),
                                          "follow_up_questions": follow_ups})]
