"""Long-running commands check the research's search set-up at start-up: a corpus folder that is
not indexed stops `slack`, `teams` and `worker` with one line and exit code 1, before they serve."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.bots.console_helpers import ask_env, no_traceback, unreadable_file, write_docs

#: Bound on a start that should stop at once; reached only when the command starts serving instead.
START_TIMEOUT = 60


@pytest.mark.parametrize("command,env", [
    (["teams", "--port", "0"], {}),
    (["slack", "--port", "0"], {"SLACK_BOT_TOKEN": "xoxb-test-token", "SLACK_SIGNING_SECRET": "secret",
                                 "SLACK_API_URL": "http://127.0.0.1:9/api/"}),
    (["worker", "--burst"], {"REDIS_URL": "redis://127.0.0.1:6379/15"}),
])
def test_an_unindexed_corpus_stops_the_start_with_one_line(tmp_path, command, env):
    docs = write_docs(tmp_path / "docs")
    settings = {"DEEPRESEARCH_SEARCH": "corpus", "DEEPRESEARCH_CORPUS_DIR": str(docs), "DEEPRESEARCH_LLM": "offline",
                **env}
    out = subprocess.run([sys.executable, "-m", "bots.cli", *command], capture_output=True, text=True,
                         env=ask_env(tmp_path, settings), cwd=tmp_path, timeout=START_TIMEOUT)
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("deepresearch: ")]
    assert out.returncode == 1, out.stderr
    assert len(lines) == 1 and f"DEEPRESEARCH_CORPUS_DIR {docs} is not indexed yet" in lines[0], out.stderr
    assert f"deepresearch index {docs}" in lines[0]
    no_traceback(out)


@pytest.mark.parametrize("folder", ["empty", "missing"])
def test_a_corpus_folder_with_nothing_to_index_says_so_instead_of_asking_to_index_it(tmp_path, folder):
    """``deepresearch index`` of such a folder fails: the advice to run it would lead nowhere."""
    docs = tmp_path / folder
    if folder == "empty":
        docs.mkdir()
    settings = {"DEEPRESEARCH_SEARCH": "corpus", "DEEPRESEARCH_CORPUS_DIR": str(docs), "DEEPRESEARCH_LLM": "offline"}
    out = subprocess.run([sys.executable, "-m", "bots.cli", "ask", "--no-clarify", "What is asyncio?"],
                         capture_output=True, text=True, env=ask_env(tmp_path, settings), cwd=tmp_path,
                         timeout=START_TIMEOUT)
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("deepresearch: ")]
    assert out.returncode == 1, out.stderr
    expected = "has no .csv, .docx, .htm, .html" if folder == "empty" else "no such folder"
    assert len(lines) == 1 and f"DEEPRESEARCH_CORPUS_DIR {docs}" in lines[0] and expected in lines[0], out.stderr
    assert "deepresearch index" not in lines[0]
    no_traceback(out)


def test_the_in_process_runner_refuses_to_start_on_an_unindexed_corpus(tmp_path):
    from engine.settings import SettingsError
    from jobs.embedded import _runners, get_runner
    from tests.jobs.conftest import make_settings

    docs = write_docs(tmp_path / "docs")
    settings = make_settings(tmp_path / "data", search="corpus", corpus_dir=docs)
    with pytest.raises(SettingsError, match="is not indexed yet"):
        get_runner(settings)
    assert str((tmp_path / "data").resolve()) not in _runners


def test_a_chat_server_loads_the_language_identifier_before_it_takes_events(tmp_path):
    """The first slash command loaded it inside Slack's 3-second acknowledgement (5.3 s on a busy
    machine): the server's start-up (``bots.serving.prepare``) loads it before any event."""
    probe = ("import engine.language as language\n"
             "from bots.serving import prepare\n"
             "from engine.settings import load_settings\n"
             "assert not language._MODEL\n"
             "prepare(load_settings())\n"
             "assert language._MODEL, 'not loaded'\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=ask_env(tmp_path, {}), cwd=tmp_path, timeout=START_TIMEOUT)
    assert done.returncode == 0, done.stderr


def test_a_misspelt_setting_in_the_env_file_stops_ask_with_one_line(tmp_path):
    """As the same name in the environment does: exit 1, one line naming the file and line, no run."""
    (tmp_path / ".env").write_text("DEEPRESEARCH_LLM=offline\nDEEPRESEARCH_MAX_REVEIW_ITERATIONS=1\n")
    out = subprocess.run([sys.executable, "-m", "bots.cli", "ask", "--no-clarify", "How do heat pumps work?"],
                         capture_output=True, text=True, env=ask_env(tmp_path, {}), cwd=tmp_path, timeout=START_TIMEOUT)
    assert out.returncode == 1, out.stderr
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("deepresearch: ")]
    assert lines == [f"deepresearch: unknown setting DEEPRESEARCH_MAX_REVEIW_ITERATIONS in {tmp_path / '.env'}, "
                     "line 2: not one of the DEEPRESEARCH_ settings (did you mean DEEPRESEARCH_MAX_REVIEW_ITERATIONS?)"]
    assert "thread:" not in out.stderr and not (tmp_path / "data" / "artifacts").exists()
    no_traceback(out)


