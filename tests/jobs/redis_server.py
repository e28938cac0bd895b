"""A private ``redis-server`` on a free port, to kill (-9) and restart: for tests and the fault run."""

from __future__ import annotations

import shutil
import signal
import subprocess
from pathlib import Path

from tests.bots.slack.procs import free_port
from tests.jobs.scenarios import wait_for


class RedisServer:
    """A ``redis-server`` of the test's own on a free port, to kill and restart."""

    def __init__(self, directory: Path, *, aof: bool) -> None:
        self.directory = directory
        self.aof = aof
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        directory.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        import redis

        args = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory),
                "--save", "", "--appendonly", "yes" if self.aof else "no", "--appendfsync", "always"]
        log = open(self.directory / "redis.log", "ab")  # noqa: SIM115 (closed with the process)
        self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        client = redis.Redis(port=self.port)
        wait_for(lambda: _pings(client), 30, "redis-server to answer")
        return self

    def wipe(self) -> None:
        """Delete what Redis persisted (while it is down): the next start is empty."""
        for entry in self.directory.iterdir():
            if entry.name != "redis.log":
                shutil.rmtree(entry) if entry.is_dir() else entry.unlink()

    def kill(self) -> None:
        """SIGKILL: no shutdown save; only what the append-only file holds survives."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)


def _pings(client) -> bool:
    import redis

    try:
        return bool(client.ping())
    except redis.exceptions.RedisError:
        return False
