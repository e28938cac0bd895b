"""`ask --resume THREAD`, as the first `ask` suggests it, delivers the report as that `ask` was asked to:
its --out folder (kept absolute, checked again as on the first run) beside --offline, --corpus and
--no-clarify; an option given again on the resume wins."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys

import pytest

from tests.bots.console_helpers import (
    RUN_TIMEOUT,
    ask,
    ask_cmd,
    ask_env,
    cli,
    in_mount_namespace,
    no_traceback,
    running,
    signalled_as_research_starts,
    thread_of,
    write_docs,
)

QUESTION = "Wie bricht asyncio Tasks ab?"
#: ``deepresearch`` as the tests start it.
CLI = [sys.executable, "-m", "bots.cli"]


def _ask_from(folder, tmp_path, *args: str) -> subprocess.CompletedProcess:
    """``ask ARGS`` run in ``folder`` (made when missing), on ``tmp_path``'s data folder."""
    folder.mkdir(parents=True, exist_ok=True)
    return subprocess.run(ask_cmd(*args), capture_output=True, text=True, errors="replace", stdin=subprocess.DEVNULL,
                          env=ask_env(tmp_path), cwd=folder, timeout=RUN_TIMEOUT)


def _record(tmp_path, thread: str) -> dict:
    from bots.console_record import record_path

    return json.loads(record_path(tmp_path / "data", thread).read_text())


