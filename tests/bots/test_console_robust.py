"""`deepresearch ask` and `index` as a new user meets them: one index per corpus folder, Ctrl-C
anywhere, bad arguments and unusable data folders, each ending with one line and the right code."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bots.console_helpers import RUN_TIMEOUT, ask, ask_cmd, ask_env, no_traceback, report_of, write_docs
from tests.once import done_once
from tests.waiting import LONG

QUESTION = "How do solar panels make electricity?"


def _cli(tmp_path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bots.cli", *args], capture_output=True, text=True,
                          env=ask_env(tmp_path, env), cwd=tmp_path, timeout=RUN_TIMEOUT)


def _other_docs(folder):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "w.md").write_text("# Wind turbines\n\nWind turbines turn the wind's kinetic energy into electricity "
                                 "with a rotor and a generator.\n")
    return folder


def test_each_folder_has_its_own_index_and_a_run_searches_its_configured_folder(tmp_path):
    solar, wind = write_docs(tmp_path / "solar"), _other_docs(tmp_path / "wind")
    for folder in (solar, wind):
        out = _cli(tmp_path, "index", str(folder))
        assert out.returncode == 0, out.stderr
    indexes = sorted((tmp_path / "data" / "corpus").glob("*.sqlite"))
    assert len(indexes) == 2, indexes
    # indexing the wind folder (and an `ask --corpus` of it) left the solar folder's index alone
    out = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(wind), "What do wind turbines do?")
    assert out.returncode == 0, out.stderr
    out = ask(tmp_path, "--offline", "--no-clarify", QUESTION,
              env={"DEEPRESEARCH_SEARCH": "corpus", "DEEPRESEARCH_CORPUS_DIR": str(solar)})
    assert out.returncode == 0, out.stderr
    sources = json.loads((report_of(tmp_path, out.stdout).parent / "sources.json").read_text())
    urls = json.dumps(sources)
    assert "a.md" in urls and "w.md" not in urls, urls


def test_a_corpus_run_names_the_folder_it_lacks_in_one_line(tmp_path):
    write_docs(tmp_path / "solar")
    out = ask(tmp_path, "--offline", "--no-clarify", QUESTION, env={"DEEPRESEARCH_SEARCH": "corpus"})
    assert out.returncode == 1 and "needs DEEPRESEARCH_CORPUS_DIR" in out.stderr, out.stderr
    out = ask(tmp_path, "--offline", "--no-clarify", QUESTION,
              env={"DEEPRESEARCH_SEARCH": "corpus", "DEEPRESEARCH_CORPUS_DIR": str(tmp_path / "solar")})
    assert out.returncode == 1, out.stderr
    assert f"{tmp_path / 'solar'} is not indexed yet: run `deepresearch index" in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    no_traceback(out)



def test_an_index_built_before_each_folder_had_its_own_is_adopted_not_lost(tmp_path):
    from engine.search.corpus_index import index_directory

    solar = write_docs(tmp_path / "solar")
    legacy = tmp_path / "data" / "corpus.sqlite"  # where the one index lived
    legacy.parent.mkdir(parents=True)
    index_directory(solar, legacy)
    out = ask(tmp_path, "--offline", "--no-clarify", QUESTION,
              env={"DEEPRESEARCH_SEARCH": "corpus", "DEEPRESEARCH_CORPUS_DIR": str(solar)})
    assert out.returncode == 0, out.stderr
    assert not legacy.exists() and len(list((tmp_path / "data" / "corpus").glob("*.sqlite"))) == 1
    sources = json.loads((report_of(tmp_path, out.stdout).parent / "sources.json").read_text())
    assert "a.md" in json.dumps(sources)

PY_DOCS = Path("/usr/share/doc/python3-doc/html/library")
#: Progress lines of an offline run over the Python docs, each a moment to press Ctrl-C at.
STAGES = ("thread:", "Researching", "Reviewing the report (round 1)", "Building the files")


@pytest.fixture(scope="session")
def _py_docs_index(tmp_path_factory, worker_id) -> Path:
    """The Python docs indexed once for the whole run (:func:`tests.once.done_once`): that data
    dir's ``corpus`` folder."""

    def index(home: Path) -> None:
        out = _cli(home, "index", str(PY_DOCS))
        assert out.returncode == 0, out.stderr

    return done_once(tmp_path_factory, worker_id, "py-docs-index", index) / "data" / "corpus"


