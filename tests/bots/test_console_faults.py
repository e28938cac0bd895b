"""`deepresearch ask` on a full, read-only or misplaced disk: one line, exit 5 (or 2), nothing half-written."""

from __future__ import annotations

import json
import resource
import shlex
import subprocess
import sys

import pytest

from tests.bots.console_helpers import (
    RUN_TIMEOUT,
    ask,
    ask_cmd,
    ask_env,
    in_mount_namespace,
    no_traceback,
    report_of,
    thread_of,
    write_docs,
)

QUESTION = "What do solar panels cost?"


@pytest.fixture
def docs(tmp_path):
    return write_docs(tmp_path / "docs")


def _messages(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if ln.startswith("deepresearch:")]


def test_data_dir_under_a_file_is_one_line(tmp_path, docs):
    (tmp_path / "a-file").write_text("keep me")
    env = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "a-file" / "data")}
    for args in (("--corpus", str(docs)), ()):  # fails at the corpus index, or at the thread's lock
        out = ask(tmp_path, QUESTION, "--offline", "--no-clarify", *args, env=env)
        assert out.returncode == 5, out.stderr
        no_traceback(out)
        [message] = _messages(out.stderr)
        assert "a-file" in message and "is a file, not a folder" in message
        assert "thread:" not in out.stderr
    assert (tmp_path / "a-file").read_text() == "keep me"


def _small_files():  # every file the process writes stops growing at 16 KiB, as on a full disk
    resource.setrlimit(resource.RLIMIT_FSIZE, (16384, 16384))


def test_full_disk_before_the_run_is_one_line(tmp_path, docs):
    out = ask(tmp_path, QUESTION, "--offline", "--no-clarify", "--corpus", str(docs), preexec_fn=_small_files)
    assert out.returncode == 5, out.stderr
    no_traceback(out)
    [message] = _messages(out.stderr)
    assert "disk" in message and "delete it" not in message
    assert "thread:" not in out.stderr
    # with room again the same command works, nothing to delete by hand
    out = ask(tmp_path, QUESTION, "--offline", "--no-clarify", "--corpus", str(docs))
    assert out.returncode == 0, out.stderr


def test_full_disk_while_indexing_is_not_called_a_bad_index(tmp_path, docs):
    env = ask_env(tmp_path)
    index = [sys.executable, "-m", "bots.cli", "index", str(docs)]
    out = subprocess.run(index, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=RUN_TIMEOUT,
                         preexec_fn=_small_files)
    assert out.returncode == 5, out.stderr  # the storage code, as for ask and prune
    no_traceback(out)
    [message] = _messages(out.stderr)
    assert "corpus index" in message and "disk" in message and "delete it" not in message
    out = subprocess.run(index, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=RUN_TIMEOUT)
    assert out.returncode == 0 and "indexed 3 documents" in out.stdout, out.stderr


def test_full_disk_mid_run_resumes_once_space_is_freed(tmp_path, docs):
    data = tmp_path / "data"
    data.mkdir()
    script = f"""
    mount -t tmpfs -o size=320k tmpfs "$DEEPRESEARCH_DATA_DIR" || exit 99
    $ASK --offline --no-clarify --corpus {shlex.quote(str(docs))} {shlex.quote(QUESTION)} >first.out 2>first.err
    echo "first=$?"
    mount -o remount,size=64m "$DEEPRESEARCH_DATA_DIR"
    $ASK --resume "$(grep -o 'console:[^ ]*' first.err | head -1)" >second.out 2>second.err
    echo "second=$?"
    """
    ran = in_mount_namespace(script, ask_env(tmp_path), tmp_path)
    assert "first=5" in ran.stdout and "second=0" in ran.stdout, (ran.stdout, ran.stderr)
    first_err, second_err = (tmp_path / "first.err").read_text(), (tmp_path / "second.err").read_text()
    assert "Traceback" not in first_err and "Traceback" not in second_err
    assert "event=" not in first_err + second_err  # the full disk's echoes in the log stay out of the terminal
    thread = thread_of(first_err)
    [message] = _messages(first_err)
    assert "the disk is full" in message
    assert f"continue with: deepresearch ask --resume {thread}" in first_err
    assert "failed; the report says which" not in second_err  # the full disk did not become a failed topic
    assert report_of(tmp_path, (tmp_path / "second.out").read_text()).name == "report.md"