def _files_in(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _last_line(stderr: str) -> str:
    return stderr.strip().splitlines()[-1]


REPORT_FILES = ["report.docx", "report.md", "report.pdf", "report.tex", "review.md", "sources.json", "usage.json"]


def test_a_run_interrupted_then_resumed_from_another_folder_copies_into_its_out(tmp_path):
    """The new user's case: `ask --out work/reports --offline --corpus DIR` stopped by Ctrl-C, then the
    command it suggests, run from elsewhere: the report reaches work/reports (the folder the first run
    was given, relative to where it ran), with the same model and corpus."""
    docs = write_docs(tmp_path / "docs")
    code, err = signalled_as_research_starts(tmp_path, signal.SIGINT, "--out", "work/reports", "--offline",
                                             "--corpus", str(docs), QUESTION)
    assert code == 130, err
    suggested = re.search(r"Continue with: (deepresearch ask --resume (console:\S+))$", err, re.MULTILINE)
    assert suggested, err
    thread = suggested.group(2)
    reports = tmp_path / "work" / "reports"
    assert _record(tmp_path, thread)["out"] == str(reports)  # absolute: the resume may run elsewhere
    resumed = _ask_from(tmp_path / "elsewhere", tmp_path, *suggested.group(1).split()[2:])
    assert resumed.returncode == 0, resumed.stderr
    no_traceback(resumed)
    assert f"  copied to {reports}\n" in resumed.stdout, resumed.stdout
    assert "model: offline extractive mode" in resumed.stderr
    assert _files_in(reports) == REPORT_FILES
    report = next(line.strip() for line in resumed.stdout.splitlines() if line.strip().endswith("report.md"))
    assert (reports / "report.md").read_text() == open(report).read()
    assert not (tmp_path / "elsewhere" / "work").exists()


def test_a_clarifying_question_answered_with_resume_copies_into_the_first_runs_out(tmp_path):
    """`ask --out reports` that exits 3 waiting for its answer: `--resume THREAD --answer` (the command
    its last line names) copies the report into reports."""
    docs = write_docs(tmp_path / "docs")
    first = ask(tmp_path, "solar", "--offline", "--corpus", str(docs), "--out", "reports")
    assert first.returncode == 3, first.stderr
    thread = thread_of(first.stderr)
    assert _last_line(first.stderr) == f'No answer given. Answer later with: deepresearch ask --resume {thread} --answer "…"'
    resumed = _ask_from(tmp_path / "elsewhere", tmp_path, "--resume", thread, "--answer", "inverters")
    assert resumed.returncode == 0, resumed.stderr
    assert f"  copied to {tmp_path / 'reports'}\n" in resumed.stdout, resumed.stdout
    assert "b.txt" in (tmp_path / "reports" / "report.md").read_text()  # the corpus kept too


def test_ctrl_c_at_the_clarifying_question_then_the_suggested_resume_copies_into_out(tmp_path):
    docs = write_docs(tmp_path / "docs")
    with running(ask_cmd("solar", "--offline", "--corpus", str(docs), "--out", "reports"), stdin=subprocess.PIPE,
                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ask_env(tmp_path), cwd=tmp_path) as proc:
        shown = b""
        while b"Clarifying question:" not in shown:  # the output, not a clock, says when it waits
            chunk = os.read(proc.stderr.fileno(), 4096)
            assert chunk, shown.decode(errors="replace")
            shown += chunk
        proc.send_signal(signal.SIGINT)
        _, rest = proc.communicate(timeout=RUN_TIMEOUT)
    err = (shown + rest).decode(errors="replace")
    assert proc.returncode == 130, err
    suggested = re.search(r"Continue with: deepresearch ask --resume (console:\S+)$", err, re.MULTILINE)
    assert suggested, err
    resumed = _ask_from(tmp_path / "elsewhere", tmp_path, "--resume", suggested.group(1), "--answer", "inverters")
    assert resumed.returncode == 0, resumed.stderr
    assert f"  copied to {tmp_path / 'reports'}\n" in resumed.stdout, resumed.stdout
    assert _files_in(tmp_path / "reports") == REPORT_FILES


def test_an_out_given_on_the_resume_wins_and_a_finished_research_is_copied_once(tmp_path):
    """--out given again goes where it says (and is kept for the next resume instead); resuming the
    finished research later copies nothing again into the folder that has its report (no report-2.md),
    while an --out given then is honoured."""
    docs = write_docs(tmp_path / "docs")
    first = ask(tmp_path, "solar", "--offline", "--corpus", str(docs), "--out", "first")
    assert first.returncode == 3, first.stderr
    thread = thread_of(first.stderr)
    resumed = ask(tmp_path, "--resume", thread, "--answer", "inverters", "--out", "second")
    assert resumed.returncode == 0, resumed.stderr
    assert f"  copied to {tmp_path / 'second'}\n" in resumed.stdout, resumed.stdout
    assert _files_in(tmp_path / "first") == [] and _files_in(tmp_path / "second") == REPORT_FILES
    assert _record(tmp_path, thread)["out"] == str(tmp_path / "second")
    again = ask(tmp_path, "--resume", thread)
    assert again.returncode == 0 and "This research is finished" in again.stderr, again.stderr
    assert "copied to" not in again.stdout and _files_in(tmp_path / "second") == REPORT_FILES
    third = ask(tmp_path, "--resume", thread, "--out", "third")
    assert third.returncode == 0 and f"  copied to {tmp_path / 'third'}\n" in third.stdout, third.stderr


def test_a_report_copied_when_the_run_ended_is_not_copied_again_by_a_later_resume(tmp_path):
    docs = write_docs(tmp_path / "docs")
    first = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), "--out", "reports",
                "What do solar panels cost?")
    assert first.returncode == 0, first.stderr
    assert f"  copied to {tmp_path / 'reports'}\n" in first.stdout  # said as it is kept: absolute
    again = ask(tmp_path, "--resume", thread_of(first.stderr))
    assert again.returncode == 0 and "copied to" not in again.stdout, again.stdout
    assert _files_in(tmp_path / "reports") == REPORT_FILES


def _paused_with_out(tmp_path) -> str:
    """A thread started with ``--out work/reports`` and waiting for its answer; its id."""
    docs = write_docs(tmp_path / "docs")
    first = ask(tmp_path, "solar", "--offline", "--corpus", str(docs), "--out", "work/reports")
    assert first.returncode == 3, first.stderr
    return thread_of(first.stderr)


def _first_run_says(tmp_path, out) -> str:
    """The line a new ``ask --out OUT`` is refused with."""
    refused = ask(tmp_path, "--offline", "--no-clarify", "What is a heat pump?", "--out", str(out))
    assert refused.returncode == 2, refused.stderr
    return _last_line(refused.stderr)


