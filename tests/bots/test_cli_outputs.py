"""Every ``deepresearch`` command with stdout or stderr that cannot take a line (a full device,
``>/dev/full``; a reader that closes at once, ``| head -c0``): as ``ask``, no traceback, the output
silenced and the command's own exit code (0 when its work is done: the index written, the version
or the audit trail printed to nowhere)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.bots.console_helpers import RUN_TIMEOUT, ask_env, write_docs

#: (command line, exit code). ``{docs}`` is a small corpus folder.
COMMANDS = [
    (["--version"], 0),
    (["--help"], 0),
    ([], 2),  # the group's help, as a usage error
    (["bogus"], 2),
    (["ask", "--help"], 0),
    (["ask", ""], 2),
    (["audit"], 0),
    (["audit", "--json"], 0),
    (["audit", "--since", "-1"], 2),
    (["index", "{docs}"], 0),
    (["index", "{docs}/missing"], 2),
    (["index", "--help"], 0),
    (["prune", "--dry-run", "--older-than", "0"], 0),
    (["render", "{docs}/missing.md"], 2),
    (["worker"], 1),  # no REDIS_URL
    (["slack"], 1),  # no SLACK_BOT_TOKEN
    (["teams", "--host", "256.0.0.1"], 1),  # cannot listen
]

#: How the stream under test is given: a full device, or a pipe whose reader has gone. Every command
#: is run on a full device; a pipe whose reader has gone is tried with one command of each kind
#: (a line, a long table or JSON, a usage error, a setting's refusal), each run being a process.
OUTPUTS = ["full", "closed-pipe"]
PIPE_COMMANDS = [(["--version"], 0), (["audit"], 0), (["audit", "--json"], 0), (["index", "{docs}"], 0),
                 (["bogus"], 2), (["worker"], 1)]
#: The commands that write to stderr: usage errors and refusals.
STDERR_COMMANDS = [(args, code) for args, code in COMMANDS if code]


def _audit_trail(data: Path, records: int = 400) -> None:
    """An audit trail long enough that its table or JSON overflows a pipe's buffer."""
    data.mkdir(parents=True, exist_ok=True)
    at = datetime.now(UTC).isoformat()
    with (data / "audit.jsonl").open("w") as trail:
        for n in range(records):
            trail.write(json.dumps({"at": at, "thread": f"console:{n}", "requester": "U1", "status": "done",
                                    "question": "What do solar panels cost? " * 5, "model_calls": 3,
                                    "tokens": 1200}) + "\n")


def _run(tmp_path: Path, args: list[str], stream: str, output: str) -> tuple[int, str]:
    """Run ``deepresearch ARGS`` with ``stream`` (stdout or stderr) on ``output``; returns the exit
    code and what the other stream said."""
    docs = write_docs(tmp_path / "docs")
    _audit_trail(tmp_path / "data")
    argv = [sys.executable, "-m", "bots.cli", *(a.replace("{docs}", str(docs)) for a in args)]
    if output == "full":
        target = open("/dev/full", "w")  # noqa: SIM115 - closed below
    else:
        reader, target = os.pipe()
        os.close(reader)  # the reader is gone before a line is written
    other = "stderr" if stream == "stdout" else "stdout"
    try:
        ran = subprocess.run(argv, **{stream: target, other: subprocess.PIPE}, text=True, cwd=tmp_path,
                             env=ask_env(tmp_path, {"COLUMNS": "200"}), timeout=RUN_TIMEOUT)
    finally:
        target.close() if output == "full" else os.close(target)
    return ran.returncode, ran.stderr if other == "stderr" else ran.stdout


@pytest.mark.parametrize(("args", "code", "output"),
                         [(*c, "full") for c in COMMANDS] + [(*c, "closed-pipe") for c in PIPE_COMMANDS],
                         ids=lambda v: " ".join(v) if isinstance(v, list) else str(v))
def test_a_stdout_that_cannot_take_a_line_is_silenced_and_the_exit_code_stands(tmp_path, args, code, output):
    """``audit >/dev/full``, ``--version >/dev/full`` and ``index DIR >/dev/full`` ended in a
    traceback (ENOSPC) with exit 1; ``| head -c0`` ended with Click's exit 1."""
    returncode, stderr = _run(tmp_path, args, "stdout", output)
    assert returncode == code, stderr
    assert "Traceback" not in stderr and "╭" not in stderr and "Exception ignored" not in stderr, stderr


@pytest.mark.parametrize(("args", "code", "output"),
                         [(*c, "full") for c in STDERR_COMMANDS] + [(*c, "closed-pipe") for c in PIPE_COMMANDS if c[1]],
                         ids=lambda v: " ".join(v) if isinstance(v, list) else str(v))
def test_a_stderr_that_cannot_take_a_line_is_silenced_and_the_exit_code_stands(tmp_path, args, code, output):
    """A usage error's line or a setting's refusal on a full stderr ended with exit 1, not its own code."""
    returncode, stdout = _run(tmp_path, args, "stderr", output)
    assert returncode == code, stdout
    assert "Traceback" not in stdout, stdout


@pytest.mark.parametrize("output", OUTPUTS)
def test_index_writes_the_index_whatever_stdout_is(tmp_path, output):
    returncode, stderr = _run(tmp_path, ["index", "{docs}"], "stdout", output)
    assert returncode == 0, stderr
    assert list((tmp_path / "data").rglob("*.sqlite")), list((tmp_path / "data").rglob("*"))
