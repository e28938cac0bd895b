"""Figure 10: from the final text to the chat: the summary post, each report file, the upload.

A research turn runs through the chat job (``jobs.run.run_job`` on the in-process runner, as in a
bot without Redis) with the tests' recording chat port. The final text exists when the last model
call of the run (the executive summary) has answered; from then on the clock reads:

- the summary's post (the recording port's timestamp of the post that carries it),
- each report file written (its modification time: ``report.md``, ``report.pdf``, ``report.docx``),
- the upload of the files (the port's timestamp).

The fakes time their calls with ``time.monotonic``, the port and the files with ``time.time``;
one offset taken before the run converts between them.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from bench.harness import MODEL_LATENCY, QUESTION, SEARCH_LATENCY, TOPICS, median, services

#: Turns whose medians are reported.
RUNS = 3
FILES = ("report.md", "report.pdf", "report.docx")


def _summary_post(events: list[dict]) -> dict | None:
    """The port's post that carries the summary (its last line counts the cited sources)."""
    return next((e for e in events if e["op"] == "post" and "sources cited" in e.get("text", "")), None)


def _one(svc, settings, events_path: Path, runner, i: int) -> dict:
    """One turn through the chat job; seconds from the final text to each delivery step.

    Raises:
        RuntimeError: the turn did not end with a report, or a step is missing.
    """
    from engine.artifact_store import artifact_store
    from jobs import records
    from jobs.dispatch import handle_message
    from jobs.store import get_store
    from tests.fakes.recording_port import RecordingPort, read_events

    thread, turn_id = f"console:bench-delivery-{i}", f"bench-delivery-{i}"
    port = RecordingPort.create(events_path, thread).reference()
    svc.reset()
    offset = time.time() - time.monotonic()
    handle_message(thread, "U0BENCH", QUESTION, port, turn_id, settings=settings, explicit_start=True)
    if not runner.wait_idle(timeout=600):
        raise RuntimeError(f"turn {turn_id} did not finish in 600 s")
    record = get_store(settings).get(records.turn_key(turn_id)) or {}
    outcome = record.get("outcome") or {}
    if record.get("state") != "done" or outcome.get("status") != "done":
        raise RuntimeError(f"turn {turn_id} ended {record.get('state')}: {record.get('last_error')}")
    final_text = max(c.end for c in svc.openai.chat_calls) + offset
    events = read_events(events_path, thread)
    summary = _summary_post(events)
    upload = next((e for e in events if e["op"] == "upload"), None)
    if summary is None or upload is None:
        raise RuntimeError(f"turn {turn_id}: no summary post or no upload in {events_path}")
    store = artifact_store(settings)
    written = {Path(p).name: (store.local(p) or Path(p)).stat().st_mtime for p in outcome.get("files", [])}
    missing = [name for name in FILES if name not in written]
    if missing:
        raise RuntimeError(f"turn {turn_id}: no {', '.join(missing)} (files {sorted(written)})")
    return {"summary_post_s": summary["t"] - final_text,
            **{f"{name.split('.')[1]}_written_s": written[name] - final_text for name in FILES},
            "upload_s": upload["t"] - final_text,
            "summary_before_typeset": summary["t"] < min(written["report.pdf"], written["report.docx"])}


def measure(work: Path, runs: int = RUNS) -> dict:
    """``runs`` turns one after another; medians of each step's seconds after the final text."""
    from jobs.embedded import EmbeddedRunner, _runners, _runners_lock
    from jobs.port import EXTRA_PORT_PACKAGES_ENV

    # the job speaks through the tests' recording port, which the job layer imports only when named
    os.environ[EXTRA_PORT_PACKAGES_ENV] = "tests.fakes"
    base = work / "delivery"
    base.mkdir(parents=True, exist_ok=True)
    with services() as svc:
        settings = svc.settings(base / "data", max_concurrent_research_units=5)
        runner = EmbeddedRunner(settings, max_workers=1)
        key = str(Path(settings.data_dir).resolve())
        with _runners_lock:
            _runners[key] = runner
        try:
            results = [_one(svc, settings, base / "events.jsonl", runner, i) for i in range(runs)]
        finally:
            runner.shutdown(wait=True)
            with _runners_lock:
                _runners.pop(key, None)
    keys = [k for k in results[0] if k.endswith("_s")]
    return {
        **{k: median([r[k] for r in results]) for k in keys},
        "max": {k: max(r[k] for r in results) for k in keys},
        "summary_before_typeset": all(r["summary_before_typeset"] for r in results),
        "runs": runs,
        "inputs": {"model_latency_s": MODEL_LATENCY, "search_latency_s": SEARCH_LATENCY, "topics": len(TOPICS),
                   "runner": "the in-process runner, no Redis", "port": "tests' recording port (no chat API latency)"},
    }
