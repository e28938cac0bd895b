"""pandoc runs out of the reach of signals meant for the process that renders (a work horse, a terminal's
Ctrl-C), and a Word build stops when the turn is cancelled, logged as a cancel, not as a failure."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pypandoc
import pytest

from tests.waiting import scaled, wait_exit, wait_for

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process groups and sh")

#: A pandoc that waits at the gate before a matching conversion: it says it started, then runs the real
#: pandoc once the test opens the gate (a file), so a signal can be sent while it runs.
GATED_PANDOC = """#!/bin/sh
case " $* " in
  *" {pattern}"*)
    echo $$ > "{gate}/started"
    while [ ! -e "{gate}/go" ]; do sleep 0.02; done ;;
esac
exec "{real}" "$@"
"""

#: The renderer: a work horse's handlers (each signal only noted), the report rendered as a run does.
RENDERER = textwrap.dedent("""
    import json, logging, signal, sys, threading
    from pathlib import Path
    from engine.render.outputs import render_outputs
    from engine.render.reread import document_from_markdown

    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(message)s")
    gate, cancel_when_started = Path(sys.argv[1]), sys.argv[2] == "cancel"
    noted = []

    def note(signum, _frame):
        noted.append(signum)
        (gate / "noted").write_text(str(len(noted)))

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGRTMIN):
        signal.signal(sig, note)
    cancel = threading.Event()

    def cancel_once_started():
        while not (gate / "started").exists():
            threading.Event().wait(0.02)
        cancel.set()

    def signal_the_docx_thread():  # the kernel may hand a process's signal to any thread not blocking it
        while not (gate / "started").exists():
            threading.Event().wait(0.02)
        docx = next(t for t in threading.enumerate() if t.name.startswith("docx"))
        signal.pthread_kill(docx.ident, signal.SIGTERM)

    if cancel_when_started:
        threading.Thread(target=cancel_once_started, daemon=True).start()
    if sys.argv[2] == "thread":
        threading.Thread(target=signal_the_docx_thread, daemon=True).start()
    doc = document_from_markdown("# Heat pumps\\n\\n## Findings\\n\\nCommon [1].\\n\\n## Sources\\n\\n"
                                 "1. [Costs](<https://example.com/costs>)\\n")
    paths = render_outputs(doc, gate / "out", timeout=0.001, cancel=cancel)  # the PDF is not the subject here
    print(json.dumps(paths))
