"""`deepresearch ask` as a user runs it: exit codes, one-line errors, the clarifying question, resume."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bots.console_helpers import RUN_TIMEOUT, ask_cmd, ask_env
from tests.waiting import LONG

ROOT = Path(__file__).resolve().parents[2]


def ask(tmp_path: Path, *args: str, env: dict | None = None, stdin: str = "", timeout: float = LONG):
    base = {k: v for k, v in os.environ.items()
            if not k.startswith("DEEPRESEARCH_") and k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY")}
    base.update({"DEEPRESEARCH_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(ROOT)})
    base.update(env or {})
    return subprocess.run([sys.executable, "-m", "bots.cli", "ask", *args], input=stdin, capture_output=True,
                          text=True, env=base, cwd=tmp_path, timeout=timeout)


@pytest.fixture
def docs(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# Solar panels\n\nSolar panels convert sunlight into electricity with photovoltaic "
                                 "cells. Modern solar panels reach an efficiency of about 22 percent in 2025.\n")
    (folder / "b.txt").write_text("Inverters\n\nAn inverter turns the direct current of solar panels into alternating "
                                  "current for the home. String inverters are the cheapest kind of solar inverter.\n")
    (folder / "c.html").write_text("<title>Batteries</title><p>Home batteries store solar electricity for the "
                                   "evening. A typical home battery for solar panels holds 10 kilowatt hours.</p>")
    return folder


def test_empty_question_is_a_usage_error(tmp_path):
    out = ask(tmp_path, "", "--offline")
    assert out.returncode == 2 and "empty" in out.stderr


@pytest.mark.parametrize("question", ["🚀🚀🚀", "?!", "👍🏽 — …", "★ ☆ ✓"])
def test_a_question_without_words_is_a_usage_error(tmp_path, question):
    out = ask(tmp_path, question, "--offline", "--no-clarify")
    assert out.returncode == 2 and "no words" in out.stderr, out.stderr
    assert out.stderr.startswith("deepresearch: the question has no words"), out.stderr  # as every refusal line
    assert not (tmp_path / "data").exists()


def test_overlong_question_is_refused_before_any_work(tmp_path, docs):
    out = ask(tmp_path, "x" * 8001, "--offline", "--no-clarify", "--corpus", str(docs))
    assert out.returncode == 2 and "8,000" in out.stderr and "Traceback" not in out.stderr
    assert out.stderr.startswith("deepresearch: the question is 8,001 characters long"), out.stderr
    assert "Indexing" not in out.stderr and "thread:" not in out.stderr
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("data_dir", ["", "data", "/abs"])
def test_an_unknown_thread_names_the_data_folder_it_looked_in_and_how_to_point_at_another(tmp_path, data_dir):
    """The data folder is relative by default (``./data``): a resume from another folder looks elsewhere, so
    the line names the absolute folder looked in and, for a relative one, the setting that fixes it."""
    (tmp_path / "elsewhere").mkdir()
    where = str(tmp_path / "abs") if data_dir == "/abs" else data_dir
    out = subprocess.run(ask_cmd("--resume", "console:nope", "--offline"), capture_output=True, text=True,
                         env={**ask_env(tmp_path), "DEEPRESEARCH_DATA_DIR": where}, cwd=tmp_path / "elsewhere",
                         timeout=RUN_TIMEOUT)
    looked = tmp_path / "abs" if data_dir == "/abs" else tmp_path / "elsewhere" / "data"
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert lines[0] == f"deepresearch: there is no research with thread id console:nope under {looked}.", out.stderr
    if data_dir == "/abs":
        assert len(lines) == 1, out.stderr
    else:
        assert lines[1:] == ["The data folder is relative to the folder ask runs in: run it where the research "
                             "was asked, or set DEEPRESEARCH_DATA_DIR to that folder's data."], out.stderr


def test_unknown_thread_and_a_file_as_out_folder_are_usage_errors(tmp_path):
    out = ask(tmp_path, "--resume", "console:nope", "--answer", "x", "--offline")
    assert out.returncode == 2 and "no research with thread id console:nope" in out.stderr
    assert "thread:" not in out.stderr and "Traceback" not in out.stderr
    (tmp_path / "a-file").write_text("keep me")
    out = ask(tmp_path, "What is a heat pump?", "--offline", "--out", str(tmp_path / "a-file"))
    assert out.returncode == 2 and "is a file" in out.stderr and "Traceback" not in out.stderr
    assert (tmp_path / "a-file").read_text() == "keep me" and not (tmp_path / "data").exists()


def test_no_model_configured_is_one_line(tmp_path):
    out = ask(tmp_path, "What is a heat pump?", env={"DEEPRESEARCH_LLM": "openai"})
    assert out.returncode == 1
    lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "OPENAI_API_KEY" in lines[0] and "DEEPRESEARCH_LLM=offline" in lines[0]


def test_unreachable_model_is_a_clear_error_and_resumable(tmp_path, docs):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {"OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
           "DEEPRESEARCH_MODEL_MAX_RETRIES": "1"}
    out = ask(tmp_path, "What do solar panels cost?", "--no-clarify", "--corpus", str(docs), env=env)
    assert out.returncode == 1, out.stderr
    assert "could not be reached" in out.stderr and "--resume console:" in out.stderr
    assert "Traceback" not in out.stderr and "test-key" not in out.stderr


def test_vague_question_gets_a_clarifying_question_then_research(tmp_path, docs):
    out = ask(tmp_path, "solar", "--offline", "--corpus", str(docs), stdin="home solar panels and inverters\n")
    assert out.returncode == 0, out.stderr
    question_at = out.stderr.index("Clarifying question:")
    assert question_at < out.stderr.index("Researching")
    paths = [Path(p.strip()) for p in out.stdout.splitlines() if p.strip().endswith((".md", ".pdf"))]
    names = {p.name for p in paths}
    assert {"report.md", "report.pdf", "review.md"} <= names
    report = next(p for p in paths if p.name == "report.md")
    assert (tmp_path / report).exists()


def test_waiting_for_an_answer_then_resume(tmp_path, docs):
    first = ask(tmp_path, "solar", "--offline", "--corpus", str(docs))
    assert first.returncode == 3
    thread = re.search(r"thread: (console:\S+)", first.stderr).group(1)
    # the thread remembers --offline and --corpus
    second = ask(tmp_path, "", "--resume", thread, "--answer", "inverters")
    assert second.returncode == 0, second.stderr
    report = next(Path(p.strip()) for p in second.stdout.splitlines() if p.strip().endswith("report.md"))
    assert "b.txt" in (tmp_path / report).read_text()


def test_resume_finds_a_corpus_given_through_a_relative_symlink_and_names_no_server_path(tmp_path, docs):
    link = tmp_path / "linked-docs"
    link.symlink_to(docs, target_is_directory=True)
    first = ask(tmp_path, "solar", "--offline", "--corpus", "linked-docs")  # relative, through a symlink
    assert first.returncode == 3, first.stderr
    thread = re.search(r"thread: (console:\S+)", first.stderr).group(1)
    second = ask(tmp_path, "--resume", thread, "--answer", "inverters")
    assert second.returncode == 0, second.stderr
    report = next(Path(p.strip()) for p in second.stdout.splitlines() if p.strip().endswith("report.md"))
    text = (tmp_path / report).read_text()
    assert "(b.txt)" in text and str(tmp_path) not in text and "file:" not in text


def test_indexing_another_folder_leaves_the_configured_folder_unindexed_and_says_so(tmp_path, docs):
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.md").write_text("# Other\n\nSomething else entirely, about gardening and roses in spring.\n")
    env = {"DEEPRESEARCH_SEARCH": "corpus", "DEEPRESEARCH_CORPUS_DIR": str(docs), "DEEPRESEARCH_LLM": "offline"}
    base = {k: v for k, v in os.environ.items() if not k.startswith("DEEPRESEARCH_")}
    base.update(env, DEEPRESEARCH_DATA_DIR=str(tmp_path / "data"), PYTHONPATH=str(ROOT))
    subprocess.run([sys.executable, "-m", "bots.cli", "index", str(other)], env=base, cwd=tmp_path, check=True,
                   capture_output=True)
    out = ask(tmp_path, "What do solar panels cost?", "--no-clarify", env=env)
    assert out.returncode == 1
    assert "is not indexed yet" in out.stderr and f"deepresearch index {docs}" in out.stderr
    assert "thread:" not in out.stderr, out.stderr


def test_the_reviews_follow_up_questions_follow_the_report_paths(tmp_path, docs):
    question = "How efficient and how durable are modern home solar panels in 2025, and what do they cost?"
    out = ask(tmp_path, question, "--offline", "--corpus", str(docs), "--no-clarify")
    assert out.returncode == 0, out.stderr
    # the paths stay the only lines on stdout; the suggestions, as the chat's buttons offer them, on stderr
    assert "Suggested" not in out.stdout
    after = out.stderr.split("Suggested follow-up questions:\n", 1)[1].splitlines()
    asked = [line for line in after if line.startswith("  - ")]
    # the review found the question's "durable" and "cost" unanswered: the follow-up asks about them, then
    # names the whole question, so it reads on its own
    assert asked and all("How efficient and how durable are modern home solar panels" in q for q in asked)
    assert "“durable”" in asked[0] and "“cost”" in asked[0], asked
    # a question the findings answer whole leaves the review nothing open: no suggestions
    answered = ask(tmp_path, "How efficient are modern solar panels in 2025?", "--offline", "--corpus",
                   str(docs), "--no-clarify")
    assert answered.returncode == 0 and "Suggested" not in answered.stderr


def test_a_terminal_run_is_audited_and_counts_against_the_quota(tmp_path, docs):
    import getpass
    import json

    env = {"DEEPRESEARCH_MAX_RESEARCHES_PER_USER_PER_DAY": "1"}
    first = ask(tmp_path, "solar panels", "--offline", "--no-clarify", "--corpus", str(docs), env=env)
    assert first.returncode == 0, first.stderr
    second = ask(tmp_path, "home batteries", "--offline", "--no-clarify", "--corpus", str(docs), env=env)
    assert second.returncode == 6, second.stderr
    lines = [ln for ln in second.stderr.splitlines() if ln.strip() and "Indexing" not in ln and "index" not in ln]
    assert lines[-1].startswith("deepresearch: You have started the most researches allowed in 24 hours (1)"), second.stderr
    assert "thread:" not in second.stderr and "Traceback" not in second.stderr
    trail = [json.loads(line) for line in (tmp_path / "data" / "audit.jsonl").read_text().splitlines()]
    me = f"console:{getpass.getuser()}"
    assert [(r["requester"], r["status"], r["question"]) for r in trail] == [
        (me, "done", "solar panels"), (me, "rejected", "home batteries")]
    done = trail[0]
    assert done["thread"] == re.search(r"thread: (console:\S+)", first.stderr).group(1)
    assert done["platform"] == "console" and done["duration_seconds"] >= 0 and done["sources"] >= 1
    assert done["model_calls"] >= 1 and done["tokens"] > 0
    # the report's files, as a chat's audit record lists the ones it uploaded (and a queued run's)
    assert done["files"] == ["report.md", "report.pdf", "report.docx"]


def test_what_a_run_writes_is_readable_by_its_own_user_only(tmp_path, docs):
    # the data folder holds questions, thread discussions, reports and the audit trail
    out = ask(tmp_path, "R&D costs of home batteries", "--offline", "--no-clarify", "--corpus", str(docs),
              "--out", str(tmp_path / "reports"))
    assert out.returncode == 0, out.stderr
    written = [p for folder in (tmp_path / "data", tmp_path / "reports") for p in [folder, *folder.rglob("*")]]
    assert {p.name for p in written} >= {"audit.jsonl", "checkpoints.sqlite", "usage.jsonl", "report.md"}
    shared = [f"{p.relative_to(tmp_path)} {oct(p.stat().st_mode & 0o777)}" for p in written if p.stat().st_mode & 0o077]
    assert shared == []
    assert (tmp_path / "reports" / "report.md").read_text().startswith("# R&D costs of home batteries\n")


def test_out_keeps_an_earlier_report_and_numbers_the_next(tmp_path, capsys):
    from bots.console_output import copy_out as _copy_out

    def run(text: str) -> list[Path]:
        made = tmp_path / "runs" / text
        made.mkdir(parents=True)
        for name in ("report.md", "report.pdf"):
            (made / name).write_text(f"{text} {name}")
        return [made / "report.md", made / "report.pdf"]

    out = tmp_path / "reports"
    assert _copy_out(run("first"), out) == 0 and " as report" not in capsys.readouterr().out
    (out / "report-2.pdf").write_text("someone else's")  # a number is used whole or not at all
    assert _copy_out(run("second"), out) == 0
    assert "as report-3.md, report-3.pdf (an earlier report is there)" in capsys.readouterr().out
    assert _copy_out(run("third"), out) == 0
    assert {p.name: p.read_text() for p in out.iterdir()} == {
        "report.md": "first report.md", "report.pdf": "first report.pdf", "report-2.pdf": "someone else's",
        "report-3.md": "second report.md", "report-3.pdf": "second report.pdf",
        "report-4.md": "third report.md", "report-4.pdf": "third report.pdf"}


def test_out_on_a_full_disk_copies_all_of_the_report_or_nothing(tmp_path, capsys, monkeypatch):
    """A full disk part-way through `--out` left report.md, .pdf, .docx and .tex copied and review.md,
    sources.json and usage.json not, under a line saying the report could not be copied there."""
    import errno

    from bots import console_output

    made = tmp_path / "run"
    made.mkdir()
    files = []
    for name in ("report.md", "report.pdf", "report.docx", "review.md", "sources.json"):
        (made / name).write_text(name)
        files.append(made / name)
    out = tmp_path / "reports"
    out.mkdir()
    (out / "report.md").write_text("an earlier report")
    copy = console_output.copy_atomic

    def fills_the_disk(source, target):
        if source.name == "review.md":
            raise OSError(errno.ENOSPC, "No space left on device", str(target))
        return copy(source, target)

    monkeypatch.setattr(console_output, "copy_atomic", fills_the_disk)
    assert console_output.copy_out(files, out) == 5
    assert {p.name: p.read_text() for p in out.iterdir()} == {"report.md": "an earlier report"}
    said = capsys.readouterr().err
    assert "could not be copied to" in said and "nothing of it was copied" in said, said
