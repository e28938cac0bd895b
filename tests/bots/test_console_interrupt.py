"""A Ctrl-C as the research starts: exit 130 and one line, without langgraph's "coroutine ... was never
awaited" for the graph steps it made and had not started."""

from __future__ import annotations

import asyncio
import gc
import os
import re
import signal
import subprocess
import sys
import warnings

import pytest

from bots.console_loop import run_interruptible
from tests.bots.console_helpers import (
    RUN_TIMEOUT,
    ask,
    ask_cmd,
    ask_env,
    python_script,
    signalled_as_research_starts,
    write_docs,
)


def _graph_steps_interrupted(dropped_too=None) -> None:
    """Ctrl-C while a graph step runs and another waits for its turn (langgraph's own executor with
    ``max_concurrency`` 1, as :func:`engine.graph.run` sets it); ``dropped_too()`` makes one more
    coroutine and drops it unstarted meanwhile."""
    from langgraph.pregel._executor import AsyncBackgroundExecutor
    from langgraph.pregel._retry import arun_with_retry

    async def graph() -> None:
        running = asyncio.Event()

        async def step() -> None:
            running.set()
            await asyncio.Event().wait()  # ended by the cancel only

        submit = AsyncBackgroundExecutor({"max_concurrency": 1}).submit
        submit(step)
        submit(arun_with_retry, None, None)  # made now, started once the semaphore is free: never
        await running.wait()
        if dropped_too is not None:
            dropped_too()
        os.kill(os.getpid(), signal.SIGINT)
        await asyncio.Event().wait()  # ended by the cancel only

    with pytest.raises(KeyboardInterrupt):
        run_interruptible(graph)


def _unawaited(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if "never awaited" in str(w.message)]


def test_the_graph_steps_langgraph_never_started_are_not_warned_of_when_interrupted():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _graph_steps_interrupted()
        gc.collect()
    assert _unawaited(caught) == []


def test_only_langgraphs_unstarted_steps_are_unsaid_and_only_in_the_interrupted_run():
    async def mine() -> None:
        pass

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _graph_steps_interrupted(dropped_too=lambda: mine())  # a coroutine of ours dropped: still said
        gc.collect()
        assert _unawaited(caught) == [
            "coroutine 'test_only_langgraphs_unstarted_steps_are_unsaid_and_only_in_the_interrupted_run.<locals>.mine' "
            "was never awaited"]
        from langgraph.pregel._retry import arun_with_retry

        arun_with_retry(None, None)  # after the run: said again
        gc.collect()
        assert _unawaited(caught)[1:] == ["coroutine 'arun_with_retry' was never awaited"]


def test_two_ctrl_cs_while_the_event_loop_is_made_end_as_one_interrupt_and_leave_no_half_made_loop(monkeypatch):
    """`kill PID; kill PID` (or two quick Ctrl-Cs) as the run starts: the second signal reached the
    loop half-made, whose collection then printed "Exception ignored in BaseEventLoop.__del__"."""
    from asyncio import selector_events

    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    make_self_pipe = selector_events.BaseSelectorEventLoop._make_self_pipe

    def signalled_twice(loop) -> None:
        monkeypatch.setattr(selector_events.BaseSelectorEventLoop, "_make_self_pipe", make_self_pipe)
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGINT)
        make_self_pipe(loop)

    monkeypatch.setattr(selector_events.BaseSelectorEventLoop, "_make_self_pipe", signalled_twice)
    started = []

    async def work() -> None:
        started.append(True)

    with pytest.raises(KeyboardInterrupt):
        run_interruptible(work)
    gc.collect()
    assert [f"{u.exc_type.__name__}: {u.exc_value}" for u in unraisable] == []
    assert started == []  # interrupted before it began: it never starts


def test_a_ctrl_c_as_the_research_starts_is_one_line_and_exit_130(tmp_path):
    code, err = signalled_as_research_starts(tmp_path, signal.SIGINT)
    assert code == 130, err
    assert "never awaited" not in err and "RuntimeWarning" not in err and "Traceback" not in err, err
    [line] = [ln for ln in err.splitlines() if "interrupted" in ln]
    assert line.startswith("deepresearch: interrupted. Continue with: deepresearch ask --resume console:"), line