@pytest.mark.parametrize("change", ["out-is-a-file", "under-a-file"])
def test_a_kept_out_that_cannot_be_used_at_resume_is_the_first_runs_one_line_and_nothing_runs(tmp_path, change):
    thread = _paused_with_out(tmp_path)
    reports = tmp_path / "work" / "reports"
    reports.rmdir()
    if change == "out-is-a-file":
        reports.write_text("a file now")
    else:
        reports.parent.rmdir()
        reports.parent.write_text("a file now")
    said = _first_run_says(tmp_path, reports)
    resumed = ask(tmp_path, "--resume", thread, "--answer", "inverters")
    assert resumed.returncode == 2, resumed.stderr
    no_traceback(resumed)
    line = _last_line(resumed.stderr)
    assert line.startswith(said), (line, said)
    assert "--out DIR" in line  # how to give another folder
    assert "thread:" not in resumed.stderr and "Indexing" not in resumed.stderr
    assert not list((tmp_path / "data" / "artifacts").glob("*/*/report.md"))
    # given another --out, it runs
    other = ask(tmp_path, "--resume", thread, "--answer", "inverters", "--out", "other")
    assert other.returncode == 0 and f"  copied to {tmp_path / 'other'}\n" in other.stdout, other.stderr


def test_a_kept_out_that_no_longer_exists_is_made_again_as_on_the_first_run(tmp_path):
    thread = _paused_with_out(tmp_path)
    (tmp_path / "work" / "reports").rmdir()
    (tmp_path / "work").rmdir()
    resumed = ask(tmp_path, "--resume", thread, "--answer", "inverters")
    assert resumed.returncode == 0, resumed.stderr
    assert _files_in(tmp_path / "work" / "reports") == REPORT_FILES


def test_a_kept_out_on_a_read_only_mount_at_resume_is_the_first_runs_one_line(tmp_path):
    thread = _paused_with_out(tmp_path)
    reports = shlex.quote(str(tmp_path / "work" / "reports"))
    script = f"""
    mount --bind work work && mount -o remount,bind,ro work || exit 99
    $ASK --offline --no-clarify 'What is a heat pump?' --out {reports} >new.out 2>new.err; echo "new=$?"
    $ASK --resume {shlex.quote(thread)} --answer inverters >resumed.out 2>resumed.err; echo "resumed=$?"
    """
    ran = in_mount_namespace(script, ask_env(tmp_path), tmp_path)
    said, resumed = ((tmp_path / f"{name}.err").read_text() for name in ("new", "resumed"))
    assert "new=2" in ran.stdout and "resumed=2" in ran.stdout, (ran.stdout, ran.stderr, resumed)
    first_line = _last_line(said)
    assert "read-only file system" in first_line, said
    assert _last_line(resumed).startswith(first_line)
    assert "Traceback" not in resumed and "thread:" not in resumed


def test_a_copy_that_failed_as_the_run_ended_is_made_by_the_resume_its_line_names(tmp_path):
    """The kept --out fills up as the report is copied (a 16 KiB file system: the check's probe fits,
    the report does not): exit 5, nothing of it copied, and the line names the --resume that copies
    it, which does once there is room, without running the research again."""
    thread = _paused_with_out(tmp_path)
    script = f"""
    mount -t tmpfs -o size=16k tmpfs work/reports || exit 99
    $ASK --resume {shlex.quote(thread)} --answer inverters >full.out 2>full.err; echo "full=$?"
    ls -A work/reports >full.ls
    umount work/reports || exit 98
    $ASK --resume {shlex.quote(thread)} >again.out 2>again.err; echo "again=$?"
    """
    ran = in_mount_namespace(script, ask_env(tmp_path), tmp_path)
    full, again = ((tmp_path / f"{name}.err").read_text() for name in ("full", "again"))
    assert "full=5" in ran.stdout and "again=0" in ran.stdout, (ran.stdout, ran.stderr, full, again)
    assert _last_line(full).endswith("nothing of it was copied. Copy it once the folder can be written with: "
                                     f"deepresearch ask --resume {thread}"), full
    assert (tmp_path / "full.ls").read_text() == ""
    assert "This research is finished" in again and "Traceback" not in again, again
    assert f"  copied to {tmp_path / 'work' / 'reports'}\n" in (tmp_path / "again.out").read_text()
    assert _files_in(tmp_path / "work" / "reports") == REPORT_FILES


def test_a_copy_stopped_by_ctrl_c_leaves_none_of_the_report_in_out(tmp_path, monkeypatch):
    from bots import console_output

    made = tmp_path / "run"
    made.mkdir()
    files = []
    for name in ("report.md", "report.pdf", "report.docx"):
        (made / name).write_text(name)
        files.append(made / name)
    copy = console_output.copy_atomic

    def stopped(source, target):
        if source.name == "report.docx":
            raise KeyboardInterrupt
        return copy(source, target)

    monkeypatch.setattr(console_output, "copy_atomic", stopped)
    with pytest.raises(KeyboardInterrupt):
        console_output.copy_out(files, tmp_path / "reports")
    assert _files_in(tmp_path / "reports") == []


