"""The Teams credentials are checked at start-up: a worker with a password Entra ID refuses says it cannot
deliver to Teams, the Teams bot stops with one line naming the setting, and an identity provider that
does not answer holds the start for one short check only."""

from __future__ import annotations

import subprocess
import sys

from tests.bots.console_helpers import ask_env, no_traceback
from tests.bots.test_startup_checks import START_TIMEOUT


def _teams_env(idp, secret: str, login_url: str | None = None) -> dict[str, str]:
    """The Teams settings of the app the fake identity provider knows (``APP_ID``), with ``secret``."""
    from tests.bots.teams.test_auth import APP_ID
    from tests.fakes.identity_provider import CHANNEL_ISSUER, CONNECTOR_SCOPE

    return {"MICROSOFT_APP_ID": APP_ID, "MICROSOFT_APP_PASSWORD": secret,
            "MICROSOFT_OPENID_METADATA_URL": idp.metadata_url, "MICROSOFT_TOKEN_ISSUER": CHANNEL_ISSUER,
            "MICROSOFT_LOGIN_URL": login_url or idp.login_url(), "MICROSOFT_OAUTH_SCOPE": CONNECTOR_SCOPE,
            "REQUESTS_CA_BUNDLE": str(idp.ca_file)}


TEAMS_REFUSED = ("MICROSOFT_APP_PASSWORD was refused by Microsoft Entra ID (invalid_client, AADSTS7000215: Invalid "
                 "client secret provided)")


def test_a_worker_whose_teams_password_entra_id_refuses_says_so_at_start_up(tmp_path, redis_db):
    """A worker left with a wrong or expired ``MICROSOFT_APP_PASSWORD`` asks Entra ID for a token at start-up,
    as the Teams bot does, and says it cannot deliver there (Entra ID's error, never the secret); a token
    endpoint that does not answer is no refusal."""
    from tests.bots.teams.test_auth import APP_ID, SECRET
    from tests.fakes.identity_provider import FakeIdentityProvider

    process_env = {k: v for k, v in ask_env(tmp_path, {"REDIS_URL": redis_db, "DEEPRESEARCH_LLM": "offline"}).items()
                   if not k.startswith(("SLACK_", "MICROSOFT_"))}
    with FakeIdentityProvider({APP_ID: SECRET}) as idp:
        said = []
        for secret, login in (("wrong-secret-4321", None), (SECRET, None),
                              ("wrong-secret-4321", "https://127.0.0.1:9/botframework.com")):
            out = subprocess.run([sys.executable, "-m", "bots.cli", "worker", "--burst"], capture_output=True,
                                 text=True, env={**process_env, "SLACK_BOT_TOKEN": "xoxb-worker",
                                                 "SLACK_API_URL": "http://127.0.0.1:9/api/",
                                                 **_teams_env(idp, secret, login)},
                                 cwd=tmp_path, timeout=START_TIMEOUT)
            assert out.returncode == 0, out.stderr
            said += [ln.partition("logger=jobs.worker ")[2] for ln in out.stderr.splitlines()
                     if "event=worker_surfaces" in ln]
            assert "wrong-secret" not in out.stderr and SECRET not in out.stderr
            no_traceback(out)
    assert said == [f'event=worker_surfaces delivers=slack,terminal cannot=teams why="teams: {TEAMS_REFUSED}; '
                    'their turns wait in the queue for a worker that has these settings"',
                    "event=worker_surfaces delivers=slack,teams,terminal",
                    "event=worker_surfaces delivers=slack,teams,terminal"]


def test_the_teams_bot_whose_password_entra_id_refuses_stops_at_start_with_one_line(tmp_path):
    """As the Slack bot does with a refused ``SLACK_BOT_TOKEN``: exit 1, one line naming the setting, no
    traceback, never the secret."""
    from tests.bots.teams.test_auth import APP_ID, SECRET
    from tests.fakes.identity_provider import FakeIdentityProvider

    with FakeIdentityProvider({APP_ID: SECRET}) as idp:
        env = {"DEEPRESEARCH_LLM": "offline", **_teams_env(idp, "wrong-secret-4321")}
        out = subprocess.run([sys.executable, "-m", "bots.cli", "teams", "--port", "0"], capture_output=True,
                             text=True, env=ask_env(tmp_path, env), cwd=tmp_path, timeout=START_TIMEOUT)
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("deepresearch: ")]
    assert out.returncode == 1, out.stderr
    assert lines == [f"deepresearch: {TEAMS_REFUSED}"], out.stderr
    assert "wrong-secret" not in out.stderr
    no_traceback(out)