def _ignoring_sigint(*, on_a_terminal: bool) -> dict:
    """Popen's arguments for a child started as a shell without job control starts a command in the
    background (``cmd &`` in a script): SIGINT ignored. ``on_a_terminal``: in the foreground process
    group of a terminal of its own (a pseudo-terminal, its stdin), where the terminal's Ctrl-C would
    reach it; else in a session with no terminal (a script run by cron, CI, a supervisor, ssh without one)."""
    if not on_a_terminal:
        return {"start_new_session": True, "preexec_fn": lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)}
    import fcntl
    import pty
    import termios

    _, terminal = pty.openpty()

    def start() -> None:  # after setsid: the pseudo-terminal becomes the session's, its group the foreground
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    return {"start_new_session": True, "preexec_fn": start, "stdin": terminal}


@pytest.mark.parametrize("sigint_ignored", [False, True, "on-a-terminal"],
                         ids=["foreground", "sigint-ignored", "sigint-ignored-on-a-terminal"])
def test_sigterm_stops_a_run_as_ctrl_c_does_with_the_hint_and_exit_143(tmp_path, sigint_ignored):
    """A supervisor's or ``kill``'s SIGTERM: the same saved state and resume line as Ctrl-C, exit
    143 (128 + 15), also for a run started in the background of a script (SIGINT ignored there),
    on a terminal too (where it keeps ignoring SIGINT)."""
    ignore = _ignoring_sigint(on_a_terminal=sigint_ignored == "on-a-terminal") if sigint_ignored else {}
    code, err = signalled_as_research_starts(tmp_path, signal.SIGTERM, **ignore)
    assert code == 143, err
    assert "Traceback" not in err and "never awaited" not in err, err
    hint = re.search(r"deepresearch: interrupted\. Continue with: deepresearch ask --resume (console:\S+)", err)
    assert hint, err
    resumed = ask(tmp_path, "--resume", hint.group(1))
    assert resumed.returncode == 0 and "report.md" in resumed.stdout, resumed.stderr
    assert resumed.stdout.count("report.md") == 1, resumed.stdout


def test_once_the_process_exits_for_an_interrupt_further_signals_are_ignored(tmp_path):
    """A second `kill` or Ctrl-C after "deepresearch: interrupted …" was printed raised in the
    interpreter's shutdown: a traceback from threading._shutdown after the one line. The signals
    here come at shutdown (an exit function); the command itself ignores nothing (run in-process,
    as a test's CliRunner does, it would leave SIGINT ignored for the children of its host)."""
    script = ("import atexit, os, signal, sys\n"
              "from bots import cli\n"
              "from bots.terminal_signals import stop_on_sigterm_as_on_ctrl_c\n"
              "def interrupted():\n"
              "    stop_on_sigterm_as_on_ctrl_c()\n"
              "    raise KeyboardInterrupt\n"
              "cli.app = interrupted\n"
              "def late_signals():\n"
              "    os.kill(os.getpid(), signal.SIGTERM)\n"
              "    os.kill(os.getpid(), signal.SIGINT)\n"
              "    print('exiting', flush=True)\n"
              "atexit.register(late_signals)\n"
              "assert signal.getsignal(signal.SIGINT) is signal.default_int_handler\n"
              "cli.main()\n")
    assert python_script(tmp_path, script) == (130, "exiting\n", "\ndeepresearch: interrupted.\n")


def test_a_command_interrupted_in_process_leaves_sigint_of_its_host_as_it_was(monkeypatch):
    """A command that ignored SIGINT on its way out left a test runner's worker ignoring it, and every
    `ask` that worker started later ignored Ctrl-C (SIG_IGN is inherited): a test waited forever."""
    from typer.testing import CliRunner

    import engine.settings
    from bots.cli import app

    def interrupted(**_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(engine.settings, "load_settings", interrupted)
    before = signal.getsignal(signal.SIGINT)
    result = CliRunner().invoke(app, ["audit"])
    assert result.exit_code == 130 and "interrupted" in result.output
    assert signal.getsignal(signal.SIGINT) is before


def test_a_signal_after_a_finished_command_neither_ends_it_silently_nor_changes_its_exit_code(tmp_path):
    """Python's shutdown puts the default handlers back: a SIGTERM just after the paths were printed
    ended a finished run by the signal (143, "stopped, resumable", and no word)."""
    script = ("import atexit, os, signal\n"
              "from bots import cli\n"
              "cli.app = lambda: print('done', flush=True)\n"
              "atexit.register(lambda: (os.kill(os.getpid(), signal.SIGTERM), print('exiting', flush=True)))\n"
              "cli.main()\n"
              "raise SystemExit(0)\n")
    assert python_script(tmp_path, script) == (0, "done\nexiting\n", "")


def _assert_ended_by(sig: int, tmp_path, script: str) -> None:
    """Run ``script`` with ``python -c``: it ends with the one line and 130 (SIGINT) or 143 (SIGTERM), nothing on stdout."""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=ask_env(tmp_path), timeout=RUN_TIMEOUT)
    code = 143 if sig == signal.SIGTERM else 130
    assert (out.returncode, out.stdout, out.stderr) == (code, "", "\ndeepresearch: interrupted.\n")


