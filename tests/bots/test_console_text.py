"""`deepresearch ask` and `index` with text the terminal cannot take as it is: bad bytes, markup, control codes."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.bots.console_helpers import (
    RUN_TIMEOUT,
    ask,
    ask_env,
    no_traceback,
    report_of,
    thread_of,
    write_docs,
)


@pytest.fixture
def docs(tmp_path):
    return write_docs(tmp_path / "docs")


def test_invalid_utf8_and_lone_surrogates_in_the_question_are_replaced(tmp_path, docs):
    out = ask(tmp_path, b"solar panels \xed\xa0\x80 cost", "--offline", "--no-clarify", "--corpus", str(docs))
    assert out.returncode == 0, out.stderr
    no_traceback(out)
    assert "solar panels \ufffd\ufffd\ufffd cost" in out.stdout  # the title, printed
    report = report_of(tmp_path, out.stdout).read_text(encoding="utf-8")
    assert "\ufffd" in report and "solar" in report


def test_markup_in_questions_and_answers_is_printed_as_typed(tmp_path, docs):
    out = ask(tmp_path, "[b]solar[/] [/]", "--offline", "--corpus", str(docs), stdin="home [bold]inverters[/] [/]\n")
    assert out.returncode == 0, out.stderr
    no_traceback(out)
    asked = next(ln for ln in out.stderr.splitlines() if ln.startswith("Clarifying question:"))
    assert "[b]solar[/] [/]" in asked
    out = ask(tmp_path, "--resume", "console:[red]x[/red] [/] [redacted]", "--offline")
    assert out.returncode == 2 and "thread id console:[red]x[/red] [/] [redacted] under" in out.stderr, out.stderr


def test_control_characters_never_reach_the_terminal_or_the_report(tmp_path, docs):
    out = ask(tmp_path, "solar \x1b[H\x07", "--offline", "--corpus", str(docs),
              stdin="home \x1b[2Jinverters\x08\n")
    assert out.returncode == 0, out.stderr
    for text in (out.stdout, out.stderr):
        assert not any(c in text for c in "\x1b\x07\x08"), repr(text)
    asked = next(ln for ln in out.stderr.splitlines() if ln.startswith("Clarifying question:"))
    assert "“solar”" in asked  # a terminal escape sequence goes whole: no "[H" is left of it
    report = report_of(tmp_path, out.stdout).read_text(encoding="utf-8")
    assert "\x1b" not in report and "\x07" not in report and "[2J" not in report and "home inverters" in report


def test_answer_with_invalid_bytes_on_stdin_is_replaced(tmp_path, docs):
    env = ask_env(tmp_path)
    first = ask(tmp_path, "solar", "--offline", "--corpus", str(docs))
    assert first.returncode == 3, first.stderr
    out = subprocess.run([sys.executable, "-m", "bots.cli", "ask", "--resume", thread_of(first.stderr)],
                         input=b"inverters \xff\xfe at home\n", capture_output=True, env=env, cwd=tmp_path,
                         timeout=RUN_TIMEOUT)
    assert out.returncode == 0, out.stderr.decode(errors="replace")
    assert b"Traceback" not in out.stderr


def test_a_file_name_that_is_not_utf8_is_indexed_and_cited(tmp_path, docs):
    bad = os.path.join(os.fsencode(docs), b"caf\xe9 \x1b[31mnotes.md")
    with open(bad, "wb") as fh:
        fh.write(b"# Solar prices\n\nSolar panels cost about 1 euro per watt in 2025 \xff, before installation.\n")
    env = ask_env(tmp_path)
    index = subprocess.run([sys.executable, "-m", "bots.cli", "index", str(docs)], capture_output=True, text=True,
                           errors="replace", env=env, cwd=tmp_path, timeout=RUN_TIMEOUT)
    assert index.returncode == 0, index.stderr
    assert "indexed 4 documents (0 skipped)" in index.stdout
    out = ask(tmp_path, "What do solar panels cost per watt?", "--offline", "--no-clarify", "--corpus", str(docs))
    assert out.returncode == 0, out.stderr
    no_traceback(out)
    report = report_of(tmp_path, out.stdout).read_text(encoding="utf-8")
    # the Sources line names it as text, its Markdown characters escaped (it reads "caf\xe9 \x1b[31mnotes.md")
    assert "(caf\\xe9 \\x1b\\[31mnotes.md)" in report
    assert "\x1b" not in report


def test_a_windows_1252_page_without_a_declared_charset_is_quoted_as_written(tmp_path, docs):
    """A page saved in windows-1252 with no ``<meta charset>`` is read in it (the HTML standard's default
    for Western text), not in an encoding a detector guessed: the report quotes its sentence as written."""
    sentence = "L’an dernier, la pompe à chaleur a coûté 9 000 € – l’été, elle chauffe l’eau à 55 °C."
    (docs / "pompe.html").write_bytes(f"<html><body><h1>Pompe à chaleur</h1><p>{sentence}</p></body></html>"
                                      .encode("cp1252"))
    out = ask(tmp_path, "Combien a coûté la pompe à chaleur l’an dernier ?", "--offline", "--no-clarify",
              "--corpus", str(docs))
    assert out.returncode == 0, out.stderr
    no_traceback(out)
    report = report_of(tmp_path, out.stdout).read_text(encoding="utf-8")
    assert sentence in " ".join(re.sub(r"\\(.)", r"\1", report).split()), report
    assert "Pompe à chaleur" in report