@pytest.fixture
def py_docs_indexed(tmp_path, _py_docs_index) -> None:
    """``tmp_path``'s data dir holds the Python docs' index already (``ask --corpus`` only checks it)."""
    shutil.copytree(_py_docs_index, tmp_path / "data" / "corpus")


def _interrupt_at(tmp_path, marker: str, args: list[str]) -> tuple[int, str]:
    """Run ``ask ARGS``, send SIGINT once a stderr line starts with ``marker``; (exit code, stderr)."""
    proc = subprocess.Popen(ask_cmd(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="replace", env=ask_env(tmp_path), cwd=tmp_path)
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.startswith(marker):
            proc.send_signal(signal.SIGINT)
            break
    _, rest = proc.communicate(timeout=RUN_TIMEOUT)
    return proc.returncode, "".join(seen) + rest


@pytest.mark.skipif(not PY_DOCS.is_dir(), reason="needs the python3-doc package's library docs")
@pytest.mark.parametrize("marker", STAGES)
def test_ctrl_c_at_any_stage_exits_130_with_the_hint_and_no_traceback_and_resumes(tmp_path, py_docs_indexed, marker):
    args = ["--offline", "--no-clarify", "--corpus", str(PY_DOCS), "How does asyncio cancel tasks?"]
    for _ in range(2):  # the faults were races (about one run in four)
        code, stderr = _interrupt_at(tmp_path, marker, args)
        if code == 0:  # the run finished before the signal arrived: nothing to check this time
            continue
        assert code == 130, stderr
        for text in ("Traceback", "Exception in thread", "Task exception", "exception was never retrieved"):
            assert text not in stderr, stderr
        hint = re.search(r"Continue with: deepresearch ask --resume (console:\S+)", stderr)
        assert hint, stderr
        resumed = ask(tmp_path, "--resume", hint.group(1))
        assert resumed.returncode == 0 and "report.md" in resumed.stdout, resumed.stderr
        no_traceback(resumed)


def _audit(tmp_path) -> list[dict]:
    path = tmp_path / "data" / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _answer_prompt_keyed(tmp_path, key: bytes) -> tuple[int, str]:
    """Run ``ask`` on a pseudo-terminal up to its answer prompt, type ``key`` there (the terminal's
    own handling: Ctrl-C a SIGINT, Ctrl-D the end of input); (exit code, everything it printed)."""
    import os
    import pty
    import select
    import time

    docs = write_docs(tmp_path / "docs")
    # everything the child needs is made before the fork: between fork and exec the child of this
    # multi-threaded process runs no Python that could wait on a lock another thread held
    argv, env, cwd = ask_cmd("--offline", "--corpus", str(docs), "solar"), ask_env(tmp_path), str(tmp_path)
    pid, fd = pty.fork()
    if pid == 0:  # the child: `ask` on the pseudo-terminal, as a user at a shell runs it
        try:
            os.chdir(cwd)
            os.execvpe(argv[0], argv, env)
        finally:
            os._exit(127)  # never back into the test runner
    deadline = time.monotonic() + LONG

    def read() -> bytes:
        """The next output of the child (b"" once it closed the terminal); fails past the deadline."""
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        assert ready, f"no output from ask within {LONG:.0f} s: {output!r}"
        try:
            return os.read(fd, 4096)
        except OSError:  # EIO: the child closed the terminal
            return b""

    output = b""
    try:
        while b"Your answer:" not in output:
            chunk = read()
            assert chunk, output
            output += chunk
        os.write(fd, key)
        while chunk := read():
            output += chunk
    except BaseException:
        os.kill(pid, signal.SIGKILL)
        raise
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    return os.waitstatus_to_exitcode(status), output.decode("utf-8", "replace")


def test_ctrl_c_at_the_answer_prompt_exits_130_with_the_hint_and_audits_interrupted(tmp_path):
    code, text = _answer_prompt_keyed(tmp_path, b"\x03")  # Ctrl-C: SIGINT from the line discipline
    assert code == 130, text
    assert "Aborted" not in text and "Traceback" not in text, text
    hint = re.search(r"Continue with: deepresearch ask --resume (console:\S+)", text)
    assert hint, text
    (record,) = _audit(tmp_path)
    # stopped, not cancelled: the printed --resume continues it
    assert record["status"] == "interrupted" and "None" not in (record["error"] or ""), record
    assert record["clarification"], record
    resumed = ask(tmp_path, "--resume", hint.group(1), "--answer", "home solar panels")
    assert resumed.returncode == 0, resumed.stderr


def test_ctrl_d_at_the_answer_prompt_leaves_the_question_waiting_with_the_hint(tmp_path):
    code, text = _answer_prompt_keyed(tmp_path, b"\x04")  # Ctrl-D on an empty line: the end of input
    assert code == 3, text  # waiting for an answer, as with an empty one
    assert "Aborted" not in text and "Traceback" not in text, text
    hint = re.search(r"Answer later with: deepresearch ask --resume (console:\S+) --answer", text)
    assert hint, text
    resumed = ask(tmp_path, "--resume", hint.group(1), "--answer", "home solar panels")
    assert resumed.returncode == 0, resumed.stderr


def test_the_audit_keeps_the_clarifying_question_asked_and_answered(tmp_path):
    docs = write_docs(tmp_path / "docs")
    out = ask(tmp_path, "solar", "--offline", "--corpus", str(docs), stdin="home solar panels and inverters\n")
    assert out.returncode == 0, out.stderr
    asked = out.stderr.split("Clarifying question:", 1)[1].splitlines()[0].strip()
    (record,) = _audit(tmp_path)
    assert record["status"] == "done" and record["clarification"] == asked, record
    first = ask(tmp_path, "solar", "--offline", "--corpus", str(docs))  # asked, answered in a later run
    assert first.returncode == 3, first.stderr
    thread = re.search(r"thread: (console:\S+)", first.stderr).group(1)
    second = ask(tmp_path, "--resume", thread, "--answer", "inverters")
    assert second.returncode == 0, second.stderr
    last = _audit(tmp_path)[-1]
    assert last["thread"] == thread and last["status"] == "done" and last["clarification"], last


def test_a_missing_corpus_folder_is_bad_input_before_any_quota_or_audit(tmp_path):
    env = {"DEEPRESEARCH_MAX_RESEARCHES_PER_USER_PER_DAY": "1"}
    (tmp_path / "a-file").write_text("x")
    for corpus, why in ((tmp_path / "nonexistent", ": no such folder"), (tmp_path / "a-file", " is not a folder")):
        out = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(corpus), QUESTION, env=env)
        assert out.returncode == 2, out.stderr
        assert out.stderr.strip() == f"deepresearch: --corpus {corpus}{why}", out.stderr
    assert _audit(tmp_path) == []
    docs = write_docs(tmp_path / "docs")
    out = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), QUESTION, env=env)
    assert out.returncode == 0, out.stderr  # the day's one research was not used up by the bad ones


