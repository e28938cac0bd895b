"""A private PostgreSQL server on a free loopback port, started with ``pg_ctl`` for one test.

For what the shared test server (trust auth) cannot show: a server that checks passwords
(``scram-sha-256``), or one that a test stops and restarts. Skips the test when the server
binaries (Debian's ``postgresql``) are not installed.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest


def _bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}")) or ([shutil.which(name)] if shutil.which(name) else [])
    if not found:
        pytest.skip(f"no PostgreSQL server binaries ({name}) installed")
    return found[-1]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PrivateServer:
    """``initdb`` + ``pg_ctl start`` in a temporary folder; user ``postgres`` with ``password``.

    As root the server runs as the ``postgres`` system user (PostgreSQL refuses to run as root).
    """

    def __init__(self, password: str) -> None:
        self.password = password
        self.port = _free_port()
        self.root = Path(tempfile.mkdtemp(prefix="drpg-"))
        self.data = self.root / "data"
        self.as_user: list[str] = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        pwfile = self.root / "pw"
        pwfile.write_text(password + "\n")
        if self.as_user:
            shutil.chown(self.root, "postgres")
            shutil.chown(pwfile, "postgres")
        self._run(_bin("initdb"), "-D", str(self.data), "-U", "postgres", "--auth=scram-sha-256",
                  f"--pwfile={pwfile}", "--no-sync", "-E", "UTF8")
        self.start()

    def _run(self, *args: str) -> None:
        subprocess.run([*self.as_user, *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       timeout=120)

    def url(self, *, password: str | None = None, database: str = "postgres") -> str:
        """A URL for this server (with ``password``, default the right one)."""
        return f"postgresql://postgres:{self.password if password is None else password}@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        self._run(_bin("pg_ctl"), "-D", str(self.data), "-w", "-l", str(self.root / "log"), "-o",
                  f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off", "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: roll back and disconnect sessions; ``immediate``: like a crash)."""
        self._run(_bin("pg_ctl"), "-D", str(self.data), "-w", "-m", mode, "stop")

    def close(self) -> None:
        """Stop the server if it runs and delete its files."""
        subprocess.run([*self.as_user, _bin("pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
        shutil.rmtree(self.root, ignore_errors=True)
