"""A file shared in a Teams personal chat, read by the bot on one host and researched by a worker on another.

The two processes share only Redis and PostgreSQL; each has its own empty data dir, so the
worker can only find the file through PostgreSQL.
"""

from __future__ import annotations

import os

import psycopg
import pytest

from tests.bots.teams.activities import personal_message
from tests.bots.teams.conftest import free_port
from tests.bots.teams.test_processes import CLI, Proc
from tests.shared_files import pdf_bytes
from tests.waiting import wait_for

pytestmark = pytest.mark.slow

PAGES = ["The Zephyr turbine delivers fourteen megawatts of rated power at coastal sites.",
         "Maintenance costs of the Zephyr turbine fall by thirty percent thanks to its modular gearbox."]


def _env(tmp_path, host: str, redis_db: str, pg_url: str, port: int) -> dict:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path), "REDIS_URL": redis_db,
        "DATABASE_URL": pg_url, "DEEPRESEARCH_LLM": "offline", "DEEPRESEARCH_SEARCH": "none",
        "DEEPRESEARCH_DATA_DIR": str(tmp_path / host), "DEEPRESEARCH_PUBLIC_URL": f"http://127.0.0.1:{port}",
        "DEEPRESEARCH_MAX_REVIEW_ITERATIONS": "0", "DEEPRESEARCH_ALLOW_CLARIFICATION": "false", "LOG_LEVEL": "INFO",
    }


def _healthy(proc: Proc, url: str) -> bool:
    import requests

    assert proc.popen.poll() is None, proc.log.read_text()[-3000:]
    try:
        return requests.get(f"{url}/healthz", timeout=5).ok
    except requests.RequestException:
        return False


def test_a_pdf_read_by_the_bot_on_host_a_is_cited_by_the_worker_on_host_b(tmp_path, clean_env, redis_db, pg_url,
                                                                           connector):
    import requests

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    bot = Proc([CLI, "teams", "--port", str(port)], _env(tmp_path, "a", redis_db, pg_url, port), tmp_path / "teams.log")
    worker = Proc([CLI, "worker"], _env(tmp_path, "b", redis_db, pg_url, port), tmp_path / "worker.log")
    try:
        wait_for(lambda: _healthy(bot, url), what="deepresearch teams to answer /healthz", every=0.1)
        message = personal_message(connector.url, "What maintenance costs does the Zephyr turbine have?",
                                   conversation_id="a:personal-hosts")
        pdf = connector.file_attachment("zephyr.pdf", pdf_bytes(PAGES))
        message["attachments"] = [pdf]
        assert requests.post(f"{url}/api/messages", json=message, timeout=60).status_code in (200, 201)

        def report() -> str | None:
            with psycopg.connect(pg_url) as conn:
                row = conn.execute("SELECT content FROM deepresearch_artifacts WHERE name = 'report.md'").fetchone()
            return bytes(row[0]).decode() if row else None

        wait_for(lambda: report() is not None, what="the worker on host B to store the report",
                 diag=lambda: (tmp_path / "worker.log").read_text()[-3000:])
        text = report()
        assert "thirty percent" in text and f"[zephyr.pdf, page 2](<{pdf['contentUrl']}#page=2>)" in text, text
        assert not (tmp_path / "a" / "threadfiles").exists() and not (tmp_path / "b" / "threadfiles").exists()
        assert "event=thread_file " in (tmp_path / "teams.log").read_text()  # read on host A ...
        assert "event=thread_file " not in (tmp_path / "worker.log").read_text()  # ... and only there
    finally:
        bot.stop()
        worker.stop()