@pytest.mark.parametrize("env,expected", [
    ({}, 'event=worker_surfaces delivers=terminal partly=teams cannot=slack why="slack: SLACK_BOT_TOKEN is not set: the '
         "Slack bot token (xoxb-...) from OAuth & Permissions; teams: MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD are "
         "not set (only a bot without them, for local testing, can be answered); their turns wait in the queue for "
         'a worker that has these settings"'),
    ({"SLACK_BOT_TOKEN": "xoxb-worker-secret", "MICROSOFT_APP_ID": "app-1", "MICROSOFT_APP_PASSWORD": "pw-secret-2"},
     "event=worker_surfaces delivers=slack,teams,terminal"),
])
def test_a_worker_says_at_start_up_which_surfaces_it_delivers_to(tmp_path, redis_db, env, expected):
    """One line, the missing settings named, never a value; the worker then starts as usual."""
    process_env = {k: v for k, v in ask_env(tmp_path, {"REDIS_URL": redis_db, "DEEPRESEARCH_LLM": "offline"}).items()
                   if not k.startswith(("SLACK_", "MICROSOFT_"))}  # none of the developer's chat settings
    out = subprocess.run([sys.executable, "-m", "bots.cli", "worker", "--burst"], capture_output=True, text=True,
                         env={**process_env, **env}, cwd=tmp_path, timeout=START_TIMEOUT)
    assert out.returncode == 0, out.stderr
    lines = [ln.partition("logger=jobs.worker ")[2] for ln in out.stderr.splitlines() if "event=worker_surfaces" in ln]
    assert lines == [expected], out.stderr
    assert not [ln for ln in out.stderr.splitlines() if "level=INFO" in ln], out.stderr  # LOG_LEVEL unset: WARNING
    assert "secret" not in out.stderr
    no_traceback(out)


@pytest.mark.parametrize("command", [
    ["ask", "--offline", "--no-clarify", "How do heat pumps work?"], ["index", "docs"], ["audit"],
    ["prune", "--dry-run"], ["worker", "--burst"], ["teams", "--port", "0"], ["slack", "--port", "0"],
])
@pytest.mark.parametrize("problem", ["not UTF-8", "unreadable", "a folder", "a named pipe"])
def test_an_env_file_that_cannot_be_read_stops_every_command_with_one_line(tmp_path, command, problem):
    """A settings problem like any other (exit 1), the line naming `.env` and why; never a traceback,
    nor blamed on another file (`audit` said "cannot read the audit trail"). A folder is not passed
    over in silence, and a named pipe is refused unopened: reading it would wait for a writer for ever."""
    import os

    write_docs(tmp_path / "docs")
    env_file = tmp_path / ".env"
    if problem == "not UTF-8":
        env_file.write_bytes(b"DEEPRESEARCH_LLM=offline\n# Gr\xfc\xdfe\n")
        why = "line 2 is not UTF-8 text (byte 0xfc)"
    elif problem == "unreadable":
        unreadable_file(env_file, "DEEPRESEARCH_LLM=offline\n")
        why = "Permission denied"
    elif problem == "a folder":
        env_file.mkdir()
        why = "Is a directory"
    else:
        os.mkfifo(env_file)
        why = "a named pipe (FIFO), not a file"
    out = subprocess.run([sys.executable, "-m", "bots.cli", *command], capture_output=True, text=True,
                         errors="replace", env=ask_env(tmp_path, {"REDIS_URL": "redis://127.0.0.1:9/0"}),
                         cwd=tmp_path, timeout=START_TIMEOUT)
    assert out.returncode == 1, out.stderr
    assert out.stderr.splitlines() == [f"deepresearch: cannot read the settings file {env_file}: {why}"], out.stderr
    assert not out.stdout and not (tmp_path / "data").exists()
    no_traceback(out)


