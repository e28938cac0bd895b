"""A Ctrl-C (or SIGTERM) sent again while an interrupted ``ask`` winds down changes nothing: one line,
exit 130, the run resumable; a wind-down that hangs is ended after a bound."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess

import pytest

from tests.bots.console_helpers import ask, ask_cmd, ask_env, python_script, running, thread_of


def _shown_until(proc: subprocess.Popen, text: bytes, shown: bytes = b"") -> bytes:
    """``shown`` and what ``proc`` writes on stderr, read until ``text`` is in it (the output, not a
    clock, says when a stage starts)."""
    while text not in shown:
        chunk = os.read(proc.stderr.fileno(), 4096)
        assert chunk, shown.decode(errors="replace")
        shown += chunk
    return shown


def _interrupted_again_and_again(tmp_path, stage: bytes, again: int, *, from_the_line: bool) -> str:
    """``ask --offline --no-clarify`` sent one SIGINT once it shows ``stage``, then ``again`` again and
    again until it ends: from the moment its "interrupted" line shows (``from_the_line``) or at once,
    while the research is being cancelled. Returns its stderr; asserts exit 130 and one line, the
    resume line."""
    with running(ask_cmd("--offline", "--no-clarify", "What is retrieval-augmented generation?"),
                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ask_env(tmp_path), cwd=tmp_path) as proc:
        shown = _shown_until(proc, stage)
        proc.send_signal(signal.SIGINT)
        if from_the_line:
            shown = _shown_until(proc, b"interrupted", shown)
        while proc.poll() is None:
            proc.send_signal(again)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=0.002)
        rest = proc.stderr.read()
    err = (shown + rest).decode(errors="replace")
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    [line] = [ln for ln in err.splitlines() if "interrupted" in ln]
    assert line.startswith("deepresearch: interrupted. Continue with: deepresearch ask --resume console:"), err
    return err


@pytest.mark.parametrize("again", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_pressed_again_while_the_interrupted_run_winds_down_changes_nothing(tmp_path, again):
    """A second Ctrl-C after "interrupted. Continue with …" was printed, while the run closes its
    files, was taken as a new interrupt by whatever caught it next: a second, contradictory line
    ("interrupted before the research started; nothing was started."); a SIGTERM then made the exit
    code 143. Here the signal is sent again and again from the moment the first line shows until the
    process ends."""
    _interrupted_again_and_again(tmp_path, b"Researching", again, from_the_line=True)


@pytest.mark.parametrize("stage", [b"Checking the question", b"Researching"], ids=["checking", "researching"])
@pytest.mark.parametrize("again", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_pressed_again_before_the_interrupted_runs_line_changes_nothing_either(tmp_path, again, stage):
    """A second Ctrl-C (or a SIGTERM) while the first one's research was being cancelled, before its
    line showed, was raised in the event loop: the cancelled run's shielded close of its checkpoint
    database was cut off ("Task was destroyed but it is pending!", "Exception in thread
    _connection_worker_thread … Event loop is closed"), and a SIGTERM made the exit code 143. The
    first interrupt is the command's one from the moment it lands; the run resumes to one report."""
    err = _interrupted_again_and_again(tmp_path, stage, again, from_the_line=False)
    assert "Task was destroyed" not in err and "Exception in thread" not in err, err
    resumed = ask(tmp_path, "--resume", thread_of(err))
    assert resumed.returncode == 0, resumed.stderr
    assert len(list((tmp_path / "data" / "artifacts").rglob("report.md"))) == 1, resumed.stderr


def test_an_interrupted_research_whose_wind_down_hangs_is_ended_with_one_line(tmp_path):
    """A further Ctrl-C no longer forces an interrupted research through its wind-down, so one that
    hangs (a close that never returns) would leave a process only ``kill -9`` ends: it is ended
    :data:`bots.terminal_signals.WIND_DOWN_BOUND` seconds after the interrupt (0.5 here), exit 130."""
    script = ("import asyncio, os, signal, threading\n"
              "from bots import terminal_signals\n"
              "from bots.console_loop import run_interruptible\n"
              "terminal_signals.WIND_DOWN_BOUND = 0.5\n"
              "terminal_signals.command_ends_the_process()\n"
              "async def research():\n"
              "    try:\n"
              "        os.kill(os.getpid(), signal.SIGINT)\n"
              "        await asyncio.Event().wait()\n"
              "    finally:\n"
              "        threading.Event().wait()  # a close that never returns\n"
              "with terminal_signals.one_interrupt_per_command():\n"
              "    run_interruptible(research)\n")
    code, out, err = python_script(tmp_path, script)
    assert code == 130, err
    assert err == ("\ndeepresearch: interrupted; the run did not finish winding down within 0.5 s, so it was "
                   "ended without waiting (its last saved step is kept).\n"), err


def test_commands_run_in_process_each_end_with_their_own_signals_code_and_leave_the_hosts_handlers(tmp_path):
    """A host running commands in-process (a test's CliRunner): one stopped by SIGTERM (143) made
    every later one a Ctrl-C stopped end with 143 too (the SIGTERM stayed counted), and left its
    SIGTERM handler in the host, which then took a `kill` as a Ctrl-C. A Ctrl-C pressed again while
    the first command winds down changes nothing; the second command is still stopped by its own.
    The host is a child process with Python's own handlers (signals sent to a pytest worker would
    meet whatever handlers its earlier tests left)."""
    script = ("import os, signal, sys, time\n"
              "import engine.settings\n"
              "from typer.testing import CliRunner\n"
              "from bots.cli import app\n"
              "sent = [signal.SIGTERM, signal.SIGINT]\n"
              "def signalled(**_kwargs):\n"
              "    sig = sent.pop(0)\n"
              "    try:\n"
              "        os.kill(os.getpid(), sig)\n"
              "        time.sleep(60)\n"
              "    finally:\n"
              "        if sig == signal.SIGTERM:\n"
              "            os.kill(os.getpid(), signal.SIGINT)  # while it winds down: nothing\n"
              "engine.settings.load_settings = signalled\n"
              "before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}\n"
              f"codes = [CliRunner().invoke(app, ['index', {str(tmp_path)!r}]).exit_code for _ in range(2)]\n"
              "after = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}\n"
              "print(codes, after == before)\n")
    code, out, err = python_script(tmp_path, script)
    assert (code, out) == (0, "[143, 130] True\n"), err