""")


def _renderer(tmp_path: Path, pattern: str, mode: str = "") -> tuple[subprocess.Popen, Path]:
    """A renderer in a process group of its own (as RQ's work horse is), its pandoc gated on ``pattern``."""
    gate = tmp_path / "gate"
    gate.mkdir()
    fake = tmp_path / "pandoc"
    fake.write_text(GATED_PANDOC.format(pattern=pattern, gate=gate, real=pypandoc.get_pandoc_path()))
    fake.chmod(0o755)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYPANDOC_PANDOC": str(fake), "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-c", RENDERER, str(gate), mode], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    return proc, gate


def _pandoc_gone(gate: Path) -> bool:
    pid = int((gate / "started").read_text())
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


@pytest.mark.parametrize(("sig", "pattern"), [
    (signal.SIGRTMIN, "--to=docx"),  # the hand-back signal, as RQ's kill_horse sends it: to the whole group
    (signal.SIGTERM, "--to=docx"),
    (signal.SIGINT, "--to=latex"),  # Ctrl-C in the terminal reaches the whole foreground group
    (signal.SIGTERM, "--to=json"),  # the Markdown read that every output starts with
])
def test_signals_to_the_renderers_group_never_reach_pandoc(tmp_path, sig, pattern):
    proc, gate = _renderer(tmp_path, pattern)
    try:
        wait_for(lambda: (gate / "started").exists() or proc.poll() is not None, what=f"pandoc {pattern} to start")
        assert proc.poll() is None, proc.stderr.read()
        os.killpg(proc.pid, sig)
        wait_for(lambda: (gate / "noted").exists() or proc.poll() is not None, what="the renderer to note the signal")
        assert proc.poll() is None, proc.stderr.read()
        (gate / "go").touch()
        assert wait_exit(proc, what="the render to end") == 0, proc.stderr.read()
        paths, log = json.loads(proc.stdout.read()), proc.stderr.read()
        assert Path(paths["docx"]).stat().st_size > 5000 and "docx_error" not in paths, log
        assert "docx_failed" not in log and not (gate / "out" / "docx-error.log").exists()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_a_signal_the_kernel_hands_to_the_word_build_thread_is_noted_while_pandoc_runs(tmp_path):
    # the main thread waits for the Word build; a signal that lands on the build's thread must still
    # reach the main thread's handler before the build ends, as a hand-back cannot wait for pandoc
    proc, gate = _renderer(tmp_path, "--to=docx", "thread")
    try:
        wait_for(lambda: (gate / "noted").exists() or proc.poll() is not None,
                 what="the renderer to note the signal while pandoc waits at its gate")
        assert proc.poll() is None, proc.stderr.read()
        (gate / "go").touch()
        assert wait_exit(proc, what="the render to end") == 0, proc.stderr.read()
        assert Path(json.loads(proc.stdout.read())["docx"]).stat().st_size > 5000
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_a_cancelled_word_build_stops_pandoc_and_is_logged_as_a_cancel(tmp_path):
    proc, gate = _renderer(tmp_path, "--to=docx", "cancel")
    try:
        # the gate never opens: only the cancel ends this pandoc
        assert wait_exit(proc, what="the cancelled render to end", timeout=scaled(60)) == 0, proc.stderr.read()
        paths, log = json.loads(proc.stdout.read()), proc.stderr.read()
        assert "docx" not in paths and paths["docx_error"] == "Word build cancelled"
        assert 'INFO event=docx_failed error="Word build cancelled"' in log.splitlines()
        assert "WARNING event=docx_failed" not in log
        assert _pandoc_gone(gate)
        assert not list((gate / "out").glob(".report-*")) and not list((gate / "out").glob("*.docx"))
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_pandoc_dies_with_the_renderer_even_by_sigkill(tmp_path):
    proc, gate = _renderer(tmp_path, "--to=json")
    try:
        wait_for(lambda: (gate / "started").exists() or proc.poll() is not None, what="pandoc --to=json to start")
        assert proc.poll() is None, proc.stderr.read()
        proc.kill()  # the renderer alone: pandoc is in a session of its own, out of reach of its group
        proc.wait()
        wait_for(lambda: _pandoc_gone(gate), what="pandoc to die with the renderer")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        (gate / "go").touch()  # a pandoc still waiting (the failing case) goes on and ends


def test_a_cancel_stops_the_latex_conversion_at_the_next_pandoc_call(tmp_path):
    proc, gate = _renderer(tmp_path, "--to=latex", "cancel")
    try:
        # the gate never opens: only the cancel ends this pandoc
        assert wait_exit(proc, what="the cancelled render to end", timeout=scaled(60)) == 0, proc.stderr.read()
        paths, log = json.loads(proc.stdout.read()), proc.stderr.read()
        assert paths["pdf_error"] == "LaTeX build cancelled" and "pdf" not in paths, log
        assert paths["docx_error"] == "Word build cancelled" and "docx" not in paths, log
        assert "WARNING" not in log and _pandoc_gone(gate)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        (gate / "go").touch()


def test_the_death_signal_is_armed_between_fork_and_exec_without_loading_a_library(monkeypatch):
    """A library loaded in the child (``ctypes.CDLL``: dlopen) waits for the loader's lock, which a
    thread of the parent may have held at the fork: the child would hang before pandoc starts."""
    import ctypes

    from engine.render.texguard import parent_death_preexec

    pr_get_pdeathsig = 2  # <linux/prctl.h>
    prctl = ctypes.CDLL(None, use_errno=True).prctl  # the test's own, looked up before the fork
    arm = parent_death_preexec(os.getpid())

    def no_library(*args, **kwargs):
        raise AssertionError("a library was loaded in the child")

    monkeypatch.setattr(ctypes, "CDLL", no_library)
    child = os.fork()
    if child == 0:  # the child: arm, read the signal back, exit at once
        armed = ctypes.c_int(-1)
        try:
            arm()
            prctl(pr_get_pdeathsig, ctypes.byref(armed), 0, 0, 0)
        finally:
            os._exit(0 if armed.value == signal.SIGTERM else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_pandoc_slow_to_read_its_input_still_gets_all_of_it(tmp_path, monkeypatch):
    """A pandoc that read nothing in the first tenth of a second (a busy machine) was sent the first
    64 KB of its input and never the rest, nor an end of input: it waited for more, and the report's
    files were never built, whatever DEEPRESEARCH_PDF_TIMEOUT said."""
    from engine.render.pandoc import convert_text

    slow = tmp_path / "slow-pandoc"
    slow.write_text(f'#!/bin/sh\nsleep 0.5\nexec "{pypandoc.get_pandoc_path()}" "$@"\n')
    slow.chmod(0o755)
    monkeypatch.setattr(pypandoc, "get_pandoc_path", lambda: str(slow))
    paragraphs = [f"Paragraph {n}: heat pumps move heat with a refrigerant cycle." for n in range(3000)]
    source = "\n\n".join(paragraphs)
    assert len(source.encode()) > 2 * 65536  # more than a pipe holds
    done: list[str] = []
    worker = threading.Thread(target=lambda: done.append(convert_text(source, "plain", "markdown")), daemon=True)
    worker.start()
    worker.join(scaled(120))
    assert done, "pandoc never finished: its input was not all sent"
    assert done[0].rstrip("\n").split("\n\n") == paragraphs