def _ask_on_a_filling_disk(tmp_path, *args: str, at: str = "", env: dict | None = None) -> subprocess.CompletedProcess:
    """``ask ARGS`` whose writes under the data folder fail with ENOSPC once the progress shows ``at``
    (:mod:`tests.bots.disk_faults`; no fault without ``at``)."""
    return subprocess.run([sys.executable, "-m", "tests.bots.disk_faults", "ask", *args], capture_output=True,
                          text=True, env=ask_env(tmp_path, {"DISK_FULL_AT": at, **(env or {})}), cwd=tmp_path,
                          timeout=RUN_TIMEOUT)


def test_a_full_data_folder_is_still_a_storage_error_when_stderr_is_full_too(tmp_path, docs):
    """A full terminal output is silenced (the run goes on); a full data folder stops the run with
    exit 5, whatever happens to the line that says so: the two ENOSPC are not taken for each other."""
    with open("/dev/full", "w") as full:
        out = subprocess.run([sys.executable, "-m", "tests.bots.disk_faults", "ask", "--offline", "--no-clarify",
                              "--corpus", str(docs), QUESTION], stdout=subprocess.PIPE, stderr=full, text=True,
                             env=ask_env(tmp_path, {"DISK_FULL_AT": "Researching"}), cwd=tmp_path,
                             timeout=RUN_TIMEOUT)
    assert out.returncode == 5, out.stdout
    assert not list((tmp_path / "data" / "artifacts").rglob("report.md"))
    # the research ran until the data folder filled (it stopped on the terminal's ENOSPC before it began)
    import asyncio

    from engine.runner import thread_status
    from engine.settings import load_settings

    [record] = (tmp_path / "data" / "console").glob("*.json")
    thread = record.stem.replace("_", ":", 1)
    settings = load_settings(data_dir=tmp_path / "data", llm="offline")
    assert asyncio.run(thread_status(thread, settings=settings)) == "interrupted"


#: The log lines a disk that fills while the topics are researched used to print before its one line.
FULL_DISK_EVENTS = ("event=unit_failed", "event=quota_bookkeeping_failed", "event=audit_write_failed",
                    "event=lease_release_failed")


@pytest.mark.parametrize("at", ["Researching", "topics 1/", "Writing the report"])
def test_a_disk_that_fills_mid_run_is_one_line_without_the_log_and_loses_nothing(tmp_path, docs, at):
    out = _ask_on_a_filling_disk(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), QUESTION, at=at)
    assert out.returncode == 5, out.stderr
    no_traceback(out)
    thread = thread_of(out.stderr)
    [message] = _messages(out.stderr)
    assert message.startswith("deepresearch: the research stopped: the disk is full"), message
    assert "event=" not in out.stderr and "level=" not in out.stderr, out.stderr
    assert out.stderr.endswith(f"continue with: deepresearch ask --resume {thread}\n")
    # with room again the run goes on from where it stopped, and its last run's slot is free again
    again = ask(tmp_path, "--resume", thread, env={"DEEPRESEARCH_MAX_RUNNING_PER_USER": "1"})
    assert again.returncode == 0, again.stderr
    assert "event=" not in again.stderr  # nor the slot the stopped run could not give back
    assert "failed; the report says which" not in again.stderr  # the full disk did not become a failed topic
    assert QUESTION in report_of(tmp_path, again.stdout).read_text()
    # the stopped run's record waited outside the full data folder and came first, once
    stopped, record = [json.loads(line) for line in (tmp_path / "data" / "audit.jsonl").read_text().splitlines()]
    assert (stopped["thread"], stopped["status"], record["thread"], record["status"]) == (thread, "failed", thread, "done")
    assert stopped["research_started"] == record["research_started"]


def test_with_v_the_log_of_a_disk_that_fills_is_shown_as_it_happens(tmp_path, docs):
    out = _ask_on_a_filling_disk(tmp_path, "-v", "--offline", "--no-clarify", "--corpus", str(docs), QUESTION,
                                 at="topics 1/")
    assert out.returncode == 5, out.stderr
    # which write meets the full disk first (a topic's unit or the checkpoint) depends on timing: the
    # bookkeeping after it always fails, and each failure is shown as it happens
    assert all(event in out.stderr for event in FULL_DISK_EVENTS[1:]), out.stderr
    assert len(_messages(out.stderr)) == 1
    for env in ({"LOG_LEVEL": "WARNING"}, {"LOG_LEVEL": "INFO"}):  # the operators' setting does the same
        out = _ask_on_a_filling_disk(tmp_path, "--offline", "--no-clarify", QUESTION, at="topics 1/", env=env)
        assert out.returncode == 5 and "event=quota_bookkeeping_failed" in out.stderr, out.stderr


