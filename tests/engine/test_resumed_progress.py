"""The progress of a research that goes on from its checkpoint in the same turn (PostgreSQL went away in
the middle of the research): the topics and sources are counted from the checkpoint, each once, and a
topic the outage cut short is counted again only when it is researched again."""

from __future__ import annotations

import asyncio
import json

import psycopg

from engine import database
from engine.graph import supervisor
from engine.runner import run_turn
from tests.fakes.scripted_research import ScriptedResearch

TOPICS = [
    "wind turbine cost",
    "wind turbine noise",
    "wind turbine lifespan",
    "wind turbine birds",
    "wind turbine grid",
]


class LosesTheDatabaseOnce:
    """The researcher subgraph, except that the research of ``topic`` meets a closed database
    connection the first time it starts (as a store write in the middle of an outage does)."""

    def __init__(self, researcher, topic: str) -> None:
        self.researcher = researcher
        self.topic = topic
        self.failed = False

    async def ainvoke(self, state: dict, **kwargs):
        if state["topic"] == self.topic and not self.failed:
            self.failed = True
            raise psycopg.OperationalError("the connection is closed")
        return await self.researcher.ainvoke(state, **kwargs)


def test_topics_run_again_after_a_database_outage_are_counted_once(
    online_settings, fake_openai, pg_url, monkeypatch
):
    fake_openai.handler = ScriptedResearch(topics=TOPICS)
    down = LosesTheDatabaseOnce(supervisor._RESEARCHER, TOPICS[2])
    monkeypatch.setattr(supervisor, "_RESEARCHER", down)
    monkeypatch.setattr(database, "DATABASE_BACKOFF_MAX", 0)
    settings = online_settings(database_url=pg_url, max_concurrent_research_units=2, max_review_iterations=0)
    shown: list[tuple[int, int, int]] = []
    retried_at: list[int] = []  # where in ``shown`` the run said it waits for the database

    def on_progress(progress) -> None:
        if progress.waiting and not retried_at:
            retried_at.append(len(shown))
        shown.append((progress.topics_finished, progress.topics_started, progress.sources_found))

    out = asyncio.run(
        run_turn(
            "console:outage",
            question="What should I know about wind turbines?",
            settings=settings,
            on_progress=on_progress,
        )
    )
    assert out.status == "done" and down.failed and retried_at
    # a topic cut short by the outage is researched again: from then on the counts only grow, each once
    after = shown[retried_at[0] + 1 :]
    for earlier, later in zip(after, after[1:], strict=False):
        assert all(b >= a for a, b in zip(earlier, later, strict=True)), f"{earlier} then {later} in {shown}"
    found = json.loads(out.artifacts.sources_json.read_text())["found"]
    assert shown[-1] == (len(TOPICS), len(TOPICS), len(found)), (shown, len(found))
