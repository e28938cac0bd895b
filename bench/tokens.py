"""Figure 6: tokens per role, and the report writers' prompts at 5 and 10 search results per query.

The final-report and finalize prompts list only the sources their findings cite (at most
``engine.prompt_sources.MAX_PROMPT_SOURCES``), so when each search returns twice the results the
prompts grow with the findings, not with the sources found. Two pairs of runs show it: one
whose compressor keeps a bounded number of findings a topic (a real compressor's notes have a
bounded length, and the findings budget caps them in any case), and one whose compressor writes
a finding for every source (its notes, and so the prompt, grow with the results).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from bench.harness import QUESTION, TOPICS, Services, services
from bench.trace import largest_prompt, spans_of
from engine.runner import run_turn
from tests.fakes.openai_server import estimate_tokens

#: Findings the bounded compressor keeps a topic (of the 5 or 10 sources each topic finds).
BOUNDED_FINDINGS = 4
RESULTS_PER_QUERY = (5, 10)
_SOURCES = re.compile(r"<Sources>\n(.*?)\n</Sources>", re.DOTALL)
_FINDINGS = re.compile(r"<Findings>\n(.*?)\n</Findings>", re.DOTALL)


async def _run(svc: Services, data_dir: Path, thread: str, results: int, findings: int | None) -> dict:
    """One whole run; its prompt sizes (estimated tokens) and how many sources it found and listed.

    Raises:
        RuntimeError: the run did not finish with a report.
    """
    svc.script.findings_per_topic = findings
    svc.reset()
    settings = svc.settings(data_dir, max_concurrent_research_units=5, search_max_results=results,
                            max_review_iterations=1)
    outcome = await run_turn(thread, question=QUESTION, settings=settings)
    if outcome.status != "done" or outcome.artifacts is None:
        raise RuntimeError(f"run {thread} ended with status {outcome.status}")
    spans = spans_of(svc.openai, svc.tavily)
    usage = json.loads(outcome.artifacts.usage_json.read_text())
    found = json.loads(outcome.artifacts.sources_json.read_text())["found"]
    prompt = svc.script.calls("final_report")[-1]
    listed = _SOURCES.search(prompt).group(1)
    # what the prompt held before it listed only cited sources: every source found, numbered
    every_source = "\n".join(f"[{n}] {s['title']} — {s['url']}" for n, s in enumerate(found, 1))
    return {
        "sources_found": len(found),
        "sources_listed": len(re.findall(r"^\[S[0-9a-f]{6}\] ", listed, re.MULTILINE)),
        "final_report_prompt_tokens": largest_prompt(spans, "model:final_report"),
        "finalize_prompt_tokens": largest_prompt(spans, "model:finalize"),
        "supervisor_prompt_tokens": largest_prompt(spans, "model:supervisor"),
        "findings_tokens": estimate_tokens(_FINDINGS.search(prompt).group(1)),
        "sources_block_tokens": estimate_tokens(listed),
        "every_source_list_tokens": estimate_tokens(every_source),
        "by_role": {role: {"calls": v["calls"], "input_tokens": v["input_tokens"], "output_tokens": v["output_tokens"]}
                    for role, v in usage["by_role"].items()},
        "largest_prompt_tokens": usage["largest_prompt_tokens"],
        "prompt_tokens": usage["total"]["input_tokens"],
        "summary_cache": usage.get("summary_cache") or {},
    }


def _growth(small: dict, big: dict) -> dict:
    keys = ("final_report_prompt_tokens", "finalize_prompt_tokens", "supervisor_prompt_tokens", "findings_tokens",
            "sources_block_tokens", "sources_found")
    return {k: big[k] / small[k] if small[k] else 0.0 for k in keys}


async def measure(work: Path) -> dict:
    """Figure 6: four runs (5 and 10 results a query, bounded and growing notes); their numbers and inputs."""
    out: dict = {}
    with services(model_latency=0.0, search_latency=0.0) as svc:
        for label, findings in (("bounded_notes", BOUNDED_FINDINGS), ("notes_per_source", None)):
            runs = [await _run(svc, work / "tokens", f"bench:tokens:{label}:{n}", n, findings)
                    for n in RESULTS_PER_QUERY]
            out[label] = {"at_5": runs[0], "at_10": runs[1], "growth_when_doubled": _growth(*runs)}
    out["runs"] = 1
    out["inputs"] = {"topics": len(TOPICS), "search_max_results": list(RESULTS_PER_QUERY),
                     "bounded_findings_per_topic": BOUNDED_FINDINGS, "max_review_iterations": 1,
                     "token_estimate": "the fake's count: characters / 4 + 1 per message"}
    return out
