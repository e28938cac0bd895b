"""Running `deepresearch ask` as a real process for the terminal tests: environment, corpus, mount namespaces."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Bound on one `ask` run; only reached when something hangs (the runs take seconds).
RUN_TIMEOUT = 300


def ask_env(tmp_path: Path, env: dict | None = None) -> dict:
    """The process environment: no settings from the developer's shell, the data dir under ``tmp_path``."""
    base = {k: v for k, v in os.environ.items()
            if not k.startswith("DEEPRESEARCH_")
            and k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY", "REDIS_URL", "LOG_LEVEL")}
    base.update({"DEEPRESEARCH_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(ROOT),
                 "XDG_STATE_HOME": str(tmp_path / "state")})
    base.update(env or {})
    return base


def ask_cmd(*args: str | bytes) -> list:
    """The command line of ``deepresearch ask ARGS`` (bytes arguments are passed as they are)."""
    return [sys.executable, "-m", "bots.cli", "ask", *args]


def ask(tmp_path: Path, *args: str | bytes, env: dict | None = None, stdin: str = "",
        **popen) -> subprocess.CompletedProcess:
    """Run ``deepresearch ask ARGS`` to its end; text output (undecodable bytes replaced)."""
    return subprocess.run(ask_cmd(*args), input=stdin, capture_output=True, text=True, errors="replace",
                          env=ask_env(tmp_path, env), cwd=tmp_path, timeout=RUN_TIMEOUT, **popen)


def ask_offline(tmp_path: Path, document: str, question: str) -> tuple[subprocess.CompletedProcess, str]:
    """``deepresearch ask --offline --no-clarify`` over a corpus of one Markdown ``document`` (UTF-8):
    the finished process, and its report.md (written under ``tmp_path / "out"``); fails the test when the
    run does."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "page.md").write_text(document, encoding="utf-8")
    out = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), "--out", str(tmp_path / "out"), question)
    assert out.returncode == 0, out.stderr[-2000:]
    return out, (tmp_path / "out" / "report.md").read_text(encoding="utf-8")


def cli(tmp_path: Path, *args: str | bytes) -> subprocess.CompletedProcess:
    """Run ``python -m bots.cli ARGS`` (bytes arguments are passed as they are) to its end, 80 columns
    wide, in ``tmp_path``; its output as text."""
    return subprocess.run([sys.executable, "-m", "bots.cli", *args], capture_output=True, text=True,
                          env={**ask_env(tmp_path), "COLUMNS": "80"}, cwd=tmp_path, timeout=RUN_TIMEOUT)


def cli_commands() -> dict:
    """The ``deepresearch`` group's commands, by name, as Click sees them."""
    import typer

    from bots.cli import app

    return typer.main.get_command(app).commands


def cli_here(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *args: str):
    """``deepresearch ARGS`` in this process (Click's ``CliRunner``), named as the console script
    names itself, in ``tmp_path`` with the data folder under it."""
    from typer.testing import CliRunner

    from bots.cli import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(tmp_path / "data"))
    return CliRunner().invoke(app, list(args), prog_name="deepresearch")


def python_script(tmp_path: Path, script: str) -> tuple[int, str, str]:
    """``(exit code, stdout, stderr)`` of ``python -c SCRIPT`` with the project importable."""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=ask_env(tmp_path),
                         timeout=RUN_TIMEOUT)
    return out.returncode, out.stdout, out.stderr