def test_an_audit_trail_that_refuses_its_record_shows_no_log_when_the_record_waits_elsewhere(tmp_path, docs):
    out = _ask_on_a_filling_disk(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), QUESTION,
                                 env={"AUDIT_DENIED": "1"})
    assert out.returncode == 0, out.stderr
    assert report_of(tmp_path, out.stdout).exists()
    assert "event=" not in out.stderr and "level=" not in out.stderr, out.stderr
    assert not _messages(out.stderr), out.stderr
    [pending] = (tmp_path / "state" / "deepresearch").glob("audit-pending-*.jsonl")  # kept for the next write
    assert json.loads(pending.read_text())["status"] == "done"


def test_a_disk_that_fills_once_the_report_is_written_shows_no_log_lines(tmp_path, docs):
    """The quota slot, the audit trail and the lock's release meet the full disk after the files are
    listed: the slot expires and the lock lapses by themselves, the audit record waits outside the data
    folder: the run is done (exit 0) and the terminal shows none of the log records that say so."""
    out = _ask_on_a_filling_disk(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), QUESTION,
                                 at="report.md")
    assert out.returncode == 0, out.stderr
    assert report_of(tmp_path, out.stdout).exists()
    assert "event=" not in out.stderr and "level=" not in out.stderr, out.stderr
    assert not _messages(out.stderr), out.stderr
    [pending] = (tmp_path / "state" / "deepresearch").glob("audit-pending-*.jsonl")
    assert json.loads(pending.read_text())["status"] == "done"
    again = _ask_on_a_filling_disk(tmp_path, "-v", "--offline", "--no-clarify", "--corpus", str(docs), QUESTION,
                                   at="report.md")
    assert again.returncode == 0, again.stderr  # -v shows the log as it happens
    assert all(event in again.stderr for event in FULL_DISK_EVENTS[1:]), again.stderr


def test_read_only_data_dir_is_one_line_and_leaves_the_thread_resumable(tmp_path, docs):
    first = ask(tmp_path, "solar", "--offline", "--corpus", str(docs))
    assert first.returncode == 3, first.stderr
    thread = thread_of(first.stderr)
    data = tmp_path / "data"
    script = f"""
    mount --bind "$DEEPRESEARCH_DATA_DIR" "$DEEPRESEARCH_DATA_DIR" || exit 99
    mount -o remount,bind,ro "$DEEPRESEARCH_DATA_DIR" || exit 99
    $ASK --offline --no-clarify {shlex.quote(QUESTION)} >new.out 2>new.err; echo "new=$?"
    $ASK --resume {thread} --answer inverters >resume.out 2>resume.err; echo "resume=$?"
    """
    before = sorted(p.name for p in (data / "console").iterdir())
    ran = in_mount_namespace(script, ask_env(tmp_path), tmp_path)
    assert "new=5" in ran.stdout and "resume=5" in ran.stdout, (ran.stdout, (tmp_path / "resume.err").read_text())
    for name in ("new.err", "resume.err"):
        text = (tmp_path / name).read_text()
        assert "Traceback" not in text, text
        [message] = _messages(text)
        assert "read-only" in message, message
    assert sorted(p.name for p in (data / "console").iterdir()) == before
    out = ask(tmp_path, "--resume", thread, "--answer", "inverters")
    assert out.returncode == 0, out.stderr


def test_an_empty_console_record_left_by_a_full_disk_does_not_break_resume(tmp_path, docs):
    first = ask(tmp_path, "solar", "--offline", "--corpus", str(docs))
    assert first.returncode == 3, first.stderr
    thread = thread_of(first.stderr)
    [record] = (tmp_path / "data" / "console").iterdir()
    record.write_bytes(b"")  # what a non-atomic write left on a full disk
    out = ask(tmp_path, "--resume", thread, "--answer", "inverters", "--offline", "--corpus", str(docs))
    assert out.returncode == 0, out.stderr
    assert json.loads(record.read_text())["corpus"] == str(docs)  # rewritten whole
    assert not [p for p in record.parent.iterdir() if p.name.endswith(".tmp")]


def test_out_that_cannot_be_written_is_refused_before_any_work(tmp_path, docs):
    (tmp_path / "a-file").write_text("keep me")
    out = ask(tmp_path, QUESTION, "--offline", "--out", str(tmp_path / "a-file" / "reports"))
    assert out.returncode == 2 and "is a file, not a folder" in out.stderr, out.stderr
    no_traceback(out)
    assert not (tmp_path / "data").exists()
    (tmp_path / "ro").mkdir()
    script = f"""
    mount --bind ro ro && mount -o remount,bind,ro ro || exit 99
    $ASK --offline {shlex.quote(QUESTION)} --out ro/reports >ro.out 2>ro.err; echo "rc=$?"
    """
    ran = in_mount_namespace(script, ask_env(tmp_path), tmp_path)
    err = (tmp_path / "ro.err").read_text()
    assert "rc=2" in ran.stdout and "read-only file system" in err and "Traceback" not in err, err
    assert not (tmp_path / "data").exists()


