"""Figures 2 and 3: orchestration overhead and parallel speed-up, from whole research runs."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from bench.harness import MODEL_LATENCY, QUESTION, SEARCH_LATENCY, TOPICS, Services, median, services
from bench.trace import (
    Span,
    critical_path,
    largest_gap,
    path_length,
    path_summary,
    peak_concurrency,
    phase,
    spans_of,
)
from engine.runner import TurnOutcome, run_turn

#: Runs per configuration whose median is reported.
RUNS = 3


@dataclass
class RunResult:
    """One timed run: wall seconds around ``run_turn``, the fakes' trace, and the outcome."""

    wall: float
    started: float
    ended: float
    spans: list[Span]
    outcome: TurnOutcome


async def timed_run(svc: Services, data_dir: Path, thread_id: str, **overrides: object) -> RunResult:
    """Run the whole pipeline once on ``svc`` and return its wall time and trace.

    Raises:
        RuntimeError: the run did not finish with a report (the figure would be meaningless).
    """
    settings = svc.settings(data_dir, **overrides)
    svc.reset()
    started = time.monotonic()
    outcome = await run_turn(thread_id, question=QUESTION, settings=settings)
    ended = time.monotonic()
    if outcome.status != "done" or outcome.artifacts is None:
        raise RuntimeError(f"run {thread_id} ended with status {outcome.status}")
    if outcome.artifacts.pdf is None:
        raise RuntimeError(f"run {thread_id} built no PDF: {outcome.artifacts.pdf_error}")
    return RunResult(ended - started, started, ended, spans_of(svc.openai, svc.tavily), outcome)


def overhead_of(run: RunResult) -> dict:
    """Figure 2 numbers of one run: wall, critical path, ratio, and where the rest went."""
    chain = critical_path(run.spans)
    cp = path_length(chain)
    first = min(s.start for s in run.spans)
    last = max(s.end for s in run.spans)
    return {
        "wall_s": run.wall, "critical_path_s": cp, "ratio": run.wall / cp if cp else 0.0,
        "calls": len(run.spans), "calls_on_path": len(chain), "path": path_summary(chain),
        "before_first_call_s": first - run.started,
        "between_calls_s": (last - first) - cp,
        "after_last_call_s": run.ended - last,
    }


def research_spans(run: RunResult) -> list[Span]:
    """The calls of the research phase (the supervisor's first call to its last)."""
    span = phase(run.spans, "model:supervisor")
    if span is None:
        return []
    return [s for s in run.spans if span[0] <= s.start and s.end <= span[1]]


def research_phase(run: RunResult) -> tuple[float, float]:
    """The research phase (the supervisor's first call to its last): wall seconds, critical path seconds."""
    span = phase(run.spans, "model:supervisor")
    if span is None:
        return 0.0, 0.0
    return span[1] - span[0], path_length(critical_path(research_spans(run)))


def research_detail(run: RunResult) -> dict:
    """The research phase's idle time: wall minus critical path, the longest gap between two calls of
    its critical path (seconds), and the most model calls open at once."""
    wall, cp = research_phase(run)
    inside = research_spans(run)
    return {"idle_gap_s": wall - cp, "largest_gap_on_path_s": largest_gap(critical_path(inside)),
            "peak_model_calls": peak_concurrency(inside)}


def trace_table(run: RunResult) -> list[list]:
    """The run's calls as ``[name, start, end]`` in seconds from the run's start (for results.json)."""
    return [[s.name, round(s.start - run.started, 4), round(s.end - run.started, 4)] for s in run.spans]


async def measure(work: Path, runs: int = RUNS) -> dict:
    """Figures 2 and 3; returns their numbers and inputs."""
    import engine.graph.run  # noqa: F401  (imported before the clock starts, as a long-running process has it)

    inputs = {"model_latency_s": MODEL_LATENCY, "search_latency_s": SEARCH_LATENCY, "topics": len(TOPICS),
              "max_review_iterations": 2, "search_max_results": 5}
    with services() as svc:
        parallel = [await timed_run(svc, work / "parallel", f"bench:parallel:{i}", max_concurrent_research_units=5)
                    for i in range(runs)]
        serial = [await timed_run(svc, work / "serial", f"bench:serial:{i}", max_concurrent_research_units=1)
                  for i in range(runs)]
        inputs["fake_tcp_nodelay_set_by_bench"] = svc.nodelay_added

    per_run = [overhead_of(r) for r in parallel]
    keys = ("wall_s", "critical_path_s", "ratio", "before_first_call_s", "between_calls_s", "after_last_call_s")
    fig2 = {k: median([o[k] for o in per_run]) for k in keys}
    fig2.update(runs=runs, calls=per_run[0]["calls"], calls_on_path=per_run[0]["calls_on_path"],
                path=per_run[0]["path"], per_run=per_run, inputs={**inputs, "max_concurrent_research_units": 5},
                trace_of_first_run=trace_table(parallel[0]),
                critical_path_of_first_run=[s.name for s in critical_path(parallel[0].spans)])

    one = [research_phase(r) for r in serial]
    five = [research_phase(r) for r in parallel]
    wall1, wall5 = median([w for w, _ in one]), median([w for w, _ in five])
    cp1, cp5 = median([c for _, c in one]), median([c for _, c in five])
    fig3 = {"research_phase_s_at_1": wall1, "research_phase_s_at_5": wall5,
            "speedup": wall1 / wall5 if wall5 else 0.0, "ceiling": len(TOPICS),
            "critical_path_s_at_1": cp1, "critical_path_s_at_5": cp5,
            "ideal_speedup": cp1 / cp5 if cp5 else 0.0,
            "wall_s_at_1": median([r.wall for r in serial]), "wall_s_at_5": fig2["wall_s"],
            "runs": runs, "per_run_at_1": one, "per_run_at_5": five, "inputs": inputs}
    for label, group in (("at_1", serial), ("at_5", parallel)):
        details = [research_detail(r) for r in group]
        fig3[f"idle_gap_s_{label}"] = median([d["idle_gap_s"] for d in details])
        fig3[f"largest_gap_on_path_s_{label}"] = median([d["largest_gap_on_path_s"] for d in details])
        fig3[f"peak_model_calls_{label}"] = max(d["peak_model_calls"] for d in details)

    return {"2": fig2, "3": fig3}