_SLACK_HTTP = {"SLACK_BOT_TOKEN": "xoxb-test-token", "SLACK_SIGNING_SECRET": "secret",
               "SLACK_API_URL": "http://127.0.0.1:9/api/"}


@pytest.mark.parametrize("command", ["teams", "slack"])
@pytest.mark.parametrize("port", ["99999", "65536", "-1"])
def test_a_port_out_of_range_is_refused_in_one_line(tmp_path, command, port):
    """TCP's ports are 0 to 65535 (0: one the system picks): another is bad input (exit 2), refused
    as the command line is read, before a word of listening and never an OverflowError traceback."""
    out = subprocess.run([sys.executable, "-m", "bots.cli", command, "--port", port, "--host", "127.0.0.1"],
                         capture_output=True, text=True, env=ask_env(tmp_path, {"DEEPRESEARCH_LLM": "offline",
                                                                                **_SLACK_HTTP}),
                         cwd=tmp_path, timeout=START_TIMEOUT)
    assert out.returncode == 2, out.stderr
    assert out.stderr.splitlines() == ["deepresearch: --port must be a whole number from 0 to 65535 (0: any free port) "
                                       f"(see 'python -m bots.cli {command} --help')"], out.stderr
    no_traceback(out)


@pytest.mark.parametrize("command", ["teams", "slack"])
def test_a_port_in_use_is_said_in_one_line_and_nothing_claims_to_listen(tmp_path, command):
    """The one line names the port and the system's reason; "listening on" (Teams) and
    ``event=slack_start`` (Slack) come only once the port is bound."""
    import socket

    from tests.fakes.slack_api import FakeSlackAPI

    with socket.create_server(("127.0.0.1", 0)) as taken, FakeSlackAPI() as slack_api:
        port = taken.getsockname()[1]
        env = {"DEEPRESEARCH_LLM": "offline", "LOG_LEVEL": "INFO", "SLACK_BOT_TOKEN": slack_api.token,
               "SLACK_SIGNING_SECRET": "secret", "SLACK_API_URL": slack_api.base_url}
        out = subprocess.run([sys.executable, "-m", "bots.cli", command, "--port", str(port), "--host", "127.0.0.1"],
                             capture_output=True, text=True, env=ask_env(tmp_path, env), cwd=tmp_path,
                             timeout=START_TIMEOUT)
    assert out.returncode == 1, out.stderr
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("deepresearch")]
    assert lines == [f"deepresearch: cannot listen on 127.0.0.1:{port}: Address already in use"], out.stderr
    assert "listening on" not in out.stderr and "event=slack_start" not in out.stderr, out.stderr
    no_traceback(out)