@pytest.mark.parametrize("data_dir", ["/proc/deepresearch-data", "/sys/kernel/deepresearch-data"])
def test_a_data_folder_that_cannot_be_written_is_exit_5_in_one_line(tmp_path, data_dir):
    for args in (["ask", "--offline", "--no-clarify", "json floats"], ["index", str(write_docs(tmp_path / "d"))]):
        out = _cli(tmp_path, *args, env={"DEEPRESEARCH_DATA_DIR": data_dir})
        assert out.returncode == 5, (args, out.stderr)
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"deepresearch: cannot write under the data folder {data_dir}"), out.stderr
        no_traceback(out)


@pytest.mark.skipif(not PY_DOCS.is_dir(), reason="needs the python3-doc package's library docs")
def test_the_elapsed_time_shown_is_the_time_the_run_took(tmp_path):
    import time

    proc = subprocess.Popen(ask_cmd("--offline", "--no-clarify", "--corpus", str(PY_DOCS), "How does asyncio cancel tasks?"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ask_env(tmp_path), cwd=tmp_path)
    first = done = None
    shown = []
    for line in proc.stderr:
        first = first or time.monotonic()
        found = re.search(r"(\d+):(\d\d) elapsed", line)
        if found:
            shown.append(int(found.group(1)) * 60 + int(found.group(2)))
            if line.startswith("Done"):
                done = time.monotonic()
    proc.communicate(timeout=RUN_TIMEOUT)
    assert proc.returncode == 0 and done is not None and shown, shown
    assert shown == sorted(shown), shown
    assert shown[-1] >= int(done - first) - 1, (shown, done - first)


def test_every_refusal_line_starts_with_the_command_name(tmp_path):
    lines = []
    for args in (["", "--offline"], ["--resume", " ", "--offline"], ["x" * 8001, "--offline"],
                 ["--offline", "--corpus", str(tmp_path / "nope"), QUESTION]):
        out = ask(tmp_path, *args)
        assert out.returncode == 2, out.stderr
        lines.append(out.stderr.strip())
    docs = write_docs(tmp_path / "docs")
    env = {"DEEPRESEARCH_MAX_RESEARCHES_PER_USER_PER_DAY": "1"}
    assert ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), QUESTION, env=env).returncode == 0
    out = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), QUESTION, env=env)
    assert out.returncode == 6, out.stderr
    lines.append(out.stderr.strip())
    for line in lines:
        assert len(line.splitlines()) == 1 and line.startswith("deepresearch: "), line


