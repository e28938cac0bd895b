"""Pruning old threads from the checkpoint database."""

from __future__ import annotations

import asyncio

from engine.maintenance import prune_threads
from engine.runner import run_turn, thread_status


def test_prune_deletes_old_threads_and_returns_space(offline_settings):
    settings = offline_settings(allow_clarification=False, max_review_iterations=0)
    for i in range(2):
        asyncio.run(run_turn(f"console:p{i}", question=f"What is topic number {i} about?", settings=settings))
    assert (settings.artifacts_dir / "console_p0").exists()
    options = settings.data_dir / "console" / "console_p0.json"  # what `deepresearch ask` keeps for --resume
    options.parent.mkdir(parents=True, exist_ok=True)
    options.write_text("{}")
    dry = asyncio.run(prune_threads(settings, older_than_days=-1, dry_run=True))
    assert sorted(dry.threads) == ["console:p0", "console:p1"]
    assert asyncio.run(thread_status("console:p0", settings=settings)) == "done"
    kept = asyncio.run(prune_threads(settings, older_than_days=30))
    assert kept.threads == [] and kept.kept == 2
    gone = asyncio.run(prune_threads(settings, older_than_days=-1))
    assert len(gone.threads) == 2 and gone.bytes_after < gone.bytes_before
    assert asyncio.run(thread_status("console:p0", settings=settings)) == "none"
    assert not (settings.artifacts_dir / "console_p0").exists() and not options.exists()
