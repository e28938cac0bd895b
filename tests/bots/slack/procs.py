"""Helpers for tests that run `deepresearch slack` and workers as real processes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.waiting import LONG, wait_for

#: The ``deepresearch`` console script of the Python that runs the tests.
BIN = Path(sys.executable).parent / "deepresearch"


def start(args: list[str], log: Path) -> subprocess.Popen:
    """``deepresearch ARGS`` with the tests' environment, its output (stdout and stderr) in ``log``."""
    handle = log.open("w")
    return subprocess.Popen([str(BIN), *args], stdout=handle, stderr=subprocess.STDOUT, env=dict(os.environ),
                            stdin=subprocess.DEVNULL)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, log: Path) -> None:
    """Wait until ``GET url`` answers 200; fail with the process's log if it exits or never answers
    (within :data:`tests.waiting.LONG`)."""
    def healthy() -> bool:
        if proc.poll() is not None:
            raise AssertionError(f"the bot exited with {proc.returncode}: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as resp:
                return resp.status == 200
        except OSError:
            return False

    wait_for(healthy, what=f"{url} to answer", every=0.1, diag=lambda: log.read_text()[-2000:])


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL if it still runs after :data:`tests.waiting.LONG` / 4 (a minute by default)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(LONG / 4)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(LONG)