def test_the_teams_bot_whose_tenant_entra_id_does_not_know_stops_at_start_with_one_line(tmp_path):
    """A SingleTenant app whose ``MICROSOFT_APP_TENANT_ID`` Entra ID does not know (AADSTS90002): the whole
    line names the setting and says why in Entra ID's words, short, never MSAL's generic text."""
    from tests.bots.teams.test_auth import APP_ID, SECRET
    from tests.fakes.identity_provider import FakeIdentityProvider

    with FakeIdentityProvider({APP_ID: SECRET}, tenants=("botframework.com", "contoso.onmicrosoft.com")) as idp:
        env = {"DEEPRESEARCH_LLM": "offline", **_teams_env(idp, SECRET), "MICROSOFT_APP_TYPE": "SingleTenant",
               "MICROSOFT_APP_TENANT_ID": "contoso-typo.onmicrosoft.com"}
        out = subprocess.run([sys.executable, "-m", "bots.cli", "teams", "--port", "0"], capture_output=True,
                             text=True, env=ask_env(tmp_path, env), cwd=tmp_path, timeout=START_TIMEOUT)
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("deepresearch: ")]
    assert out.returncode == 1, out.stderr
    assert lines == ["deepresearch: MICROSOFT_APP_TENANT_ID was refused by Microsoft Entra ID (invalid_tenant, "
                     "AADSTS90002: Tenant 'contoso-typo.onmicrosoft.com' not found)"], out.stderr
    assert SECRET not in out.stderr
    no_traceback(out)


def test_the_teams_bot_whose_entra_id_does_not_answer_starts_after_one_short_check_and_one_line(tmp_path):
    """An identity provider that takes the connection and never answers holds the start for the check's
    10 s, asked once (no retry), not two 30 s timeouts; one WARNING line says it, never urllib3's own."""
    import time

    import requests

    from tests.bots.teams.test_auth import APP_ID, SECRET
    from tests.fakes.identity_provider import FakeIdentityProvider
    from tests.waiting import wait_exit, wait_for

    with FakeIdentityProvider({APP_ID: SECRET}) as idp:
        idp.stall()
        env = {"DEEPRESEARCH_LLM": "offline", **_teams_env(idp, SECRET)}
        started = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "bots.cli", "teams", "--port", "0"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, env=ask_env(tmp_path, env), cwd=tmp_path)
        said: list[str] = []
        try:
            line = wait_for(lambda: next((ln for ln in iter(proc.stderr.readline, "")
                                          if said.append(ln) or "listening on" in ln), "EOF"),
                            what="the listening line")
            took = time.monotonic() - started
            assert "listening on" in line, "".join(said)
            port = line.rstrip().rpartition(":")[2].partition("/")[0]
            assert requests.get(f"http://127.0.0.1:{port}/healthz", timeout=30).json()["ok"] is True
        finally:
            proc.terminate()
            wait_exit(proc, what="deepresearch teams to stop")
            proc.stderr.close()
        asked, url = len(idp.calls), idp.url
    unchecked = [ln.partition("logger=bots.teams.adapter ")[2].rstrip() for ln in said if "teams_credentials_unchecked" in ln]
    assert unchecked == [f'event=teams_credentials_unchecked why="Microsoft Entra ID did not answer within 10 s '
                         f'({url}/botframework.com/v2.0/.well-known/openid-configuration); the replies\' token '
                         'requests ask it again"'], "".join(said)
    assert took < 25, (took, "".join(said))
    assert asked == 1
    assert "Retrying" not in "".join(said) and "urllib3" not in "".join(said)
