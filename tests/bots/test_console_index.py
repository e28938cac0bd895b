"""What indexing a corpus tells the terminal: each skipped file by name with its reason, as a line
for people (never a log record), and whether anything changed since the last run."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.bots.console_helpers import RUN_TIMEOUT, ask, ask_env, write_docs


def _skipping_docs(tmp_path):
    docs = write_docs(tmp_path / "docs")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4\nnot really a pdf")
    (docs / "empty.md").write_text("\n")
    return docs


def test_index_names_each_skipped_file_with_its_reason_and_no_log_record(tmp_path):
    docs = _skipping_docs(tmp_path)
    index = subprocess.run([sys.executable, "-m", "bots.cli", "index", str(docs)], capture_output=True, text=True,
                           env=ask_env(tmp_path), cwd=tmp_path, timeout=RUN_TIMEOUT)
    assert index.returncode == 0, index.stderr
    assert index.stdout.startswith("indexed 3 documents (2 skipped)"), index.stdout
    lines = index.stderr.splitlines()
    assert "skipped broken.pdf: corrupt PDF" in "\n".join(lines), index.stderr
    assert "skipped empty.md: no text" in lines, index.stderr
    assert "level=" not in index.stderr and "corpus_skip" not in index.stderr, index.stderr


def test_ask_says_when_the_corpus_index_is_up_to_date_and_what_it_skipped(tmp_path):
    docs = _skipping_docs(tmp_path)
    first = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), "What do solar panels cost?")
    assert first.returncode == 0, first.stderr
    assert "Indexed 3 documents (2 skipped)." in first.stderr.splitlines(), first.stderr
    assert "skipped empty.md: no text" in first.stderr.splitlines() and "level=" not in first.stderr
    again = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), "What do wind turbines cost?")
    assert again.returncode == 0, again.stderr
    assert "The index is up to date: 3 documents (2 skipped)." in again.stderr.splitlines(), again.stderr


@pytest.mark.parametrize("given", ["docs", "./docs/", "docs-link", "~/docs"])
def test_a_skipped_file_is_named_from_the_folder_however_the_folder_is_given(tmp_path, given):
    """As the README shows it, ``skipped notes/broken.pdf: ...``: a relative folder, a link to it or
    ``~`` gives the same line as an absolute path, never the file's absolute path."""
    docs = write_docs(tmp_path / "docs")
    (docs / "notes").mkdir()
    (docs / "notes" / "broken.pdf").write_bytes(b"%PDF-1.4\nnot really a pdf")
    (tmp_path / "docs-link").symlink_to(docs)
    env = {**ask_env(tmp_path), "HOME": str(tmp_path)}
    index = subprocess.run([sys.executable, "-m", "bots.cli", "index", given], capture_output=True, text=True,
                           env=env, cwd=tmp_path, timeout=RUN_TIMEOUT)
    assert index.returncode == 0, index.stderr
    assert index.stderr.splitlines() == ["skipped notes/broken.pdf: corrupt PDF (PdfStreamError)"], index.stderr
    asked = ask(tmp_path, "--offline", "--no-clarify", "--corpus", given, "What do solar panels cost?",
                env={"HOME": str(tmp_path)})
    assert asked.returncode == 0, asked.stderr
    assert "skipped notes/broken.pdf: corrupt PDF (PdfStreamError)" in asked.stderr.splitlines(), asked.stderr


@pytest.mark.parametrize("command", ["index", "ask"])
def test_a_run_that_waits_for_another_runs_indexing_says_so_and_then_goes_on(tmp_path, command):
    """Another run holds the data folder's corpus indexes (as a run indexing does): `deepresearch
    index` and `ask --corpus` say they wait for it instead of sitting silent after "Indexing …", and
    go on when it is done."""
    import fcntl
    import os

    from engine.settings import corpus_index_for
    from tests.waiting import wait_exit

    docs = write_docs(tmp_path / "docs")
    folder = corpus_index_for(tmp_path / "data", docs).parent
    folder.mkdir(parents=True)
    held = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    args = (["index", str(docs)] if command == "index"
            else ["ask", "--offline", "--no-clarify", "--corpus", str(docs), "What do solar panels cost?"])
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        proc = subprocess.Popen([sys.executable, "-m", "bots.cli", *args], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=ask_env(tmp_path), cwd=tmp_path)
        said = proc.stderr.readline()
        if command == "ask":
            assert said.startswith("Indexing "), said
            said = proc.stderr.readline()
        assert said == "Another run is indexing into this data folder; waiting for it to finish …\n", said
        assert proc.poll() is None  # it waits
    finally:
        os.close(held)  # and the lock with it
    wait_exit(proc, what=f"deepresearch {command} after the other run")
    rest = proc.stderr.read()
    assert proc.returncode == 0, rest
    assert "indexed 3 documents" in proc.stdout.read() if command == "index" else "Indexed 3 documents" in rest