def test_prune_lists_every_thread_by_its_thread_id(tmp_path):
    import os
    import uuid

    docs = write_docs(tmp_path / "docs")
    out = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), QUESTION)
    assert out.returncode == 0, out.stderr
    saved = re.search(r"thread: (console:\S+)", out.stderr).group(1)
    unsaved = f"console:{uuid.uuid4()}"  # killed before its first checkpoint: only its record is on disk
    record = tmp_path / "data" / "console" / f"{unsaved.replace(':', '_')}.json"
    record.write_text(json.dumps({"question": QUESTION}))
    os.utime(record, (1, 1))
    out = _cli(tmp_path, "prune", "--dry-run", "--older-than", "0")
    assert out.returncode == 0, out.stderr
    listed = sorted(line.strip() for line in out.stdout.splitlines() if line.startswith("  "))
    assert listed == sorted([saved, unsaved]), out.stdout


@pytest.mark.parametrize("streams", ["both", "stderr", "stdout"])
def test_a_reader_that_goes_away_silences_the_output_and_the_research_goes_on(tmp_path, streams):
    """`ask … 2>&1 | head -2`, or a script that reads the thread id and closes the pipe: the output
    goes nowhere from then on, but the research is finished, its files written and audited as done
    (it ended with rich's "SystemExit: 1", audited as an error, and the files were never built)."""
    reader_r, reader_w = os.pipe()
    out = {"stdout": reader_w if streams != "stderr" else subprocess.DEVNULL,
           "stderr": reader_w if streams != "stdout" else subprocess.DEVNULL}
    proc = subprocess.Popen(ask_cmd("--offline", "--no-clarify", "What is retrieval-augmented generation?"),
                            env=ask_env(tmp_path), cwd=tmp_path, **out)
    os.close(reader_w)
    if streams != "stdout":
        first = os.read(reader_r, 30)  # "thread: console:…": the research has begun
        assert first.startswith(b"thread: "), first
    os.close(reader_r)  # the reader goes away; what is written from now on meets a broken pipe
    assert proc.wait(timeout=RUN_TIMEOUT) == 0
    assert len(list((tmp_path / "data" / "artifacts").rglob("report.pdf"))) == 1
    records = [json.loads(line) for line in (tmp_path / "data" / "audit.jsonl").read_text().splitlines()]
    assert [r["status"] for r in records] == ["done"], records


