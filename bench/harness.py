"""Shared pieces of the benchmarks: the loopback fakes with a fixed latency, settings, machine facts."""

from __future__ import annotations

import contextlib
import os
import platform
import re
import socketserver
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from engine.settings import Settings, load_settings
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.scripted_research import ScriptedResearch
from tests.fakes.tavily_server import FakeTavily

#: Seconds every fake model call takes (figures 2-6).
MODEL_LATENCY = 0.100
#: Seconds every fake search takes.
SEARCH_LATENCY = 0.050
#: What the scripted supervisor delegates: five research topics.
TOPICS = [
    "air-source heat pumps",
    "ground-source heat pumps",
    "hybrid gas and heat-pump systems",
    "electricity tariffs for heat pumps",
    "installation subsidies",
]
QUESTION = "Which heat pumps are cheapest to run in Germany, and what does installation cost?"
FAKE_KEY = "bench-fake-key"

_FOREIGN_SETTINGS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY", "REDIS_URL", "SLACK_BOT_TOKEN",
                     "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "SLACK_API_URL", "MICROSOFT_APP_ID",
                     "MICROSOFT_APP_PASSWORD", "MICROSOFT_APP_TENANT_ID", "MICROSOFT_APP_TYPE")


def clean_environment() -> None:
    """Drop the project's and providers' settings from this process, so only the bench's apply."""
    for var in list(os.environ):
        if var.startswith("DEEPRESEARCH_") or var in _FOREIGN_SETTINGS:
            del os.environ[var]


def disable_nagle(fake: object) -> bool:
    """Set ``TCP_NODELAY`` on the connections a started fake accepts; True when it was off.

    ``http.server`` writes the headers and the body of an answer in two ``send`` calls; with
    Nagle's algorithm on, the body waits for the client's delayed ACK (about 40 ms on Linux),
    which would add a stall to every call that no real provider has. The fake's own latency
    knob stays the only delay.
    """
    for attr in ("_httpd", "_server", "httpd", "server"):
        server = getattr(fake, attr, None)
        if isinstance(server, socketserver.BaseServer):
            handler = server.RequestHandlerClass
            if getattr(handler, "disable_nagle_algorithm", False):
                return False
            handler.disable_nagle_algorithm = True
            return True
    return False


@dataclass
class Services:
    """The fake OpenAI and Tavily servers of one figure, and the scripted research model."""

    openai: FakeOpenAI
    tavily: FakeTavily
    script: ScriptedResearch
    nodelay_added: bool

    def settings(self, data_dir: Path, **overrides: object) -> Settings:
        """Settings on these fakes under ``data_dir``; ``overrides`` are Settings field names."""
        values: dict = {
            "data_dir": data_dir, "llm": "openai", "search": "tavily",
            "openai_api_key": FAKE_KEY, "openai_base_url": self.openai.base_url,
            "tavily_api_key": FAKE_KEY, "tavily_url": self.tavily.base_url,
        }
        values.update(overrides)
        return load_settings(_env_file=None, **values)

    def reset(self) -> None:
        """Forget the calls recorded so far."""
        self.openai.reset()
        self.tavily.reset()


@contextlib.contextmanager
def services(model_latency: float = MODEL_LATENCY, search_latency: float = SEARCH_LATENCY,
             topics: list[str] | None = None) -> Iterator[Services]:
    """Start the fake OpenAI (playing :class:`ScriptedResearch`) and the fake Tavily."""
    script = ScriptedResearch(topics=list(topics or TOPICS))
    with FakeOpenAI(handler=script, latency=model_latency, api_key=FAKE_KEY) as oa, \
            FakeTavily(latency=search_latency, api_key=FAKE_KEY) as tv:
        added = disable_nagle(oa)
        disable_nagle(tv)
        yield Services(openai=oa, tavily=tv, script=script, nodelay_added=added)


def median(values: list[float]) -> float:
    """The median of ``values`` (0.0 when empty)."""
    return float(statistics.median(values)) if values else 0.0


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by the nearest-rank method (0.0 when empty)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-q * len(ordered) // 100))))
    return float(ordered[rank - 1])


def peak_rss_kib(pid: int) -> int:
    """``VmHWM`` (peak resident set size, KiB) of a live process, 0 when it is gone."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = re.search(r"^VmHWM:\s+(\d+) kB", text, re.MULTILINE)
    return int(found.group(1)) if found else 0


def children_of(pid: int) -> list[int]:
    """The direct child processes of ``pid`` (from ``/proc``)."""
    kids: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                kids += [int(p) for p in (task / "children").read_text().split()]
    except OSError:
        pass
    return kids


def machine() -> dict:
    """Facts about the machine the figures come from: CPUs, CPU model, memory, load, versions."""
    cpu = "unknown"
    with contextlib.suppress(OSError):
        found = re.search(r"^model name\s*:\s*(.+)$", Path("/proc/cpuinfo").read_text(), re.MULTILINE)
        cpu = found.group(1).strip() if found else cpu
    mem_kib = 0
    with contextlib.suppress(OSError):
        found = re.search(r"^MemTotal:\s+(\d+) kB", Path("/proc/meminfo").read_text(), re.MULTILINE)
        mem_kib = int(found.group(1)) if found else 0
    return {
        "nproc": len(os.sched_getaffinity(0)),
        "cpu_model": cpu,
        "memory_gib": round(mem_kib / 1024 / 1024, 1),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "os": platform.platform(),
        "python": platform.python_version(),
    }


class Stopwatch:
    """Seconds since creation (``time.monotonic``)."""

    def __init__(self) -> None:
        self.started = time.monotonic()

    @property
    def seconds(self) -> float:
        """Seconds elapsed."""
        return time.monotonic() - self.started
