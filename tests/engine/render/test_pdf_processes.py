"""The LaTeX build never outlives its process: SIGKILL, SIGTERM, stale build folders."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from engine.render import pdf as pdf_module

ROOT = Path(__file__).resolve().parents[3]
SPIN = "\\documentclass{article}\n\\begin{document}\n\\def\\spin{\\spin}\\spin\n\\end{document}\n"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _stat(pid: int) -> tuple[str, int, str] | None:
    """``(name, parent pid, state)`` of a process, None when it is gone."""
    try:
        head, tail = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)
    except OSError:
        return None
    fields = tail.split()
    return head.split("(", 1)[1], int(fields[1]), fields[0]


def alive(pid: int) -> bool:
    """True unless the process is gone or a zombie (an orphan's zombie may never be reaped in a container)."""
    info = _stat(pid)
    return info is not None and info[2] not in ("Z", "X")


def working_in(folder: Path) -> dict[int, str]:
    """Live processes whose working directory is ``folder`` or below it (latexmk, sh, xelatex, the guard)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if cwd.startswith(str(folder) + "/") and alive(int(entry.name)):
            found[int(entry.name)] = (_stat(int(entry.name)) or ("?",))[0]
    return found


def wait_until(cond, what: str, timeout: float = 120.0):
    """Poll ``cond`` (an event in another process) until truthy; the timeout only catches a hang."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def kill_all(proc: subprocess.Popen, folder: Path) -> None:
    """SIGKILL ``proc`` if it still runs and every process working in ``folder``: what a failing test left behind."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    for pid in working_in(folder):
        os.kill(pid, signal.SIGKILL)


def start_builder(tmp_path: Path) -> subprocess.Popen:
    """A process building a PDF that never finishes (TeX spins) with a long time limit."""
    script = textwrap.dedent(f"""
        from pathlib import Path
        from engine.render.pdf import build_pdf
        build_pdf({SPIN!r}, Path({str(tmp_path / "out")!r}), timeout=600)
    """)
    (tmp_path / "tmp").mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path / "tmp")}
    return subprocess.Popen([sys.executable, "-c", script], env=env, cwd=ROOT)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_killed_builder_leaves_no_tex_process_and_no_folder(tmp_path, sig):
    proc = start_builder(tmp_path)
    try:
        wait_until(lambda: "xelatex" in working_in(tmp_path / "tmp").values(), "xelatex to start")
        assert list((tmp_path / "tmp").glob(f"report-tex-{proc.pid}-*"))
        proc.send_signal(sig)
        proc.wait(timeout=60)
        wait_until(lambda: not working_in(tmp_path / "tmp"), "no LaTeX process to remain")
        wait_until(lambda: not list((tmp_path / "tmp").glob("report-tex-*")), "the build folder to be removed")
    finally:
        kill_all(proc, tmp_path / "tmp")


def test_build_in_a_thread_stops_when_the_interpreter_exits(tmp_path):
    script = textwrap.dedent(f"""
        import threading, time
        from pathlib import Path
        from engine.render.pdf import build_pdf
        threading.Thread(target=build_pdf, args=({SPIN!r}, Path({str(tmp_path / "out")!r})),
                         kwargs={{"timeout": 600}}).start()
        while not list(Path({str(tmp_path)!r}).glob("report-tex-*/report.log")):
            time.sleep(0.05)
        print("building", flush=True)
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)}
    try:
        proc = subprocess.run([sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 0 and "building" in proc.stdout, proc.stderr
        assert not list(tmp_path.glob("report-tex-*"))
        assert not working_in(tmp_path)
    finally:
        for pid in working_in(tmp_path):  # what a failing run left behind
            os.kill(pid, signal.SIGKILL)


def test_stale_build_folders_of_dead_processes_are_removed(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    gone = tmp_path / f"report-tex-{dead.pid}-abc123"
    mine = tmp_path / f"report-tex-{os.getpid()}-def456"
    legacy_old = tmp_path / "report-tex-k3j4h5g6"
    legacy_new = tmp_path / "report-tex-a1b2c3d4"
    other = tmp_path / "unrelated-folder"
    for folder in (gone, mine, legacy_old, legacy_new, other):
        folder.mkdir()
        (folder / "report.tex").write_text("x")
    hour_ago = time.time() - 2 * pdf_module.LEGACY_STALE_AFTER
    os.utime(legacy_old, (hour_ago, hour_ago))
    removed = pdf_module.clean_stale_builds(tmp_path)
    assert sorted(removed) == sorted([gone, legacy_old])
    assert not gone.exists() and not legacy_old.exists()
    assert mine.exists() and legacy_new.exists() and other.exists()


def test_first_build_of_a_process_cleans_stale_folders(tmp_path, monkeypatch):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    gone = tmp_path / f"report-tex-{dead.pid}-abc123"
    gone.mkdir()
    monkeypatch.setattr(pdf_module.tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(pdf_module, "_stale_cleaned", False)
    result = pdf_module.build_pdf("\\documentclass{article}\\begin{document}x\\end{document}", tmp_path / "out")
    assert result.pdf is not None
    assert not gone.exists()
    assert not list(tmp_path.glob("report-tex-*"))


def test_ctrl_c_during_the_pdf_build_of_ask_stops_latex_at_once(tmp_path):
    """``deepresearch ask`` interrupted while its PDF builds: it exits without waiting for the
    build's time limit, and no LaTeX process or build folder is left."""
    script = textwrap.dedent(f"""
        import sys
        import engine.render.latex
        engine.render.latex.render_latex = lambda doc, cancel=None: {SPIN!r}  # a build that never ends
        from bots.cli import app
        sys.argv = ["deepresearch", "ask", "--offline", "--no-clarify", "What is a heat pump?"]
        app()
    """)
    (tmp_path / "tmp").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEPRESEARCH_", "OPENAI_", "TAVILY_"))}
    env.update({"PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path / "tmp"), "DEEPRESEARCH_DATA_DIR": str(tmp_path / "data"),
                "DEEPRESEARCH_PDF_TIMEOUT": "900", "DEEPRESEARCH_MAX_REVIEW_ITERATIONS": "0"})
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        wait_until(lambda: "xelatex" in working_in(tmp_path / "tmp").values(), "the PDF build to start")
        proc.send_signal(signal.SIGINT)
        # without the stop, the interpreter would wait for the build's 900 s limit
        _, err = proc.communicate(timeout=120)
        assert b"deepresearch: interrupted. Continue with: deepresearch ask --resume" in err, err
        assert not working_in(tmp_path / "tmp")
        assert not list((tmp_path / "tmp").glob("report-tex-*"))
    finally:
        kill_all(proc, tmp_path / "tmp")