def test_out_equal_to_the_run_folder_is_fine(tmp_path, docs):
    first = ask(tmp_path, "solar", "--offline", "--corpus", str(docs))
    assert first.returncode == 3, first.stderr
    thread = thread_of(first.stderr)
    [run_folder] = (tmp_path / "data" / "artifacts").glob("*/*")
    out = ask(tmp_path, "--resume", thread, "--answer", "inverters", "--out", str(run_folder))
    assert out.returncode == 0, out.stderr
    no_traceback(out)
    report = report_of(tmp_path, out.stdout)
    assert report.parent.resolve() == run_folder.resolve() and "b.txt" in report.read_text()
    assert f"copied to {run_folder}" in out.stdout


@pytest.mark.parametrize("aof", [True, False], ids=["redis-back-with-its-data", "redis-back-empty"])
def test_a_redis_outage_a_local_run_waits_out_is_shown_once_as_it_happens_not_again_at_the_end(tmp_path, docs, aof):
    """Redis (the thread's lock) goes away while ``ask`` waits at its clarifying question, past the
    calls' retry window (1 s here, ``DEEPRESEARCH_REDIS_RETRY_WINDOW``) or restarted without its
    data, and comes back: the run finishes; the outage is one line as it happens, its end one line,
    and none of the log records of it are printed again when the run ends."""
    import threading

    from tests.jobs.redis_server import RedisServer
    from tests.waiting import wait_for

    server = RedisServer(tmp_path / "redis", aof=aof).start()
    env = ask_env(tmp_path, {"REDIS_URL": server.url, "DEEPRESEARCH_REDIS_RETRY_WINDOW": "1"})
    proc = subprocess.Popen(ask_cmd("--offline", "--corpus", str(docs), "solar"), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: [lines.append(line) for line in proc.stderr], daemon=True)
    reader.start()
    try:
        wait_for(lambda: any(line.startswith("Clarifying question") for line in lines) or proc.poll() is not None, what="the question",
                 diag=lambda: "".join(lines))
        server.kill()
        if aof:  # away past the window: the lease's renewal gives up and says so
            wait_for(lambda: "does not answer" in "".join(lines), what="the outage line", diag=lambda: "".join(lines))
        server.start()
        wait_for(lambda: "answers again" in "".join(lines), what="the line saying Redis is back",
                 diag=lambda: "".join(lines))
        out, _ = proc.communicate("solar panels on houses\n", timeout=RUN_TIMEOUT)
        reader.join(RUN_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
        server.kill()
    stderr = "".join(lines)
    assert proc.returncode == 0, stderr
    assert report_of(tmp_path, out).exists()
    assert "event=" not in stderr, stderr
    # restarted at once, Redis may be met away or not (a lock renewal in the gap says so at once): at most once
    assert stderr.count("Redis does not answer") == 1 if aof else stderr.count("Redis does not answer") <= 1, stderr
    assert stderr.count("Redis answers again") == 1, stderr


# the run's check of the index as the thread is shown; its searches while the other writes still fit
@pytest.mark.parametrize(("at", "reads"), [("thread:", "1"), ("Researching", "only")])
def test_a_corpus_index_that_cannot_be_read_on_a_full_disk_is_a_storage_error(tmp_path, docs, at, reads):
    """On a full disk SQLite cannot create the index's ``-shm`` to read it: the run stops as on any
    full disk (exit 5, resumable), not with "not indexed yet", a failed search or a failed topic."""
    out = _ask_on_a_filling_disk(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), QUESTION, at=at,
                                 env={"DISK_FULL_READS": reads})
    assert out.returncode == 5, out.stderr
    no_traceback(out)
    thread = thread_of(out.stderr)
    [message] = _messages(out.stderr)
    assert message.startswith("deepresearch: the research stopped: the disk is full"), message
    assert "not indexed" not in out.stderr and "search failed" not in out.stderr
    assert out.stderr.endswith(f"continue with: deepresearch ask --resume {thread}\n")
    again = ask(tmp_path, "--resume", thread)
    assert again.returncode == 0, again.stderr
    assert "failed; the report says which" not in again.stderr
    assert QUESTION in report_of(tmp_path, again.stdout).read_text()
