"""`deepresearch teams` and `deepresearch worker` as separate processes on Redis: delivery from the worker.

The web process and the worker are both restarted between the clarifying question and its
answer, and the web process is stopped before the results arrive, so everything after the
answer can only have come from the worker, through the stored conversation reference.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from tests.bots.teams.activities import channel_mention, file_consent, personal_message
from tests.bots.teams.conftest import free_port
from tests.waiting import LONG, wait_for

CLI = str(Path(sys.executable).with_name("deepresearch"))
ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.slow


class Proc:
    """A child process in its own session, stopped (SIGTERM, then SIGKILL) by its own id."""

    def __init__(self, args: list[str], env: dict, log: Path) -> None:
        self.log = log
        self.handle = log.open("ab")
        self.popen = subprocess.Popen(args, env=env, cwd=ROOT, stdout=self.handle, stderr=subprocess.STDOUT,
                                      start_new_session=True)

    def stop(self) -> None:
        """SIGTERM its group; SIGKILL if it still runs after ``LONG / 4`` s (beyond any shutdown grace)."""
        if self.popen.poll() is None:
            os.killpg(self.popen.pid, signal.SIGTERM)
            try:
                self.popen.wait(LONG / 4)
            except subprocess.TimeoutExpired:
                os.killpg(self.popen.pid, signal.SIGKILL)
                self.popen.wait(LONG)
        self.handle.close()


@pytest.fixture
def processes(tmp_path, clean_env, redis_db):
    port = free_port()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "REDIS_URL": redis_db,
        "DEEPRESEARCH_LLM": "offline",
        "DEEPRESEARCH_SEARCH": "none",
        "DEEPRESEARCH_DATA_DIR": str(tmp_path / "data"),
        "DEEPRESEARCH_PUBLIC_URL": f"http://127.0.0.1:{port}",
        "DEEPRESEARCH_MAX_REVIEW_ITERATIONS": "0",
        "LOG_LEVEL": "INFO",
    }
    started: list[Proc] = []

    class Launcher:
        """Starts the processes with ``env`` (changeable before the first start)."""

        url = f"http://127.0.0.1:{port}"

        def bot(self) -> Proc:
            proc = Proc([CLI, "teams", "--port", str(port)], env, tmp_path / "teams.log")
            started.append(proc)

            def healthy() -> bool:
                assert proc.popen.poll() is None, (tmp_path / "teams.log").read_text()
                try:
                    return requests.get(f"{self.url}/healthz", timeout=5).ok
                except requests.RequestException:
                    return False

            wait_for(healthy, what="deepresearch teams to answer /healthz", every=0.1,
                     diag=lambda: (tmp_path / "teams.log").read_text()[-2000:])
            return proc

        def worker(self) -> Proc:
            proc = Proc([CLI, "worker"], env, tmp_path / "worker.log")
            started.append(proc)
            return proc

        def send(self, activity: dict, headers: dict | None = None) -> int:
            return requests.post(f"{self.url}/api/messages", json=activity, headers=headers, timeout=60).status_code

    Launcher.env = env

    yield Launcher()
    for proc in started:
        proc.stop()


def _cards(connector, conv: str, kind: str) -> list[dict]:
    return [a for m in connector.messages(conv) for a in m.attachments if a["contentType"].endswith(kind)]


def _download_cards(connector, conv: str) -> list[dict]:
    """The Adaptive Cards of download links (not the cards of buttons)."""
    return [c for c in _cards(connector, conv, "card.adaptive")
            if any(a["type"] == "Action.OpenUrl" for a in c["content"].get("actions", []))]


def test_web_and_worker_processes_carry_both_conversations(processes, connector, tmp_path):
    bot, worker = processes.bot(), processes.worker()
    personal = personal_message(connector.url, "heat pumps", conversation_id="a:personal-procs")
    channel = channel_mention(connector.url, "heat pumps")
    conv_p, conv_c = personal["conversation"]["id"], channel["conversation"]["id"]
    assert processes.send(personal) in (200, 201)
    assert processes.send(channel) in (200, 201)
    for conv in (conv_p, conv_c):
        connector.wait_for(lambda c, conv=conv: any("?" in m.text and "broad" in m.text for m in c.messages(conv)),
                           what=f"clarifying question in {conv}")

    # restart both processes while the graphs are paused
    bot.stop()
    worker.stop()
    bot, worker = processes.bot(), processes.worker()
    assert processes.send(personal_message(connector.url, "EU market size and growth 2020 to 2024",
                                           conversation_id=conv_p)) in (200, 201)
    answer = channel_mention(connector.url, "Residential installations in Germany since 2020", root_id=channel["id"])
    assert processes.send(answer) in (200, 201)

    # the web process goes away: everything that follows comes from the worker
    bot.stop()
    calls_before = len(connector.calls)
    connector.wait_for(lambda c: len(_cards(c, conv_p, "file.consent")) == 3 and _download_cards(c, conv_c),
                       what="files in both conversations")
    assert len(connector.calls) > calls_before
    assert any(m.text.startswith("**") and "2020" in m.text for m in connector.messages(conv_p)), "summary"

    # a web process again, for the consent answer and the download link
    processes.bot()
    card = next(a for a in _cards(connector, conv_p, "file.consent") if a["name"] == "report.pdf")
    invoke = file_consent(connector.url, "accept", card["content"]["acceptContext"],
                          upload_url=connector.upload_url("report.pdf"), name="report.pdf", conversation_id=conv_p)
    assert processes.send(invoke) == 200
    assert connector.uploads["report.pdf"].startswith(b"%PDF")
    assert _cards(connector, conv_p, "file.info")
    (links,) = _download_cards(connector, conv_c)
    url = next(a["url"] for a in links["content"]["actions"] if a["title"] == "Download report.pdf")
    pdf = requests.get(url, timeout=60)
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    worker.stop()
    assert "event=teams_auth_disabled" in (tmp_path / "teams.log").read_text()


def test_with_authentication_the_worker_delivers_with_a_token_from_the_token_endpoint(processes, connector):
    from tests.bots.teams.test_auth import APP_ID, SECRET
    from tests.fakes.identity_provider import CHANNEL_ISSUER, CONNECTOR_SCOPE, FakeIdentityProvider

    with FakeIdentityProvider({APP_ID: SECRET}) as idp:
        processes.env.update(MICROSOFT_APP_ID=APP_ID, MICROSOFT_APP_PASSWORD=SECRET,
                             MICROSOFT_OPENID_METADATA_URL=idp.metadata_url, MICROSOFT_TOKEN_ISSUER=CHANNEL_ISSUER,
                             MICROSOFT_LOGIN_URL=idp.login_url(), MICROSOFT_OAUTH_SCOPE=CONNECTOR_SCOPE,
                             REQUESTS_CA_BUNDLE=str(idp.ca_file))
        connector.require_token(lambda token: token in idp.tokens())
        processes.bot()
        processes.worker()
        activity = personal_message(connector.url, "heat pumps", conversation_id="a:personal-auth")
        assert processes.send(activity) == 401  # unsigned
        token = idp.channel_token(APP_ID, connector.url)
        assert processes.send(activity, headers={"Authorization": f"Bearer {token}"}) in (200, 201)
        connector.wait_for(lambda c: any("?" in m.text and "broad" in m.text for m in c.messages("a:personal-auth")),
                           what="the clarifying question, posted by the worker")
        issued = {t.token for t in idp.issued}
        assert {t.client_id for t in idp.issued} == {APP_ID}
        assert connector.calls and all(c.authorization.removeprefix("Bearer ") in issued for c in connector.calls)
        # per process: one token for its start-up check (bots.teams.credentials.check_token, a client of its
        # own: 10 s, no retry) and one for its replies, then cached (every call above carried one of them)
        assert len(idp.issued) == 4
        assert len({c.authorization for c in connector.calls}) == 2
        (typing,) = connector.typing()  # from the web process
        assert all(m.authorization != typing.authorization for m in connector.messages())  # the worker's own token