@contextmanager
def running(args: list, **popen) -> Iterator[subprocess.Popen]:
    """``subprocess.Popen(args, **popen)`` for the block, killed (and waited for) if it still runs
    when the block ends: a failed assertion leaves no process behind."""
    proc = subprocess.Popen(args, **popen)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def signalled_as_research_starts(tmp_path: Path, signum: int, *args: str, env: dict | None = None,
                                 **popen) -> tuple[int, str]:
    """Run ``ask ARGS`` (by default ``--offline --no-clarify`` and a question), send ``signum`` once it
    says it is researching; returns (exit code, stderr)."""
    args = args or ("--offline", "--no-clarify", "What is retrieval-augmented generation?")
    with running(ask_cmd(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ask_env(tmp_path, env),
                 cwd=tmp_path, **popen) as proc:
        shown = b""
        while b"Researching" not in shown:  # the output, not a clock, says when the stage starts
            chunk = os.read(proc.stderr.fileno(), 4096)
            assert chunk, f"ask ended before the researching stage: {shown.decode(errors='replace')}"
            shown += chunk
        proc.send_signal(signum)
        _, rest = proc.communicate(timeout=RUN_TIMEOUT)
    return proc.returncode, (shown + rest).decode(errors="replace")


def write_docs(folder: Path) -> Path:
    """A three-document corpus about home solar power."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "a.md").write_text("# Solar panels\n\nSolar panels convert sunlight into electricity with "
                                 "photovoltaic cells. Modern solar panels reach an efficiency of about 22 percent "
                                 "in 2025.\n")
    (folder / "b.txt").write_text("Inverters\n\nAn inverter turns the direct current of solar panels into "
                                  "alternating current for the home. String inverters are the cheapest kind of "
                                  "solar inverter.\n")
    (folder / "c.html").write_text("<title>Batteries</title><p>Home batteries store solar electricity for the "
                                   "evening. A typical home battery for solar panels holds 10 kilowatt hours.</p>")
    return folder


def thread_of(stderr: str) -> str:
    """The thread id `ask` printed."""
    found = re.search(r"thread: (console:\S+)", stderr)
    assert found, stderr
    return found.group(1)


def report_of(tmp_path: Path, stdout: str) -> Path:
    """The report.md path `ask` printed, resolved against ``tmp_path`` (the runs' working folder)."""
    line = next(p.strip() for p in stdout.splitlines() if p.strip().endswith("report.md"))
    return tmp_path / line


def no_traceback(out: subprocess.CompletedProcess) -> None:
    """Asserts that neither a Python nor a rich traceback was printed."""
    for text in (out.stderr, out.stdout):
        assert "Traceback" not in text and "╭" not in text, text


_NS_OK: bool | None = None


def mount_namespace_available() -> bool:
    """True when this process may make a private mount namespace (root, or unprivileged user namespaces)."""
    global _NS_OK
    if _NS_OK is None:
        _NS_OK = False
        if shutil.which("unshare") and shutil.which("mount"):
            script = 'd=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs "$d" && umount "$d"; r=$?; rmdir "$d"; exit $r'
            probe = subprocess.run([*_unshare(), "sh", "-c", script], capture_output=True)
            _NS_OK = probe.returncode == 0
    return _NS_OK


def _unshare() -> list[str]:
    return ["unshare", "-m"] if os.geteuid() == 0 else ["unshare", "-r", "-m"]


def in_mount_namespace(script: str, env: dict, cwd: Path, timeout: float = 2 * RUN_TIMEOUT) -> subprocess.CompletedProcess:
    """Run the shell ``script`` in a private mount namespace (mounts made there vanish with it).

    Skips the test where mount namespaces are not allowed. ``$ASK`` in the script is the
    ``deepresearch ask`` command line.
    """
    if not mount_namespace_available():
        pytest.skip("mount namespaces (unshare -m) are not available here")
    env = {**env, "ASK": " ".join(ask_cmd())}
    return subprocess.run([*_unshare(), "sh", "-c", script], capture_output=True, text=True, errors="replace",
                          env=env, cwd=cwd, timeout=timeout)


def unreadable_file(path: Path, text: str) -> None:
    """Make ``path`` a file (holding ``text``) this process cannot open: mode 000, or, for root (who
    reads any mode), a link to a file of the kernel's that refuses reading even to root
    (``/proc/sys/vm/compact_memory``, write-only); skips the test when there is none."""
    path.write_text(text)
    path.chmod(0)
    if not os.access(path, os.R_OK):
        return
    path.unlink()
    target = Path("/proc/sys/vm/compact_memory")
    try:
        target.open().close()
    except PermissionError:
        path.symlink_to(target)
        return
    except OSError:
        pass
    pytest.skip("no file here that this user cannot read")


def set_settings(monkeypatch: pytest.MonkeyPatch, folder: Path, names, value: str, where: str) -> None:
    """Give each setting of ``names`` ``value``: in the environment (``where="environment"``), or in
    ``folder``'s ``.env`` (``where=".env"``), double-quoted so that spaces stay spaces."""
    if where == "environment":
        for name in names:
            monkeypatch.setenv(name, value)
    else:
        (folder / ".env").write_text("".join(f'{name}="{value}"\n' for name in names))
