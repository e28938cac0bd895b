"""`deepresearch ask --queue`: a worker does the research, the terminal follows, clarification included."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from tests import texts
from tests.waiting import LONG

ROOT = Path(__file__).resolve().parents[2]
@pytest.fixture
def redis_url(redis_db: str) -> str:
    """A Redis database of this test's own (``tests.redis_db``)."""
    return redis_db


def env_for(tmp_path: Path, redis_url: str) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("DEEPRESEARCH_") and k not in ("OPENAI_API_KEY", "TAVILY_API_KEY", "REDIS_URL")}
    env.update({"DEEPRESEARCH_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(ROOT), "REDIS_URL": redis_url,
                "DEEPRESEARCH_LLM": "offline", "DEEPRESEARCH_MAX_REVIEW_ITERATIONS": "1"})
    return env


def test_queued_question_is_researched_by_the_worker(tmp_path, redis_url):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Wind turbines\n\nWind turbines convert the kinetic energy of wind into electricity "
                               "with a rotor and a generator. Offshore wind turbines produce more power than onshore ones.\n")
    env = env_for(tmp_path, redis_url)
    env.update({"DEEPRESEARCH_SEARCH": "corpus", "DEEPRESEARCH_CORPUS_DIR": str(docs)})
    subprocess.run([sys.executable, "-m", "bots.cli", "index", str(docs)], env=env, cwd=tmp_path, check=True,
                   capture_output=True)
    worker = subprocess.Popen([sys.executable, "-m", "bots.cli", "worker"], env=env, cwd=tmp_path,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        out = subprocess.run([sys.executable, "-m", "bots.cli", "ask", "--queue", "--answer", "offshore wind power",
                              "wind turbines and their noise"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=LONG)
    finally:
        worker.terminate()
        worker.wait(timeout=LONG)
    assert out.returncode == 0, out.stderr
    assert "queued" in out.stderr and "wind" in out.stderr.lower()
    files = [Path(line.strip()) for line in out.stdout.splitlines() if line.startswith("  /")]
    assert [f.name for f in files] == ["report.md", "report.pdf", "report.docx", "report.tex", "review.md", "sources.json",
                                       "usage.json"]
    assert all(f.exists() for f in files)
    assert "offshore" in files[0].read_text().lower()
    # the summary is rendered for the terminal, and nothing in it is chat markup
    assert "**" not in out.stderr and "The full report." not in out.stderr
    # the review's follow-up questions (the chat's buttons: here on "noise", which no finding
    # answers) come after the files, on stderr
    suggested = out.stderr.split("Suggested follow-up questions:\n", 1)[1].splitlines()
    assert sum(line.startswith("  - ") for line in suggested) >= 1 and "Suggested" not in out.stdout
    # a finished thread, followed again, prints its files (a stray answer is said to be ignored)
    thread = re.search(r"thread: (console:\S+)", out.stderr).group(1)
    again = subprocess.run([sys.executable, "-m", "bots.cli", "ask", "--queue", "--resume", thread, "--answer", "x"],
                           env=env, cwd=tmp_path, capture_output=True, text=True, timeout=LONG)
    assert again.returncode == 0 and "--answer is ignored" in again.stderr
    assert [Path(line.strip()) for line in again.stdout.splitlines() if line.startswith("  /")] == files


def test_queue_refuses_terminal_only_options_and_unknown_threads(tmp_path, redis_url):
    env = env_for(tmp_path, redis_url)
    out = subprocess.run([sys.executable, "-m", "bots.cli", "ask", "--queue", "--offline", "--corpus", str(tmp_path),
                          "What is wind power?"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=LONG)
    assert out.returncode == 2 and "--offline, --corpus" in out.stderr and "DEEPRESEARCH_CORPUS_DIR" in out.stderr
    out = subprocess.run([sys.executable, "-m", "bots.cli", "ask", "--queue", "--resume", "console:nope",
                          "--answer", "x"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=LONG)
    assert out.returncode == 2 and "no queued research with thread id console:nope" in out.stderr
    assert "thread:" not in out.stderr
    import redis

    assert redis.Redis.from_url(redis_url).dbsize() == 0  # nothing was queued or registered


@pytest.mark.parametrize("thread", ["console:\x1b[31mx\x1b]0;T\x07y\u009b2J", "console:a\u202eb\u2066c"])
def test_a_thread_id_with_terminal_escapes_is_shown_without_them(tmp_path, redis_url, thread):
    """An operator's trial: `ask --queue --resume` printed a thread id's ESC and C1 bytes to the terminal
    (colours, a window title, a screen clear); without --queue the same id was cleaned. Bidirectional
    overrides (U+202E, U+2066) would show the line's text reordered."""
    env = env_for(tmp_path, redis_url)
    out = subprocess.run([sys.executable, "-m", "bots.cli", "ask", "--queue", "--resume", thread],
                         env=env, cwd=tmp_path, capture_output=True, text=True, timeout=LONG)
    assert out.returncode == 2 and "no queued research with thread id console:" in out.stderr
    assert not [ch for ch in out.stderr if ch in "\x1b\x07\u009b\u202e\u2066"], repr(out.stderr)


def test_queue_without_redis_is_one_line(tmp_path):
    env = env_for(tmp_path, "")
    env.pop("REDIS_URL")
    out = subprocess.run([sys.executable, "-m", "bots.cli", "ask", "--queue", "What is wind power?"],
                         env=env, cwd=tmp_path, capture_output=True, text=True, timeout=LONG)
    assert out.returncode == 1 and "REDIS_URL" in out.stderr.strip().splitlines()[-1]


def test_over_a_quota_ask_queue_says_so_in_one_clean_line_and_exits_6(tmp_path, redis_url):
    import getpass

    from jobs import audit, handle_message
    from tests.fakes.recording_port import RecordingPort
    from tests.jobs.conftest import make_settings

    settings = make_settings(tmp_path / "data", redis_url=redis_url, max_researches_per_user_per_day=1)
    first = "console:first-of-the-day"
    port = RecordingPort.create(tmp_path / "events.jsonl", first).reference()
    me = f"console:{getpass.getuser()}"
    assert handle_message(first, me, "tides", port, "e1", settings=settings, explicit_start=True).action == "started"
    env = env_for(tmp_path, redis_url)
    env["DEEPRESEARCH_MAX_RESEARCHES_PER_USER_PER_DAY"] = "1"
    out = subprocess.run([sys.executable, "-m", "bots.cli", "ask", "--queue", "wind"], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=LONG)
    assert out.returncode == 6, out.stderr
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("deepresearch: You have started the most researches allowed in 24 hours (1)")
    assert "thread:" not in out.stderr and out.stdout == ""
    [record] = audit.read(settings)
    assert (record["requester"], record["status"], record["question"]) == (me, "rejected", "wind")


def _read_lines(stream, until: Callable[[list[str]], bool]) -> tuple[list[str], threading.Event, threading.Thread]:
    """Read ``stream``'s lines in a thread: ``(lines so far, an event set once until(lines) held,
    the reading thread)``."""
    lines: list[str] = []
    seen = threading.Event()

    def read() -> None:
        for line in stream:
            lines.append(line)
            if until(lines):
                seen.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return lines, seen, reader


def test_an_answer_typed_after_another_terminal_answered_follows_that_research(tmp_path, redis_url):
    """Terminal B waits at the clarifying question (``--resume``) while terminal A answers it: B's
    late answer is not sent as a new question (a second paid research, asking again); B says so,
    follows A's research from where it was and prints the one report's files."""
    env = env_for(tmp_path, redis_url)
    env["DEEPRESEARCH_ALLOW_CLARIFICATION"] = "true"
    cli = [sys.executable, "-m", "bots.cli", "ask", "--queue"]
    worker = subprocess.Popen([sys.executable, "-m", "bots.cli", "worker"], env=env, cwd=tmp_path,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    b = None
    try:
        first = subprocess.run([*cli, "heat pumps"], env=env, cwd=tmp_path, capture_output=True, text=True,
                               stdin=subprocess.DEVNULL, timeout=LONG)
        assert first.returncode == 3, first.stderr
        thread = re.search(r"thread: (console:\S+)", first.stderr).group(1)
        b = subprocess.Popen([*cli, "--resume", thread], env=env, cwd=tmp_path, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        shown, at_prompt, reader = _read_lines(b.stderr, lambda lines: lines[-1].startswith("Clarifying question:"))
        assert at_prompt.wait(LONG), "".join(shown)
        a = subprocess.run([*cli, "--resume", thread, "--answer", "running costs"], env=env, cwd=tmp_path,
                           capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=LONG)
        assert a.returncode == 0, a.stderr
        b.stdin.write("for homes in Austria\n")
        b.stdin.close()
        out = b.stdout.read()  # its stderr is the reader's
        b.wait(LONG)
        reader.join(LONG)
    finally:
        if b is not None and b.poll() is None:
            b.kill()
        worker.terminate()
        worker.wait(timeout=LONG)
    said = "".join(shown)
    assert b.returncode == 0, said
    assert "answered in another terminal" in " ".join(said.split()) and said.count("Clarifying question:") == 1
    assert [Path(line.strip()).name for line in out.splitlines() if line.startswith("  /")][:1] == ["report.md"]
    reports = list((tmp_path / "data" / "artifacts").glob("*/*/report.md"))
    assert len(reports) == 1 and "Austria" not in reports[0].read_text()


def test_resuming_a_research_no_worker_has_taken_says_it_waits_for_one(tmp_path, redis_url):
    """``--resume`` of a queued research says what the asker's terminal said: it waits for a worker."""
    env = env_for(tmp_path, redis_url)
    cli = [sys.executable, "-m", "bots.cli", "ask", "--queue"]
    asker = subprocess.Popen([*cli, "How do tides work?"], env=env, cwd=tmp_path, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    follower = None
    try:
        thread = None
        for line in asker.stderr:
            if line.startswith("thread: "):
                thread = line.split()[1]
                break
        assert thread, "the asker printed no thread id"
        follower = subprocess.Popen([*cli, "--resume", thread], env=env, cwd=tmp_path, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        lines, two, _ = _read_lines(follower.stderr, lambda lines: len(lines) == 2)
        two.wait(LONG)
    finally:
        for proc in (asker, follower):
            if proc is not None:
                proc.kill()
                proc.wait(LONG)
    assert lines[:2] == [f"thread: {thread}\n", "queued; waiting for a worker …\n"], lines


def test_what_the_worker_relays_is_shown_as_written_not_read_as_terminal_markup(capsys):
    """A relayed status line or upload comment is text from the research (the question's words, a
    model's title): ``[/b]`` or ``[red]`` in it is shown, never taken for rich markup (which raised)."""
    from bots.console_queue import _Transcript

    shown = _Transcript()
    shown({"op": "update", "text": "Researching: what does [/b] close in [red] BBCode?"})
    shown({"op": "upload", "files": [], "comment": "Note: [/i] kept"})
    assert "Researching: what does [/b] close in [red] BBCode?" in capsys.readouterr().err


@pytest.mark.parametrize(("relayed", "shown"), [
    (texts.CLARIFY_STATUS_TEXT, "A clarifying question follows; the research starts once you answer it."),
    (texts.DONE_TEXT, "Research finished."),
    (texts.FILES_FOLLOW_TEXT, "Research finished."),
])
def test_the_chat_threads_status_words_are_said_the_terminals_way(relayed, shown, capsys):
    """The worker's last status line is written for a chat thread ("below", "the requester"); the
    terminal says it in its own words (the files' paths go to stdout, the question is asked next)."""
    from bots.console_queue import _Transcript

    _Transcript()({"op": "update", "text": relayed})
    assert capsys.readouterr().err.strip() == shown


def test_ask_queue_out_keeps_an_earlier_report_in_the_folder(tmp_path, capsys, monkeypatch):
    """``ask --queue --out DIR`` copies as the local ``ask --out`` does: a folder that already
    holds a report keeps it, this one's files get numbered names."""
    from types import SimpleNamespace

    from bots.console_queue import _QueuedRun
    from engine.settings import load_settings

    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(tmp_path / "data"))
    run = tmp_path / "data" / "artifacts" / "console_t" / "run-1"
    run.mkdir(parents=True)
    (run / "report.md").write_text("# New\n", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.md").write_text("# Earlier\n", encoding="utf-8")
    queued = _QueuedRun.__new__(_QueuedRun)
    queued.settings = load_settings()
    queued.shown = SimpleNamespace(files=[], comment="", follow_ups=[])
    info = SimpleNamespace(report_dir=run, title="New [/b] title")
    assert queued.print_files(info, out) == 0
    assert (out / "report.md").read_text(encoding="utf-8") == "# Earlier\n"
    assert (out / "report-2.md").read_text(encoding="utf-8") == "# New\n"
    printed = capsys.readouterr()
    assert "New [/b] title" in printed.out and "report-2.md" in printed.out



@pytest.mark.parametrize("language", ["en", "de", "fr", "ja"])
def test_ask_queue_prints_no_note_for_the_usual_upload_comment_in_any_language(tmp_path, capsys, monkeypatch, language):
    """The worker's usual upload comment (in the thread's language) is no news: only another one (the
    PDF could not be built) is shown."""
    from types import SimpleNamespace

    from bots.console_queue import _QueuedRun
    from engine.settings import load_settings
    from jobs.phrases import WORDS

    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(tmp_path / "data"))
    run = tmp_path / "data" / "artifacts" / "console_t" / "run-1"
    run.mkdir(parents=True)
    (run / "report.md").write_text("# New\n", encoding="utf-8")
    queued = _QueuedRun.__new__(_QueuedRun)
    queued.settings = load_settings()
    queued.shown = SimpleNamespace(files=[], comment=WORDS("upload_comment", language), follow_ups=[])
    assert queued.print_files(SimpleNamespace(report_dir=run, title="New"), None) == 0
    assert capsys.readouterr().err == ""
    queued.shown.comment = WORDS("pdf_failed_comment", language, error="LaTeX stopped", kinds="report.md")
    assert queued.print_files(SimpleNamespace(report_dir=run, title="New"), None) == 0
    assert "LaTeX stopped" in capsys.readouterr().err

@pytest.mark.parametrize("question", ["Wie funktionieren Wärmepumpen im Winter?", "How do heat pumps work in winter?"])
def test_a_queued_status_line_words_each_stage_as_a_local_run_does(question, capsys):
    """The status line ``ask --queue`` prints (the worker's status text, relayed) holds the local
    ``ask``'s line for the same progress word for word, whatever the question's language: both come
    from :meth:`engine.progress.Progress.render`."""
    import time

    from bots.console import ConsoleProgress
    from bots.console_queue import _Transcript
    from engine.progress import PHASES, Progress
    from jobs.status import progress_text

    for phase in PHASES:  # 30.4 s elapsed: both lines are printed within the same second
        progress = Progress(phase=phase, topics=[question], topics_started=1, sources_found=2,
                            started_at=time.monotonic() - 30.4)
        ConsoleProgress(started=progress.started_at)(progress)
        local = capsys.readouterr().err.strip()
        _Transcript()({"op": "update", "text": progress_text(progress, elapsed=progress.elapsed)})
        queued = capsys.readouterr().err.strip()
        assert local.startswith(PHASES[phase]) and queued.endswith(local), (local, queued)


def test_a_status_text_relayed_again_is_printed_once(capsys):
    """A new attempt at the research (after a retry or a hand-back) relays the status message's
    first text again, unchanged: the terminal prints each change of the status once, in order; a
    text coming back after another one is a change."""
    from bots.console_queue import _Transcript

    starting, retrying = "Starting the research…", texts.RETRYING_TEXT
    ticking = "Research in progress\nResearching · topics 0/1 done · 0 sources found · 0:02 elapsed"
    shown = _Transcript()
    for op, text in [("post", starting), ("update", starting), ("update", starting), ("update", ticking),
                     ("update", ticking), ("update", retrying), ("update", starting), ("update", starting),
                     ("post", "The summary")]:
        shown({"op": op, "id": "s1", "text": text})
    shown.flush()
    lines = [line.strip() for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert lines == [starting, ticking.replace("\n", " | "), retrying, starting, "The summary"]