def _truncated_pdf() -> bytes:
    """A real PDF cut in half (a download stopped half-way): its header, no cross-reference table."""
    from tests.shared_files import pdf_bytes

    whole = pdf_bytes(["The Zephyr turbine delivers fourteen megawatts."], "Zephyr")
    return whole[:len(whole) // 2]


@pytest.mark.parametrize(("content", "reason"), [
    (_truncated_pdf, "corrupt PDF (PdfStreamError)"),
    (lambda: b"Name,Price\nZephyr,14\n", "not a PDF (no %PDF header)"),
], ids=["truncated", "not-a-pdf"])
def test_a_broken_pdf_has_one_reason_in_index_and_ask_file(tmp_path, content, reason):
    """The same broken file was "unreadable PDF (PdfStreamError)" to `deepresearch index` and "not a PDF"
    (or "corrupt PDF") to `ask --file`: both now give the one reason the shared files' list keeps (and
    the chats show, translated)."""
    docs = write_docs(tmp_path / "docs")
    (docs / "broken.pdf").write_bytes(content())
    index = subprocess.run([sys.executable, "-m", "bots.cli", "index", str(docs)], capture_output=True, text=True,
                           env=ask_env(tmp_path), cwd=tmp_path, timeout=RUN_TIMEOUT)
    assert index.returncode == 0, index.stderr
    assert index.stderr.splitlines() == [f"skipped broken.pdf: {reason}"], index.stderr
    asked = ask(tmp_path, "--offline", "--no-clarify", "--file", str(docs / "broken.pdf"), "--file",
                str(docs / "a.md"), "What do solar panels cost?")
    assert asked.returncode == 0, asked.stderr
    assert f"skipped broken.pdf: {reason}" in asked.stderr.splitlines(), asked.stderr


def test_index_reads_every_type_ask_file_reads_and_counts_each_file_it_skips(tmp_path, monkeypatch, caplog):
    """A CSV (or DOCX, .text, .log) file in the folder is indexed, read as `ask --file` reads it, and a
    file of a type nothing reads is counted as skipped and named with its reason, on the terminal and
    in the log, never passed over in silence."""
    import asyncio
    import logging

    from engine.files.read import KINDS
    from engine.search.corpus import CorpusSearch
    from engine.search.extract import SUPPORTED_SUFFIXES
    from engine.settings import corpus_index_for
    from tests.bots.console_helpers import cli_here
    from tests.shared_files import docx_bytes

    assert set(KINDS) <= SUPPORTED_SUFFIXES  # no type `ask --file` reads is left out of a corpus
    docs = write_docs(tmp_path / "docs")
    (docs / "prices.csv").write_text("Panel,Price\nZephyr,fourteen euros\n")
    (docs / "guide.docx").write_bytes(docx_bytes([("Mounting", "Quokka rails hold the panels.")]))
    (docs / "notes.text").write_text("Wiring\n\nWombat cables join the strings.\n")
    (docs / "meter.log").write_text("Meter\n\nThe numbat meter counts exported kilowatt hours.\n")
    (docs / "photo.png").write_bytes(b"\x89PNG\r\n")
    with caplog.at_level(logging.INFO, logger="engine.search.corpus_index"):
        result = cli_here(monkeypatch, tmp_path, "index", str(docs))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("indexed 7 documents (1 skipped)"), result.stdout
    assert result.stderr.splitlines() == ["skipped photo.png: unsupported type (.png)"], result.stderr
    assert any("corpus_skip" in r.getMessage() and "photo.png" in r.getMessage()
               and "unsupported type (.png)" in r.getMessage() for r in caplog.records), caplog.text
    search = CorpusSearch(corpus_index_for(tmp_path / "data", docs))
    for word, name in (("Zephyr", "prices.csv"), ("Quokka", "guide.docx"), ("Wombat", "notes.text"),
                       ("numbat", "meter.log")):
        found = asyncio.run(search.search(word, max_results=5))
        assert [r.extra["path"].rsplit("/", 1)[-1] for r in found] == [name], (word, found)
    found = asyncio.run(search.search("fourteen", max_results=5))
    assert "Price: fourteen euros" in found[0].content, found  # the rows as `ask --file` reads them
