"""A scripted research model for the fake OpenAI server: plays every role by the prompt's `Task:` line.

Shared by the engine tests and the benchmarks. It answers in the real wire format (tool calls,
``json_schema`` structured output), so the graph runs through langchain-openai unchanged.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field

from tests.fakes.openai_server import ChatRequest, Reply, text_of


def _task(request: ChatRequest) -> str:
    for m in request.messages:
        content = m.get("content")
        text = content if isinstance(content, str) else " ".join(
            p.get("text", "") for p in content or [] if isinstance(p, dict))
        found = re.search(r"^Task: (\w+)", text or "", re.MULTILINE)
        if found:
            return found.group(1)
    return "unknown"


def _all_text(request: ChatRequest) -> str:
    out = []
    for m in request.messages:
        content = m.get("content")
        out.append(content if isinstance(content, str) else " ".join(
            p.get("text", "") for p in content or [] if isinstance(p, dict)))
    return "\n".join(out)


def _tag(text: str, name: str) -> str:
    found = re.search(rf"<{name}>\s*(.*?)\s*</{name}>", text, re.DOTALL)
    return found.group(1).strip() if found else ""


_ID = re.compile(r"\[(S[0-9a-f]{6})\]")
#: An id no search ever mints: what a model citing a source it never saw would write.
INVENTED_ID = "Sdeadbe"


def ids_in(text: str) -> list[str]:
    """The source ids ``[Sxxxxxx]`` of ``text``, in order of first appearance, without the invented one."""
    return [sid for sid in dict.fromkeys(_ID.findall(text)) if sid != INVENTED_ID]


def with_ids(template: str, ids: list[str]) -> str:
    """``template`` with ``{S1}``, ``{S2}``, ... replaced by ``[id]`` of the prompt's n-th source.

    A placeholder beyond the sources the prompt names becomes the invented id.
    """
    return re.sub(r"\{S(\d+)\}", lambda m: f"[{ids[int(m.group(1)) - 1]}]" if 0 < int(m.group(1)) <= len(ids)
                  else f"[{INVENTED_ID}]", template)


@dataclass
class ScriptedResearch:
    """Handler for :class:`tests.fakes.openai_server.FakeOpenAI` that plays a whole research run.

    Knobs:
        topics: what the supervisor delegates (one ``ConductResearch`` each).
        clarify: ask a clarifying question when no answer is in the conversation yet.
        fail_topics: researchers on these topics get an HTTP 400 (a failed unit).
        slow_topics: ``{topic: seconds}`` extra delay on that researcher's first call.
        report: the final report text; ``{S1}``, ``{S2}``... cite the prompt's first, second...
            source by id (default: two sources, an invented id and a model-written source list).
        title: the title the executive-summary role gives.
        review_reads: the critic calls ``list_sources``, then ``read_source`` on the first id listed.
        findings_per_topic: the compressor keeps at most this many findings a topic (a real
            compressor's notes have a bounded length); None keeps one finding per source.
        context_errors: how many final-report calls fail with ``context_length_exceeded`` first.
        always_truncated: every final-report answer is cut off (``finish_reason=length``).
        role_latency: ``{task: seconds}`` extra delay per task (benchmarks).
        follow_ups: the follow-up questions the executive-summary role suggests (None: the field is left out).
        solution: the solution role's answer (default: a ``## Recommendation`` citing the report's first source).
        synthesis: the final synthesis (default: ``# Final synthesis`` with an ``## Answer`` section).
        summary: the executive summary; ``{S1}``... cite the report's sources (default: "The gist {S1}.").
    """

    topics: list[str] = field(default_factory=lambda: ["topic alpha", "topic beta"])
    clarify: bool = False
    fail_topics: set[str] = field(default_factory=set)
    slow_topics: dict[str, float] = field(default_factory=dict)
    report: str | None = None
    findings_per_topic: int | None = None
    title: str = "Scripted title"
    review_reads: bool = False
    context_errors: int = 0
    always_truncated: bool = False
    role_latency: dict[str, float] = field(default_factory=dict)
    follow_ups: list[str] | None = None
    solution: str | None = None
    synthesis: str | None = None
    summary: str | None = None
    seen: list[tuple[str, str]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, request: ChatRequest) -> Reply:
        task = _task(request)
        text = _all_text(request)
        with self._lock:
            self.seen.append((task, text))
        reply = getattr(self, f"_{task}", self._unknown)(request, text)
        delay = self.role_latency.get(task, 0.0)
        if delay:
            reply = Reply(**{**reply.__dict__, "delay": reply.delay + delay})
        return reply

    def calls(self, task: str) -> list[str]:
        """The full prompt texts of every call of ``task`` so far."""
        with self._lock:
            return [t for k, t in self.seen if k == task]

    # ---- roles ---------------------------------------------------------------------------
    def _clarify_with_user(self, request: ChatRequest, text: str) -> Reply:
        answered = "Assistant:" in _tag(text, "Messages")
        if self.clarify and not answered:
            return Reply.json({"need_clarification": True, "question": "Which region do you mean?", "verification": ""})
        return Reply.json({"need_clarification": False, "question": "", "verification": "Starting."})

    def _write_research_brief(self, request: ChatRequest, text: str) -> Reply:
        users = re.findall(r"^User: (.*)$", _tag(text, "Messages"), re.MULTILINE)
        return Reply.json({"research_brief": "Brief: " + " / ".join(users)})

    def _supervisor(self, request: ChatRequest, text: str) -> Reply:
        if request.tool_messages or "Result of ConductResearch" in text:
            return Reply.tools([("ResearchComplete", {})])
        return Reply.tools([("ConductResearch", {"research_topic": t}) for t in self.topics])

    def _researcher(self, request: ChatRequest, text: str) -> Reply:
        topic = _tag(text, "Topic")
        if topic in self.fail_topics:
            return Reply.error(400, "invalid_request", f"scripted failure for {topic}")
        if request.tool_messages or "Result of search" in text:
            return Reply.text("Enough found.")
        return Reply.tools([("search", {"queries": [topic]})], delay=self.slow_topics.get(topic, 0.0))

    def _summarize_webpage(self, request: ChatRequest, text: str) -> Reply:
        doc = _tag(text, "Document")
        return Reply.json({"summary": doc[:300], "key_excerpts": [doc[:80]]})

    def _compress_research(self, request: ChatRequest, text: str) -> Reply:
        ids = ids_in(_tag(text, "Search results"))[: self.findings_per_topic]
        topic = re.search(r"on the topic: (.*)", text)
        lines = [f"- Finding {i + 1} on {topic.group(1) if topic else '?'} [{sid}]" for i, sid in enumerate(ids)]
        return Reply.text("\n".join(lines) + f"\n- A claim with an invented id [{INVENTED_ID}].")

    def _final_report(self, request: ChatRequest, text: str) -> Reply:
        prior = len(self.calls("final_report")) - 1
        if prior < self.context_errors:
            return Reply.context_length_exceeded()
        template = self.report or (
            "# Scripted report\n\n## Findings\n\nThe first claim {S1}. The second claim {S2}. "
            "A claim with an invented id {S99}.\n\n## Sources\n\n- Something made up - https://invented.example/x\n"
        )
        body = with_ids(template, ids_in(_tag(text, "Sources")))
        return Reply.truncated(body[: len(body) // 2]) if self.always_truncated else Reply.text(body)

    def _solution(self, request: ChatRequest, text: str) -> Reply:
        n = len(re.findall(r"<Previous solution>", text))
        rounds = len(self.calls("solution"))
        if "read_findings" in request.tool_names and not request.tool_messages and rounds % 2 == 1:
            return Reply.tools([("read_findings", {})])
        prefix = "## Changes from the previous solution\n\n- Answered critique.\n\n" if n else ""
        cite = with_ids("{S1}", ids_in(_tag(text, "Research Report")))
        if self.solution is not None:
            return Reply.text(self.solution)
        return Reply.text(f"{prefix}## Recommendation\n\nSolution version {rounds} builds on {cite}.")

    def _critique(self, request: ChatRequest, text: str) -> Reply:
        results = request.tool_messages
        if self.review_reads and "list_sources" in request.tool_names and len(results) < 2:
            if not results:
                return Reply.tools([("list_sources", {})])
            listed = ids_in(text_of(results[0])) or ["Snone00"]
            return Reply.tools([("read_source", {"source_id": listed[0]})])
        cite = with_ids("{S1}", ids_in(_tag(text, "Solution")))
        return Reply.text(f"1. Flaw number {len(self.calls('critique'))}: weak evidence for {cite}.")

    def _perspective(self, request: ChatRequest, text: str) -> Reply:
        return Reply.text(f"- As a regulator: objection {len(self.calls('perspective'))}.")

    def _finalize(self, request: ChatRequest, text: str) -> Reply:
        rounds = len(re.findall(r"^### Solution", _tag(text, "Review"), re.MULTILINE))
        cites = with_ids("{S1} and {S2} and {S99}", ids_in(_tag(text, "Sources")))
        if self.synthesis is not None:
            return Reply.text(with_ids(self.synthesis, ids_in(_tag(text, "Sources"))))
        return Reply.text(f"# Final synthesis\n\n## Answer\n\nSynthesis of {rounds} rounds citing {cites}.\n")

    def _executive_summary(self, request: ChatRequest, text: str) -> Reply:
        gist = with_ids(self.summary or "The gist {S1}.", ids_in(_tag(text, "Report")))
        answer = {"title": self.title, "executive_summary": gist}
        if self.follow_ups is not None:
            answer["follow_up_questions"] = list(self.follow_ups)
        return Reply.json(answer)

    def _unknown(self, request: ChatRequest, text: str) -> Reply:
        return Reply.text("unknown task")