@pytest.mark.parametrize(("command", "path"), [("teams", "/api/messages"), ("slack", "/slack/events")])
def test_each_bot_says_where_it_listens_once_bound_with_the_port_the_system_chose(tmp_path, command, path):
    """``--port 0``: the line names the port bound (never ``:0``) and the path its platform posts to
    (Slack over HTTP, without ``SLACK_APP_TOKEN``), and that port answers."""
    import re

    import requests

    from tests.fakes.slack_api import FakeSlackAPI
    from tests.waiting import wait_exit, wait_for

    with FakeSlackAPI() as slack_api:
        env = {"DEEPRESEARCH_LLM": "offline", "SLACK_BOT_TOKEN": slack_api.token, "SLACK_SIGNING_SECRET": "secret",
               "SLACK_API_URL": slack_api.base_url}
        proc = subprocess.Popen([sys.executable, "-m", "bots.cli", command, "--port", "0", "--host", "127.0.0.1"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                env=ask_env(tmp_path, env), cwd=tmp_path)
        try:
            line = wait_for(lambda: next((ln for ln in iter(proc.stderr.readline, "") if "listening on" in ln),
                                         "EOF"), what="the listening line")
            found = re.fullmatch(rf"deepresearch {command}: listening on http://127\.0\.0\.1:(\d+){path}\n", line)
            assert found and found.group(1) != "0", line
            assert requests.get(f"http://127.0.0.1:{found.group(1)}/healthz", timeout=30).json()["ok"] is True
        finally:
            proc.terminate()
            wait_exit(proc, what=f"deepresearch {command} to stop")
            proc.stderr.close()


@pytest.mark.parametrize("queue", ["", " ", "reserch", "Research"])
def test_a_worker_refuses_a_queue_the_bot_never_sends_to(tmp_path, queue):
    """It would listen forever for nothing: refused as bad input (exit 2), in one line naming the
    queue research turns are sent to, before Redis is asked."""
    out = subprocess.run([sys.executable, "-m", "bots.cli", "worker", "--burst", "--queue", queue],
                         capture_output=True, text=True,
                         env=ask_env(tmp_path, {"REDIS_URL": "redis://127.0.0.1:9/0", "DEEPRESEARCH_LLM": "offline",
                                                "DEEPRESEARCH_REDIS_RETRY_WINDOW": "1"}),
                         cwd=tmp_path, timeout=START_TIMEOUT)
    assert out.returncode == 2, out.stderr
    assert out.stderr.splitlines() == [f"deepresearch: --queue {queue!r} is not a queue the bot sends to: research "
                                       "turns go to 'research' (see 'python -m bots.cli worker --help')"], out.stderr
    no_traceback(out)


_BLANK_SETTINGS = ("DEEPRESEARCH_MAX_REVIEW_ITERATIONS", "DEEPRESEARCH_ALLOW_CLARIFICATION", "DEEPRESEARCH_TAVILY_URL",
                   "DEEPRESEARCH_RESEARCH_MODEL", "DEEPRESEARCH_JOB_TIMEOUT", "DEEPRESEARCH_STRUCTURED_OUTPUT",
                   "OPENAI_API_KEY", "SLACK_API_URL", "MICROSOFT_APP_TYPE")


@pytest.mark.parametrize("where", ["environment", ".env"])
@pytest.mark.parametrize("command", [["prune", "--dry-run"], ["audit"], ["index", "docs"]])
def test_blank_settings_are_their_defaults_in_prune_audit_and_index(tmp_path, command, where):
    """``NAME=`` (or spaces) is as if ``NAME`` were not set: the command runs on the defaults instead
    of refusing an empty number, flag or choice."""
    write_docs(tmp_path / "docs")
    env = {}
    if where == "environment":
        env = dict.fromkeys(_BLANK_SETTINGS, " ")
        env["DEEPRESEARCH_MAX_REVIEW_ITERATIONS"] = ""
    else:
        (tmp_path / ".env").write_text("".join(f"{var}=\n" for var in _BLANK_SETTINGS) + 'DEEPRESEARCH_JOB_TIMEOUT=" "\n')
    out = subprocess.run([sys.executable, "-m", "bots.cli", *command], capture_output=True, text=True,
                         env=ask_env(tmp_path, env), cwd=tmp_path, timeout=START_TIMEOUT)
    assert out.returncode == 0, out.stderr
    assert "invalid setting" not in out.stderr and "deepresearch:" not in out.stderr, out.stderr
    no_traceback(out)


#: Every service a server command asks over the network, each on a closed port: Slack's Web API, Redis
#: (waited for one second at most) and PostgreSQL.
_UNREACHABLE = {"SLACK_API_URL": "http://127.0.0.1:9/api/", "REDIS_URL": "redis://127.0.0.1:9/0",
                "DATABASE_URL": "postgresql://deepresearch@127.0.0.1:9/deepresearch",
                "DEEPRESEARCH_REDIS_RETRY_WINDOW": "1"}


_PROBLEMS = ("data folder is a file", "data folder in /proc", "corpus folder missing", "corpus not indexed")
_EMBEDDED, _EVERY_SERVICE = ("SLACK_API_URL",), ("SLACK_API_URL", "REDIS_URL", "DATABASE_URL")


def _startup_cases() -> list:
    """(command, services, problem): every command with each set of services it can run with (a worker
    needs REDIS_URL), and each local problem it checks (with REDIS_URL the Slack bot leaves the corpus to
    the workers, which research)."""
    cases = []
    for command in (["slack", "--port", "0"], ["teams", "--port", "0"], ["worker", "--burst"]):
        for services in ((_EVERY_SERVICE,) if command[0] == "worker" else (_EMBEDDED, _EVERY_SERVICE)):
            for problem in _PROBLEMS:
                if command[0] == "slack" and "REDIS_URL" in services and problem.startswith("corpus"):
                    continue
                cases.append(pytest.param(command, services, problem, id=f"{command[0]}-{len(services)}-{problem}"))
    return cases


@pytest.mark.parametrize(("command", "services", "problem"), _startup_cases())
def test_a_local_problem_is_said_before_an_unreachable_service(tmp_path, command, services, problem):
    """`slack` said "cannot reach the Slack Web API" (and `teams`, `worker` that Redis or PostgreSQL did not
    answer) while its data folder could not be written: the operator fixed the network only to meet the
    next error. Every local check (settings, corpus, data folder) comes before any that asks another host."""
    env = {"DEEPRESEARCH_LLM": "offline", "SLACK_BOT_TOKEN": "xoxb-test-token", "SLACK_SIGNING_SECRET": "secret",
           **{name: _UNREACHABLE[name] for name in services}}
    if "REDIS_URL" in services:
        env["DEEPRESEARCH_REDIS_RETRY_WINDOW"] = _UNREACHABLE["DEEPRESEARCH_REDIS_RETRY_WINDOW"]
    data = tmp_path / "data"
    if problem.startswith("data folder"):
        if problem.endswith("a file"):
            data.write_text("")
            why = f"{data} is a file, not a folder"
            code, said = 5, f"cannot write under the data folder {data}: {why}"
        else:  # a pseudo file system, where not even root makes a folder
            data = Path("/proc/deepresearch-data")
            env["DEEPRESEARCH_DATA_DIR"] = str(data)
            code, said = 5, f"cannot write under the data folder {data}: the folder cannot be created"
    else:
        docs = tmp_path / "docs"
        if problem == "corpus not indexed":
            write_docs(docs)
            said = f"DEEPRESEARCH_CORPUS_DIR {docs} is not indexed yet"
        else:
            said = f"DEEPRESEARCH_CORPUS_DIR {docs}: no such folder"
        env.update({"DEEPRESEARCH_SEARCH": "corpus", "DEEPRESEARCH_CORPUS_DIR": str(docs)})
        code = 1
    out = subprocess.run([sys.executable, "-m", "bots.cli", *command], capture_output=True, text=True,
                         env=ask_env(tmp_path, env), cwd=tmp_path, timeout=START_TIMEOUT)
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("deepresearch: ")]
    assert out.returncode == code, out.stderr
    assert len(lines) == 1 and lines[0].startswith(f"deepresearch: {said}"), out.stderr
    no_traceback(out)


