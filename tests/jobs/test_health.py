"""`python -m jobs.health`, the image's health check: it reads its settings (REDIS_URL, HEALTHCHECK_URLS)
from the environment and `.env`, as every command does."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.jobs.conftest import ROOT

#: A health URL nothing answers: only the worker can make the check pass.
NOBODY = "http://127.0.0.1:9/healthz"


def _health(cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items()
            if not k.startswith("DEEPRESEARCH_") and k not in ("REDIS_URL", "HEALTHCHECK_URLS", "LOG_LEVEL")}
    base.update({"PYTHONPATH": str(ROOT), "DEEPRESEARCH_DATA_DIR": str(cwd / "data"), **(env or {})})
    return subprocess.run([sys.executable, "-m", "jobs.health"], capture_output=True, text=True, env=base, cwd=cwd,
                          timeout=60)


@pytest.fixture
def live_worker(redis_db: str):
    """An RQ worker of this host registered on ``redis_db`` with a fresh heartbeat."""
    from redis import Redis
    from rq import Worker

    worker = Worker(["research"], connection=Redis.from_url(redis_db))
    worker.register_birth()
    worker.heartbeat()
    yield redis_db
    worker.register_death()


@pytest.fixture
def health_url():
    """A URL answering 200, as a bot's ``GET /healthz`` does."""

    class Healthy(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b'{"ok": true}')

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Healthy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/healthz"
    server.shutdown()
    server.server_close()


def test_a_live_worker_is_found_with_redis_url_from_dotenv(tmp_path, live_worker):
    (tmp_path / ".env").write_text(f"REDIS_URL={live_worker}\nHEALTHCHECK_URLS={NOBODY}\n")
    out = _health(tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""


def test_the_environment_wins_over_dotenv(tmp_path, live_worker):
    (tmp_path / ".env").write_text("REDIS_URL=redis://127.0.0.1:9/0\nHEALTHCHECK_URLS=http://127.0.0.1:9/a\n")
    assert _health(tmp_path, {"REDIS_URL": live_worker, "HEALTHCHECK_URLS": NOBODY}).returncode == 0
    (tmp_path / ".env").write_text(f"REDIS_URL={live_worker}\n")
    out = _health(tmp_path, {"REDIS_URL": "redis://127.0.0.1:9/0", "HEALTHCHECK_URLS": NOBODY})
    assert out.returncode == 1
    assert out.stderr.splitlines() == ["health: redis check failed (ConnectionError)",
                                       "health: no live worker on this host and no health URL answered"], out.stderr


def test_healthcheck_urls_from_dotenv_are_asked(tmp_path, health_url):
    (tmp_path / ".env").write_text(f"HEALTHCHECK_URLS={NOBODY} {health_url}\n")
    assert _health(tmp_path).returncode == 0
    (tmp_path / ".env").write_text(f"HEALTHCHECK_URLS={NOBODY}\n")
    assert _health(tmp_path).returncode == 1


def test_a_setting_it_cannot_read_is_one_line_and_the_urls_still_count(tmp_path, health_url):
    """A misspelt setting stops every command; the health check says it in one line and still asks the
    health URLs (a bot that started before the change still answers)."""
    (tmp_path / ".env").write_text(f"DEEPRESEARCH_REDIS_UR=redis://127.0.0.1:9/0\nHEALTHCHECK_URLS={health_url}\n")
    out = _health(tmp_path)
    assert out.returncode == 0
    assert out.stderr.splitlines() == [f"health: unknown setting DEEPRESEARCH_REDIS_UR in {tmp_path / '.env'}, line 1: "
                                       "not one of the DEEPRESEARCH_ settings (did you mean DEEPRESEARCH_REDIS_URL?)"]
    (tmp_path / ".env").write_text(f"REDIS_URL=http://127.0.0.1:9/\nHEALTHCHECK_URLS={NOBODY}\n")
    out = _health(tmp_path)
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.splitlines()[0].startswith("health: invalid setting REDIS_URL: "), out.stderr
