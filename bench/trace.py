"""The recorded calls of the fake model and search servers as a trace, and its critical path.

Critical path (figure 2): the fakes record when each call was read and when its answer was
sent (``time.monotonic``, one clock, one process). A call B can only depend on a call A if B
started after A ended, so the calls form an interval DAG with an edge A -> B whenever
``A.end <= B.start``. The longest path in that DAG, weighted by call duration, is the longest
chain of calls that ran one after the other; a run cannot finish faster than that chain with
the same call latencies, so it is a lower bound of the wall time. It is found by dynamic
programming over the calls sorted by start time (O(n²), n is about 60). When parallel
branches (research units, page summaries) run in lockstep, the chain is the dependency chain
itself; when a cap serialises independent calls, the chain includes the waiting.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from tests.fakes.openai_server import ChatRequest, text_of

#: Two calls on different connections may be recorded a hair out of order; this much overlap
#: (seconds) still counts as "one after the other".
ORDER_SLACK = 0.002
_TASK = re.compile(r"^Task: (\w+)", re.MULTILINE)


@dataclass(frozen=True)
class Span:
    """One call to a fake: ``name`` is ``model:<task>`` or ``search``; ``prompt_tokens`` for model calls."""

    name: str
    start: float
    end: float
    prompt_tokens: int = 0

    @property
    def duration(self) -> float:
        """Seconds from request to answer."""
        return self.end - self.start


def task_of(request: ChatRequest) -> str:
    """The graph role a prompt is for (its ``Task:`` line), ``unknown`` when there is none."""
    for message in request.messages:
        found = _TASK.search(text_of(message) or "")
        if found:
            return found.group(1)
    return "unknown"


def spans_of(openai_fake, tavily_fake) -> list[Span]:
    """Every chat completion and search the two fakes answered, sorted by start."""
    spans = []
    for rec in openai_fake.chat_calls:
        request = rec.request if isinstance(rec.request, ChatRequest) else ChatRequest(rec.body or {})
        spans.append(Span(f"model:{task_of(request)}", rec.start, rec.end, request.prompt_tokens()))
    spans += [Span("search", rec.start, rec.end) for rec in tavily_fake.calls if rec.path == "/search"]
    return sorted(spans, key=lambda s: (s.start, s.end))


def critical_path(spans: list[Span]) -> list[Span]:
    """The longest chain (by summed duration) of spans each starting after the previous one ended."""
    order = sorted(spans, key=lambda s: (s.start, s.end))
    best: list[float] = []
    back: list[int | None] = []
    for j, span in enumerate(order):
        length, parent = span.duration, None
        for i in range(j):
            if order[i].end <= span.start + ORDER_SLACK and best[i] + span.duration > length:
                length, parent = best[i] + span.duration, i
        best.append(length)
        back.append(parent)
    if not order:
        return []
    node: int | None = max(range(len(order)), key=best.__getitem__)
    chain = []
    while node is not None:
        chain.append(order[node])
        node = back[node]
    return chain[::-1]


def path_length(chain: list[Span]) -> float:
    """Summed duration of a chain of calls (seconds)."""
    return sum(s.duration for s in chain)


def path_summary(chain: list[Span]) -> str:
    """A chain as ``task×n`` counts in order of first appearance, e.g. ``clarify_with_user×1, ...``."""
    counts = Counter(s.name.removeprefix("model:") for s in chain)
    return ", ".join(f"{name}×{n}" for name, n in counts.items())


def phase(spans: list[Span], name: str) -> tuple[float, float] | None:
    """(first start, last end) of the spans called ``name``, or None."""
    chosen = [s for s in spans if s.name == name]
    if not chosen:
        return None
    return min(s.start for s in chosen), max(s.end for s in chosen)


def largest_prompt(spans: list[Span], name: str) -> int:
    """The largest prompt (estimated tokens) of the spans called ``name``; 0 when none."""
    return max((s.prompt_tokens for s in spans if s.name == name), default=0)


def largest_gap(chain: list[Span]) -> float:
    """The longest idle time between two consecutive calls of a chain (seconds, 0 for under two calls)."""
    return max((b.start - a.end for a, b in zip(chain, chain[1:], strict=False)), default=0.0)


def peak_concurrency(spans: list[Span], prefix: str = "model:") -> int:
    """The largest number of spans named ``prefix…`` open at one instant."""
    events = sorted([(s.start, 1) for s in spans if s.name.startswith(prefix)]
                    + [(s.end, -1) for s in spans if s.name.startswith(prefix)])
    best = current = 0
    for _, step in events:
        current += step
        best = max(best, current)
    return best
