"""Fixtures for the Teams tests: the fake connector, settings in tmp_path, the bot on a loopback port."""

from __future__ import annotations

import asyncio
import os
import socket
import threading
from collections.abc import Iterator

import pytest
import requests
from aiohttp import web

from bots.teams import port as teams_port
from bots.teams.settings import TeamsSettings
from bots.teams.settings import load_teams_settings as load_settings
from engine.settings import Settings
from tests.fakes.bot_connector import FakeBotConnector
from tests.waiting import LONG

_OUR_VARS = ("DEEPRESEARCH_", "MICROSOFT_", "OPENAI_", "TAVILY_", "SLACK_")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class BotServer:
    """The real aiohttp app of :func:`bots.teams.server.build_app`, served from a background thread."""

    def __init__(self, settings: Settings, port: int) -> None:
        from bots.teams.server import build_app

        self.settings = settings
        self.port = port
        self.loop = asyncio.new_event_loop()
        self.runner = web.AppRunner(build_app(settings))
        self.loop.run_until_complete(self.runner.setup())
        self.loop.run_until_complete(web.TCPSite(self.runner, "127.0.0.1", port).start())
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    def send(self, activity: dict, **kwargs) -> requests.Response:
        """POST ``activity`` to ``/api/messages`` as the Bot Framework channel would, then wait for
        the turn it started: the server acknowledges a message before its turn runs."""
        from bots.teams.server import TURNS_KEY

        answer = requests.post(f"{self.url}/api/messages", json=activity, timeout=60, **kwargs)
        asyncio.run_coroutine_threadsafe(self.runner.app[TURNS_KEY].drain(LONG), self.loop).result(LONG + 5)
        return answer

    def stop(self) -> None:
        """Shut the app down and stop the loop."""
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(LONG)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No project, Microsoft or model settings leak in from the environment."""
    for var in list(os.environ):
        if var.startswith(_OUR_VARS) or var == "REDIS_URL":
            monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(teams_port, "_settings", None)


@pytest.fixture
def connector() -> Iterator[FakeBotConnector]:
    """A started fake Bot Framework connector (the activities' ``serviceUrl``)."""
    with FakeBotConnector() as fake:
        yield fake


@pytest.fixture
def bot_port() -> int:
    """The port the bot will listen on (known first so the public URL can point at it)."""
    return free_port()


@pytest.fixture
def settings(tmp_path, clean_env, bot_port) -> TeamsSettings:
    """The Teams bot's settings: offline model, no web search, data in tmp_path, download links pointing at the bot."""
    return load_settings(
        data_dir=tmp_path / "data",
        llm="offline",
        search="none",
        public_url=f"http://127.0.0.1:{bot_port}",
        max_review_iterations=0,
    )


@pytest.fixture
def bot(settings: Settings, bot_port: int) -> Iterator[BotServer]:
    """The Teams web app (embedded job runner) on 127.0.0.1."""
    server = BotServer(settings, bot_port)
    try:
        yield server
    finally:
        server.stop()