def test_a_download_links_secret_that_is_no_secret_is_named_before_redis_is_asked(tmp_path):
    """It was said as the port that could not be listened on ("cannot listen on ...: not a secret"),
    and only once Redis answered; now as the file it is, exit 5 (storage), before Redis is asked."""
    secret = tmp_path / "data" / "teams-files.secret"
    secret.parent.mkdir()
    secret.write_text("edited by hand\n")
    env = {"DEEPRESEARCH_LLM": "offline", "REDIS_URL": _UNREACHABLE["REDIS_URL"],
           "DEEPRESEARCH_REDIS_RETRY_WINDOW": _UNREACHABLE["DEEPRESEARCH_REDIS_RETRY_WINDOW"]}
    out = subprocess.run([sys.executable, "-m", "bots.cli", "teams", "--port", "0"], capture_output=True, text=True,
                         env=ask_env(tmp_path, env), cwd=tmp_path, timeout=START_TIMEOUT)
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("deepresearch: ")]
    assert out.returncode == 5, out.stderr
    assert lines == [f"deepresearch: cannot use the download links' secret {secret}: not a secret of 32 bytes in hex "
                     "(remove it to make a new one)"], out.stderr
    no_traceback(out)


def test_a_worker_whose_slack_token_slack_refuses_says_so_at_start_up(tmp_path, redis_db):
    """A worker left with a rotated or revoked ``SLACK_BOT_TOKEN`` asks Slack at start-up, as the bot does,
    and says it cannot deliver there (Slack's error, never the token); a Web API that does not answer is
    no refusal."""
    from tests.fakes.slack_api import FakeSlackAPI

    process_env = {k: v for k, v in ask_env(tmp_path, {"REDIS_URL": redis_db, "DEEPRESEARCH_LLM": "offline"}).items()
                   if not k.startswith(("SLACK_", "MICROSOFT_"))}
    teams = {"MICROSOFT_APP_ID": "app-1", "MICROSOFT_APP_PASSWORD": "pw-secret-2"}
    with FakeSlackAPI() as slack:
        said = []
        for token, api_url in (("xoxb-rotated-secret", slack.base_url), (slack.token, slack.base_url),
                               ("xoxb-rotated-secret", "http://127.0.0.1:9/api/")):
            out = subprocess.run([sys.executable, "-m", "bots.cli", "worker", "--burst"], capture_output=True,
                                 text=True, env={**process_env, **teams, "SLACK_BOT_TOKEN": token,
                                                 "SLACK_API_URL": api_url},
                                 cwd=tmp_path, timeout=START_TIMEOUT)
            assert out.returncode == 0, out.stderr
            said += [ln.partition("logger=jobs.worker ")[2] for ln in out.stderr.splitlines()
                     if "event=worker_surfaces" in ln]
            assert "secret" not in out.stderr
            no_traceback(out)
    assert said == ['event=worker_surfaces delivers=teams,terminal cannot=slack why="slack: SLACK_BOT_TOKEN was '
                    'refused by Slack (invalid_auth); their turns wait in the queue for a worker that has these '
                    'settings"',
                    "event=worker_surfaces delivers=slack,teams,terminal",
                    "event=worker_surfaces delivers=slack,teams,terminal"]


