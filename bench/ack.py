"""Figure 1: how fast `deepresearch slack` (HTTP mode) and `deepresearch teams` answer a new research request."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlencode

from bench.harness import QUESTION, Services, disable_nagle, median, percentile, services
from bench.throughput import ROOT, redis_url

REQUESTS = 200
CONCURRENCY = 20
#: Seconds the fake Slack Web API and Bot Framework connector take to answer each call.
CHAT_API_LATENCY = 0.100
SIGNING_SECRET = "bench-signing-secret"
STARTUP_LIMIT = 60.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _cli() -> list[str]:
    script = Path(sys.executable).parent / "deepresearch"
    return [str(script)] if script.exists() else [sys.executable, "-m", "bots.cli"]


def slack_signature(body: bytes, timestamp: str, secret: str = SIGNING_SECRET) -> str:
    """``X-Slack-Signature``: ``v0=`` and the HMAC-SHA256 of ``v0:{timestamp}:{body}``."""
    return "v0=" + hmac.new(secret.encode(), b"v0:" + timestamp.encode() + b":" + body, hashlib.sha256).hexdigest()


class _Bot:
    """A `deepresearch slack|teams` process in its own session, stopped by its own id."""

    def __init__(self, surface: str, env: dict, log: Path, port: int) -> None:
        self.port = port
        self.log = log.open("wb")
        self.proc = subprocess.Popen([*_cli(), surface, "--port", str(self.port)], cwd=log.parent, env=env,
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` of the bot."""
        return f"http://127.0.0.1:{self.port}"

    async def ready(self, session) -> float:
        """Wait until ``GET /healthz`` answers 200; returns the seconds it took."""
        started = time.monotonic()
        while time.monotonic() - started < STARTUP_LIMIT:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the bot exited with code {self.proc.returncode} (log: {self.log.name})")
            try:
                async with session.get(self.url + "/healthz") as resp:
                    if resp.status == 200:
                        return time.monotonic() - started
            except OSError:
                pass
            await asyncio.sleep(0.1)
        raise TimeoutError(f"the bot did not answer /healthz within {STARTUP_LIMIT:g} s")

    def stop(self) -> None:
        """SIGTERM the bot's process group, SIGKILL after 10 s."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        self.log.close()


def _env(svc: Services, data_dir: Path, url: str, extra: dict) -> dict:
    env = dict(os.environ)
    env.update({
        "REDIS_URL": url, "DEEPRESEARCH_DATA_DIR": str(data_dir), "DEEPRESEARCH_LLM": "openai",
        "OPENAI_API_KEY": "bench-fake-key", "OPENAI_BASE_URL": svc.openai.base_url,
        "DEEPRESEARCH_SEARCH": "tavily", "TAVILY_API_KEY": "bench-fake-key",
        "DEEPRESEARCH_TAVILY_URL": svc.tavily.base_url,
        # the quota check stays in the path (one Redis call) but never refuses the load's requests
        "DEEPRESEARCH_MAX_RUNNING_PER_USER": "1000",
        "PYTHONPATH": str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""), **extra,
    })
    return env


async def _load(send, requests: int, concurrency: int) -> tuple[list[float], int, list[str]]:
    """Run ``send(i)`` (returns an HTTP status) ``requests`` times, ``concurrency`` at once."""
    gate = asyncio.Semaphore(concurrency)
    latencies: list[float] = []
    problems: list[str] = []

    async def one(i: int) -> None:
        async with gate:
            started = time.perf_counter()
            try:
                status = await send(i)
            except Exception as err:  # counted as an error, the load goes on
                problems.append(f"{type(err).__name__}: {err}")
                return
            latencies.append(time.perf_counter() - started)
            if status >= 300:
                problems.append(f"HTTP {status}")

    await asyncio.gather(*(one(i) for i in range(requests)))
    return latencies, len(problems), problems[:5]


def _summary(latencies: list[float], errors: int, problems: list[str], first: float, startup: float) -> dict:
    ms = [x * 1000 for x in latencies]
    return {"requests": len(latencies) + errors, "errors": errors, "problems": problems,
            "p50_ms": median(ms), "p99_ms": percentile(ms, 99), "max_ms": max(ms, default=0.0),
            "first_request_ms": first * 1000, "startup_s": startup}


async def _slack(svc: Services, work: Path, url: str, requests: int, concurrency: int) -> dict:
    import aiohttp

    from tests.fakes.slack_api import FakeSlackAPI

    with FakeSlackAPI(latency=CHAT_API_LATENCY) as fake:
        disable_nagle(fake)
        env = _env(svc, work / "slack-data", url, {
            "SLACK_BOT_TOKEN": fake.token, "SLACK_SIGNING_SECRET": SIGNING_SECRET, "SLACK_API_URL": fake.base_url})
        bot = _Bot("slack", env, work / "slack-bot.log", _free_port())
        try:
            async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:
                startup = await bot.ready(session)

                async def send(i: int) -> int:
                    form = {
                        "token": "legacy", "team_id": fake.team_id, "team_domain": "bench",
                        "channel_id": f"C0BENCH{i % 10}", "channel_name": "research", "user_id": f"U0USER{i % 7}",
                        "user_name": "bench", "command": "/research", "text": f"{QUESTION} (request {i})",
                        "api_app_id": "A0APP", "is_enterprise_install": "false",
                        "response_url": f"http://127.0.0.1:{fake.port}/response/{uuid.uuid4().hex}",
                        "trigger_id": f"{i}.1.{uuid.uuid4().hex}",
                    }
                    body = urlencode(form).encode()
                    ts = str(int(time.time()))
                    headers = {"Content-Type": "application/x-www-form-urlencoded", "X-Slack-Request-Timestamp": ts,
                               "X-Slack-Signature": slack_signature(body, ts)}
                    async with session.post(bot.url + "/slack/events", data=body, headers=headers) as resp:
                        await resp.read()
                        return resp.status

                started = time.perf_counter()
                await send(-1)  # the first request after start-up, reported apart
                first = time.perf_counter() - started
                latencies, errors, problems = await _load(send, requests, concurrency)
        finally:
            bot.stop()
    out = _summary(latencies, errors, problems, first, startup)
    out.update(limit_s=3.0, inputs_text=(
        f"{requests} signed /research slash commands, {concurrency} at once, HTTP mode, RQ queue on Redis, "
        f"Web API fake {CHAT_API_LATENCY * 1000:.0f} ms"))
    return out


async def _teams(svc: Services, work: Path, url: str, requests: int, concurrency: int) -> dict:
    import aiohttp

    from tests.bots.teams.activities import personal_message
    from tests.fakes.bot_connector import FakeBotConnector

    with FakeBotConnector(latency=CHAT_API_LATENCY) as connector:
        disable_nagle(connector)
        port = _free_port()
        env = _env(svc, work / "teams-data", url, {"DEEPRESEARCH_PUBLIC_URL": f"http://127.0.0.1:{port}"})
        bot = _Bot("teams", env, work / "teams-bot.log", port)
        try:
            async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:
                startup = await bot.ready(session)

                async def send(i: int) -> int:
                    activity = personal_message(connector.url, f"{QUESTION} (request {i})",
                                                conversation_id=f"a:bench-{i}-{uuid.uuid4().hex[:8]}")
                    async with session.post(bot.url + "/api/messages", data=json.dumps(activity),
                                            headers={"Content-Type": "application/json"}) as resp:
                        await resp.read()
                        return resp.status

                started = time.perf_counter()
                await send(-1)
                first = time.perf_counter() - started
                latencies, errors, problems = await _load(send, requests, concurrency)
        finally:
            bot.stop()
    out = _summary(latencies, errors, problems, first, startup)
    out.update(limit_s=15.0, inputs_text=(
        f"{requests} message activities (new 1:1 conversations), {concurrency} at once, RQ queue on Redis, "
        f"connector fake {CHAT_API_LATENCY * 1000:.0f} ms, Bot Framework auth off (no MICROSOFT_APP_ID)"))
    return out


def measure(work: Path, requests: int = REQUESTS, concurrency: int = CONCURRENCY) -> dict:
    """Figure 1 for Slack and Teams; a surface that cannot be measured says why."""
    import redis

    url = redis_url()
    conn = redis.Redis.from_url(url)
    try:
        conn.ping()
    except redis.exceptions.ConnectionError as err:
        raise ConnectionError(f"no Redis at {url}") from err
    out: dict = {"runs": 1, "inputs": {"requests": requests, "concurrency": concurrency,
                                       "chat_api_latency_s": CHAT_API_LATENCY, "redis": url}}
    with services() as svc:
        for name, run in (("slack", _slack), ("teams", _teams)):
            conn.flushdb()
            try:
                out[name] = asyncio.run(run(svc, work, url, requests, concurrency))
            except Exception as err:  # one surface failing leaves the other measured
                out[name] = {"not_measured": f"{type(err).__name__}: {err}"}
            finally:
                conn.flushdb()
    return out