@pytest.mark.parametrize("redirect", ["2>&-", "<&- 2>&-", ">/dev/full", "2>/dev/full", ">/dev/full 2>/dev/full"])
def test_a_closed_or_full_output_or_input_never_fails_the_research(tmp_path, redirect):
    """Started with stderr or stdin closed, or stdout or stderr on a full device: the run failed on the
    stream (AttributeError on None.isatty; rich's ENOSPC writing the progress, audited as the run's
    error and taken for a full data folder) though its files were fine."""
    import shlex

    line = " ".join(shlex.quote(str(a)) for a in ask_cmd("--offline", "--no-clarify", "What is retrieval-augmented generation?"))
    run = subprocess.run(["bash", "-c", f"{line} {redirect}"], env=ask_env(tmp_path), cwd=tmp_path,
                         stdout=subprocess.DEVNULL, timeout=RUN_TIMEOUT)
    assert run.returncode == 0
    assert len(list((tmp_path / "data" / "artifacts").rglob("report.pdf"))) == 1
    records = [json.loads(line) for line in (tmp_path / "data" / "audit.jsonl").read_text().splitlines()]
    assert [r["status"] for r in records] == ["done"], records


def test_a_terminal_that_goes_away_mid_run_silences_the_output_and_the_research_goes_on(tmp_path):
    """stderr on a terminal that is gone (a closed ssh session: the pseudo-terminal's other side
    closed): every write fails with EIO, the progress line's own writes too; the research finishes,
    writes its files and is audited as done."""
    import pty

    master, terminal = pty.openpty()
    proc = subprocess.Popen(ask_cmd("--offline", "--no-clarify", "What is retrieval-augmented generation?"),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=terminal,
                            env=ask_env(tmp_path), cwd=tmp_path)
    os.close(terminal)
    shown = b""
    try:
        while b"thread: " not in shown:  # the research has begun
            chunk = os.read(master, 4096)
            assert chunk, shown
            shown += chunk
    finally:
        os.close(master)  # the terminal goes away; what is written from now on fails with EIO
    assert proc.wait(timeout=RUN_TIMEOUT) == 0
    assert len(list((tmp_path / "data" / "artifacts").rglob("report.pdf"))) == 1
    records = [json.loads(line) for line in (tmp_path / "data" / "audit.jsonl").read_text().splitlines()]
    assert [r["status"] for r in records] == ["done"], records


def test_a_run_stopped_by_sigterm_is_audited_as_such(tmp_path):
    proc = subprocess.Popen(ask_cmd("--offline", "--no-clarify", "What is retrieval-augmented generation?"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ask_env(tmp_path), cwd=tmp_path)
    shown = b""
    while b"Researching" not in shown:
        chunk = os.read(proc.stderr.fileno(), 4096)
        assert chunk, shown
        shown += chunk
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=RUN_TIMEOUT)
    assert proc.returncode == 143
    (record,) = [json.loads(line) for line in (tmp_path / "data" / "audit.jsonl").read_text().splitlines()]
    assert (record["status"], record["error"]) == ("interrupted", "exit 143: stopped by SIGTERM"), record