@pytest.mark.parametrize("problem", ["wrong key", "dead base URL"])
def test_a_worker_whose_model_server_refuses_or_does_not_answer_names_the_setting_at_start_up(tmp_path, redis_db,
                                                                                           problem):
    """One line naming ``OPENAI_API_KEY`` (refused) or ``OPENAI_BASE_URL`` (no answer), never the key;
    asked with the models list (no paid call); the worker then starts as usual."""
    from tests.fakes.openai_server import FakeOpenAI

    with FakeOpenAI(api_key="sk-right-key") as fake:
        base = fake.base_url if problem == "wrong key" else "http://127.0.0.1:9/v1"
        env = {"REDIS_URL": redis_db, "DEEPRESEARCH_LLM": "openai", "DEEPRESEARCH_SEARCH": "none", "OPENAI_BASE_URL": base,
               "OPENAI_API_KEY": "sk-wrong-secret"}
        out = subprocess.run([sys.executable, "-m", "bots.cli", "worker", "--burst"], capture_output=True, text=True,
                             env=ask_env(tmp_path, env), cwd=tmp_path, timeout=START_TIMEOUT)
        models_asked = [c for c in fake.calls if c.path.endswith("/models")]
    assert out.returncode == 0, out.stderr
    lines = [ln.partition("logger=jobs.worker ")[2] for ln in out.stderr.splitlines() if "event=worker_model" in ln]
    if problem == "wrong key":
        assert len(models_asked) == 1
        assert lines == [f'event=worker_model_refused why="the model server at OPENAI_BASE_URL {base} rejected the '
                         'API key (OPENAI_API_KEY)"'], out.stderr
    else:
        assert lines == [f'event=worker_model_refused why="the model server at OPENAI_BASE_URL {base} could not be '
                         'reached (APIConnectionError)"'], out.stderr
    assert "sk-wrong-secret" not in out.stderr
    no_traceback(out)