def _dropped_then_waiting(sig: int, before: str = "", after: str = "") -> str:
    """A ``python -c`` script whose command has ``sig`` land in a weakref callback (Python drops its
    KeyboardInterrupt there) and then waits 30 s, printing "ran on" if nothing ends the wait;
    ``before``/``after``: lines of the command (indented) before the callback and before the wait."""
    return ("import os, signal, time, weakref\n"
            "from bots import cli, entry, terminal_signals\n"
            "def command():\n"
            f"{before}"
            "    class Held: pass\n"
            "    def released(_ref):\n"
            f"        os.kill(os.getpid(), {int(sig)})\n"
            "        for _ in range(10_000): pass\n"
            "    held = Held()\n"
            "    ref = weakref.ref(held, released)\n"
            "    del held\n"
            f"{after}"
            "    time.sleep(30)\n"
            "    print('ran on', flush=True)\n"
            "cli.app = command\n"
            "entry.main()\n")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_python_only_printed_is_raised_again_where_the_command_runs(tmp_path, sig):
    """CI: a SIGTERM to `deepresearch index` mid-run landed in importlib's module-lock release (a
    weakref callback), where Python prints the KeyboardInterrupt ("Exception ignored in …") and
    drops it: the index was built in full, exit 0. Here the signal lands in such a callback, and
    the command then waits (as on a lock or a socket): it is interrupted there, or runs on after 30 s."""
    _assert_ended_by(sig, tmp_path, _dropped_then_waiting(sig))


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_sent_again_is_sent_until_python_has_handled_it(tmp_path, sig):
    """A signal sent again for a dropped interrupt can land after the main thread's last check and
    before it enters a wait (``sleep``, ``select``): handled by C only, it does not end the wait,
    which then ran to its end (seen as a 30 s stand-in wait). Stand-in for that lost delivery: the
    first one is taken off the thread unhandled (``sigwaitinfo``) before the wait starts; the
    signal is sent again until Python has handled it, so the wait still ends at once."""
    before = ("    again = terminal_signals.SENT_AGAIN_AS\n"
              "    signal.pthread_sigmask(signal.SIG_BLOCK, {again})\n")
    after = ("    assert signal.sigwaitinfo({again}).si_signo == again  # the first one, never handled\n"
             "    signal.pthread_sigmask(signal.SIG_UNBLOCK, {again})\n")
    _assert_ended_by(sig, tmp_path, _dropped_then_waiting(sig, before, after))


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_command_ends_though_a_thread_it_left_waits_for_ever(tmp_path, sig):
    """Two interrupts a few milliseconds apart left an aiosqlite connection's thread (not a daemon)
    waiting for ever: the process said "interrupted" and never ended, a script's `wait` with it.
    Here the command leaves such a thread and is interrupted; the process ends with the interrupt's
    code once the shutdown bound (shortened here) has passed."""
    script = ("import os, threading\n"
              "from bots import cli, entry\n"
              "entry.SHUTDOWN_BOUND = 0.5\n"
              "def command():\n"
              "    threading.Thread(target=threading.Event().wait, name='left-waiting').start()\n"
              f"    os.kill(os.getpid(), {int(sig)})\n"
              "    threading.Event().wait(30)\n"
              "cli.app = command\n"
              "entry.main()\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=ask_env(tmp_path), timeout=60)
    code = 143 if sig == signal.SIGTERM else 130
    assert (out.returncode, out.stdout, out.stderr) == (code, "", "\ndeepresearch: interrupted.\n")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_python_m_exits_with_the_interrupt_code_when_the_signal_landed_in_code_run_from_source_text(tmp_path, sig):
    """CI: `python -m bots.cli index` stopped by SIGTERM said "interrupted." and then ended by SIGINT
    (exit -2, not 143). The signal had landed in code Python runs from source text (``exec`` of a
    string: dataclasses and namedtuple build their methods so, on import); CPython then marks the
    KeyboardInterrupt unhandled although the command caught it, and `-m` ends the process by SIGINT."""
    (tmp_path / "trial_cli.py").write_text(
        "import os\n"
        "from bots import cli, entry\n"
        "def command():\n"
        f"    exec('import os\\nos.kill(os.getpid(), {int(sig)})\\nfor _ in range(10_000): pass\\n')\n"
        "    print('ran on', flush=True)\n"
        "cli.app = command\n"
        "raise SystemExit(entry.main())\n")
    env = ask_env(tmp_path)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", os.getcwd())])
    out = subprocess.run([sys.executable, "-m", "trial_cli"], capture_output=True, text=True, env=env,
                         timeout=RUN_TIMEOUT, cwd=os.getcwd())
    code = 143 if sig == signal.SIGTERM else 130
    assert (out.returncode, out.stdout, out.stderr) == (code, "", "\ndeepresearch: interrupted.\n")


@pytest.mark.parametrize("module", ["bots.terminal_signals", "bots.terminal_streams", "bots.cli"])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_the_entry_loads_its_own_imports_ends_in_one_line(tmp_path, sig, module):
    """An operator's trial: a Ctrl-C about 0.1 s after `deepresearch` started gave a traceback from
    the entry's first import (`from bots.terminal_signals import …`) and exit -2, before any handler
    was in place. Here the signal comes as that module (or one it imports, or the command line) is
    looked for: the command ends with the one line, 130 or 143, and runs nothing."""
    script = ("import os, signal, sys\n"
              "class Press:\n"
              "    def find_spec(self, name, path=None, target=None):\n"
              f"        if name == {module!r}:\n"
              "            sys.meta_path.remove(self)\n"
              f"            os.kill(os.getpid(), {int(sig)})\n"
              "        return None\n"
              "sys.meta_path.insert(0, Press())\n"
              "sys.argv = ['deepresearch', '--version']\n"
              "from bots.entry import main\n"
              "main()\n")
    _assert_ended_by(sig, tmp_path, script)


def _at_the_clarifying_question(tmp_path, **popen) -> tuple[subprocess.Popen, bytes]:
    """``ask solar`` (a question too broad: a clarifying question) with stdin a pipe this test holds
    open, so that the answer is waited for; returns the process and its stderr once the question is shown."""
    docs = write_docs(tmp_path / "docs")
    popen = {"stdin": subprocess.PIPE, **popen}
    proc = subprocess.Popen(ask_cmd("solar", "--offline", "--corpus", str(docs)), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=ask_env(tmp_path), cwd=tmp_path, **popen)
    shown = b""
    while b"Clarifying question:" not in shown:  # the output, not a clock, says when it waits
        chunk = os.read(proc.stderr.fileno(), 4096)
        assert chunk, f"ask ended before its clarifying question: {shown.decode(errors='replace')}"
        shown += chunk
    return proc, shown


#: Bound on the wait for a signalled `ask` to end: it ends within a second when the signal is
#: answered; one that is not would wait for its answer as long as the test holds stdin open.
ANSWERED_WITHIN = 60


@pytest.mark.parametrize("sigint_ignored", [False, True], ids=["sigint-default", "sigint-ignored-no-terminal"])
def test_kill_int_at_the_clarifying_question_ends_130_with_the_resume_line(tmp_path, sigint_ignored):
    """`kill -INT PID` while `ask` waits for its answer on a pipe ends it as Ctrl-C from a terminal does:
    exit 130, the resume line. Also for an `ask` a script started in the background (SIGINT inherited
    ignored) with no terminal a Ctrl-C could come from: the signal was ignored, and `ask` waited until
    stdin closed ("No answer given", exit 3)."""
    popen = _ignoring_sigint(on_a_terminal=False) if sigint_ignored else {}
    proc, shown = _at_the_clarifying_question(tmp_path, **popen)
    try:
        os.kill(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=ANSWERED_WITHIN)  # stdin stays open: only the signal can end it
        except subprocess.TimeoutExpired:
            pytest.fail("SIGINT at the clarifying question was not answered")
        err = (shown + proc.stderr.read()).decode(errors="replace")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdin.close()
    assert proc.returncode == 130, err
    assert "No answer given" not in err and "Traceback" not in err, err
    assert err.count("Clarifying question:") == 1, err
    assert re.search(r"deepresearch: interrupted\. Continue with: deepresearch ask --resume console:\S+", err), err


def test_a_ctrl_c_that_lands_as_a_line_is_written_does_not_show_the_line_twice(tmp_path):
    """`kill -INT` as the clarifying question showed printed the question a second time above the
    "interrupted" line, in about half the runs, and `ask --queue` so printed the worker's last
    message ("Starting the research…"): rich writes a line and then empties its buffer, and the
    follower marks a message shown once printed; a KeyboardInterrupt between the two left it there
    for the next line to write again. Here the signal lands right after each line's write (the
    process sends it to itself from there): a line of the terminal's, the clarifying question, the
    worker's message."""
    script = ("import os, signal, sys\n"
              "from bots import console\n"
              "from bots.console_output import say, say_interrupted_run\n"
              "from bots.console_queue import _Transcript\n"
              "from bots.terminal_signals import one_interrupt_per_command\n"
              "real = sys.stderr\n"
              "class Signalling:\n"
              "    def __getattr__(self, name):\n"
              "        return getattr(real, name)\n"
              "    def write(self, text):\n"
              "        written = real.write(text)\n"
              "        if any(line in text for line in ('thread:', 'Which aspect', 'Starting')):\n"
              "            os.kill(os.getpid(), signal.SIGINT)\n"
              "        return written\n"
              "sys.stderr = Signalling()\n"
              "relayed = _Transcript()  # a worker's message is printed once the next event comes\n"
              "for shown in (lambda: say('thread: console:1'), lambda: console._ask_user('Which aspect?'),\n"
              "              lambda: (relayed({'op': 'post', 'text': 'Starting the research'}), relayed.flush())):\n"
              "    with one_interrupt_per_command():\n"
              "        try:\n"
              "            shown()\n"
              "        except KeyboardInterrupt:\n"
              "            relayed.flush()  # as ask --queue does before its line\n"
              "            say_interrupted_run('\\ndeepresearch: interrupted.')\n")
    code, _, err = python_script(tmp_path, script)
    assert code == 0, err
    assert [err.count(line) for line in ("thread: console:1", "Which aspect?", "Starting the research",
                                         "deepresearch: interrupted.")] == [1, 1, 1, 3], err


def _sigint_at_start(tmp_path, **popen) -> str:
    """SIGINT's handler as a command of the console script's entry sees it, in a process started with
    ``popen``: "ignored", "python" (``KeyboardInterrupt``) or another's repr."""
    probe = ("import signal\nfrom bots import cli, entry\n"
             "def command():\n"
             "    handler = signal.getsignal(signal.SIGINT)\n"
             "    print({signal.SIG_IGN: 'ignored', signal.default_int_handler: 'python'}.get(handler, repr(handler)))\n"
             "cli.app = command\nentry.main()\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=ask_env(tmp_path),
                         timeout=RUN_TIMEOUT, **popen)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_sigint_inherited_ignored_stays_so_only_where_a_terminals_ctrl_c_would_reach_the_command(tmp_path):
    """A shell without job control starts `cmd &` with SIGINT ignored so that the terminal's Ctrl-C,
    meant for the command in the foreground, does not stop it: on a terminal, in its foreground
    group, the command keeps ignoring SIGINT. Where no terminal's Ctrl-C can come (no terminal), a
    SIGINT is someone's `kill -INT`: Python's handler is put back."""
    assert _sigint_at_start(tmp_path, **_ignoring_sigint(on_a_terminal=True)) == "ignored"
    assert _sigint_at_start(tmp_path, **_ignoring_sigint(on_a_terminal=False)) == "python"
    assert _sigint_at_start(tmp_path, start_new_session=True) == "python"


def test_a_run_that_keeps_sigint_ignored_ignores_it_while_it_researches_too(tmp_path):
    """Started in the background of a script on a terminal (SIGINT ignored, the terminal's Ctrl-C
    would reach it): a SIGINT as the research starts is ignored there as at the clarifying question
    (it stopped the research: the handler the research installs took the place of the ignored
    one); the run ends with its report. SIGTERM still stops it (see above)."""
    code, err = signalled_as_research_starts(tmp_path, signal.SIGINT, **_ignoring_sigint(on_a_terminal=True))
    assert code == 0, err
    assert "interrupted" not in err, err