def test_a_queued_question_followed_again_after_ctrl_c_copies_into_its_out(tmp_path, redis_db):
    """`ask --queue --out reports` stopped by Ctrl-C while it follows the workers: the command it
    suggests, run from elsewhere once a worker has done the research, copies the report into reports
    (once: following it again copies nothing more)."""
    from tests.bots.test_console_queue import env_for
    from tests.waiting import LONG

    env = {**env_for(tmp_path, redis_db), "DEEPRESEARCH_ALLOW_CLARIFICATION": "false"}
    with running(ask_cmd("--queue", "--out", "reports", "How do heat pumps work?"), env=env, cwd=tmp_path,
                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) as asker:
        said = []
        for line in asker.stderr:  # no worker yet: it waits for one
            said.append(line)
            if line.startswith("queued; waiting for a worker"):
                break
        asker.send_signal(signal.SIGINT)
        said.append(asker.communicate(timeout=LONG)[1])
    err = "".join(said)
    assert asker.returncode == 130, err
    suggested = re.search(r"Follow it with: (deepresearch ask --queue --resume (console:\S+))$", err, re.MULTILINE)
    assert suggested, err
    assert _record(tmp_path, suggested.group(2))["out"] == str(tmp_path / "reports")
    worker = subprocess.run([*CLI, "worker", "--burst"], env=env, cwd=tmp_path, capture_output=True,
                            text=True, timeout=LONG)
    assert worker.returncode == 0, worker.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    follow = [*CLI, *suggested.group(1).split()[1:]]
    followed = subprocess.run(follow, env=env, cwd=elsewhere, capture_output=True, text=True, timeout=LONG)
    assert followed.returncode == 0, followed.stderr
    assert f"  copied to {tmp_path / 'reports'}\n" in followed.stdout, followed.stdout
    assert _files_in(tmp_path / "reports") == REPORT_FILES
    again = subprocess.run(follow, env=env, cwd=elsewhere, capture_output=True, text=True, timeout=LONG)
    assert again.returncode == 0 and "copied to" not in again.stdout, again.stdout
    assert _files_in(tmp_path / "reports") == REPORT_FILES


def test_the_help_says_what_resume_keeps_and_that_an_option_given_again_wins(tmp_path):
    shown = " ".join(cli(tmp_path, "ask", "--help").stdout.split())
    assert "kept with the thread" in shown
    for option in ("--offline", "--corpus", "--no-clarify", "--out"):
        assert option in shown.split("--resume THREAD_ID", 1)[1].split("--out DIR", 1)[0], shown
    assert "given again on the resume wins" in shown


def test_a_record_written_before_out_was_kept_still_resumes(tmp_path):
    from bots.console_record import ThreadRecord, load_record, record_path

    path = record_path(tmp_path, "console:old")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"question": "q", "offline": True, "corpus": None, "no_clarify": False,
                                "created_at": 1.0, "clarification": ""}))
    record = load_record(tmp_path, "console:old")
    assert record == ThreadRecord(question="q", offline=True, created_at=1.0)
    assert record.out is None and record.copied is False


def test_a_queued_question_refused_over_a_quota_keeps_no_out_for_a_thread_that_does_not_exist(tmp_path, redis_db):
    from bots.console_queue import requester
    from jobs import handle_message
    from tests.bots.test_console_queue import env_for
    from tests.fakes.recording_port import RecordingPort
    from tests.jobs.conftest import make_settings
    from tests.waiting import LONG

    settings = make_settings(tmp_path / "data", redis_url=redis_db, max_researches_per_user_per_day=1)
    port = RecordingPort.create(tmp_path / "events.jsonl", "console:first").reference()
    assert handle_message("console:first", requester(), "tides", port, "e1", settings=settings,
                          explicit_start=True).action == "started"
    env = {**env_for(tmp_path, redis_db), "DEEPRESEARCH_MAX_RESEARCHES_PER_USER_PER_DAY": "1"}
    refused = subprocess.run([*CLI, "ask", "--queue", "--out", "reports", "wind"], env=env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=LONG)
    assert refused.returncode == 6, refused.stderr
    assert not list((tmp_path / "data" / "console").glob("*.json"))
