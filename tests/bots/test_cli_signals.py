"""`deepresearch index` and `deepresearch render` stopped by SIGTERM (a supervisor's stop, `kill`) as by
Ctrl-C: one line, exit 143 (130 for Ctrl-C), and the disk as it was before the command."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from engine.settings import corpus_index_for
from tests.bots.console_helpers import RUN_TIMEOUT, ask_env
from tests.engine.render.test_pdf_processes import kill_all, wait_until, working_in

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

EXIT = {signal.SIGINT: 130, signal.SIGTERM: 143}


def _cli(tmp_path, *args: str) -> subprocess.Popen:
    (tmp_path / "tmp").mkdir(exist_ok=True)
    env = ask_env(tmp_path, {"TMPDIR": str(tmp_path / "tmp"), "DEEPRESEARCH_PDF_TIMEOUT": "900"})
    return subprocess.Popen([sys.executable, "-m", "bots.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)


def _stopped(proc: subprocess.Popen, sig: int) -> str:
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=RUN_TIMEOUT)
    assert proc.returncode == EXIT[sig], err
    assert "Traceback" not in err, err
    assert [ln for ln in err.splitlines() if ln.strip()] == ["deepresearch: interrupted."], err
    return err


def _big_folder(tmp_path):
    """``(folder, its index path)``: 3,000 Markdown files, a few seconds of indexing to stop half-way."""
    docs = tmp_path / "docs"
    docs.mkdir()
    text = "Heat pumps move heat from outside air into the house with a refrigerant cycle. " * 60
    for i in range(3000):
        (docs / f"d{i:04d}.md").write_text(f"# Document {i}\n\n{text}\n")
    return docs, corpus_index_for(tmp_path / "data", docs)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_index_stopped_half_way_leaves_no_index_and_indexes_in_full_when_run_again(tmp_path, sig):
    docs, index = _big_folder(tmp_path)
    proc = _cli(tmp_path, "index", str(docs))
    try:
        wait_until(index.exists, "the index file to be created")
        _stopped(proc, sig)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # a half-built index would be taken for a whole one (or "not indexed yet" for a folder that is)
    assert not list(index.parent.glob(index.name + "*")), list(index.parent.iterdir())
    again = _cli(tmp_path, "index", str(docs))
    out, err = again.communicate(timeout=RUN_TIMEOUT)
    assert again.returncode == 0, err
    assert out.startswith("indexed 3000 documents (0 skipped)"), out


REPORT = """# Heat pumps in cold climates

Heat pumps keep working below freezing [1].

## Sources

1. [Cold-climate heat pumps](https://example.org/heat-pumps)
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_render_stopped_during_the_pdf_build_leaves_no_tex_process_and_the_report_as_it_was(tmp_path, sig):
    (tmp_path / "report.md").write_text(REPORT, encoding="utf-8")
    proc = _cli(tmp_path, "render", str(tmp_path / "report.md"), "--out", str(tmp_path / "out"))
    try:
        wait_until(lambda: "xelatex" in working_in(tmp_path / "tmp").values(), "the PDF build to start")
        _stopped(proc, sig)
        assert not working_in(tmp_path / "tmp")
        assert not list((tmp_path / "tmp").glob("report-tex-*"))
        assert not (tmp_path / "out" / "report.pdf").exists()
        assert not list((tmp_path / "out").glob("*-error.log"))  # stopped, not failed
        assert (tmp_path / "report.md").read_text(encoding="utf-8") == REPORT
    finally:
        kill_all(proc, tmp_path / "tmp")


def test_a_first_index_killed_half_way_is_not_taken_for_a_whole_one_and_the_next_run_completes_it(tmp_path):
    """SIGKILL (or a second signal during the clean-up) leaves the documents committed so far: that
    file must not pass for the folder's index, or searches would quietly miss the rest."""
    import sqlite3

    from engine.search import check_search
    from engine.settings import SettingsError, load_settings

    docs, index = _big_folder(tmp_path)

    def committed() -> int:
        try:
            with sqlite3.connect(f"{index.as_uri()}?mode=ro", uri=True) as conn:
                return conn.execute("SELECT count(*) FROM documents").fetchone()[0]
        except sqlite3.Error:
            return 0

    proc = _cli(tmp_path, "index", str(docs))
    try:
        wait_until(lambda: committed() >= 64, "the first documents to be committed")
        proc.kill()
        proc.wait()
    finally:
        kill_all(proc, tmp_path / "tmp")
    assert 0 < committed() < 3000
    settings = load_settings(data_dir=tmp_path / "data", search="corpus", corpus_dir=docs)
    with pytest.raises(SettingsError, match="is not indexed yet"):
        check_search(settings)
    again = _cli(tmp_path, "index", str(docs))
    out, err = again.communicate(timeout=RUN_TIMEOUT)
    assert again.returncode == 0 and out.startswith("indexed 3000 documents (0 skipped)"), err
    check_search(settings)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_ask_stopped_while_building_the_files_leaves_no_failure_log(tmp_path, sig):
    """Ctrl-C during "Building the files" left pdf-error.log ("LaTeX build cancelled") in the run's
    folder, which reads as a failed PDF; a --resume then removed it. Stopped is not failed: none is
    written, and the resumed run builds every file."""
    import re

    from tests.bots.console_helpers import ask_cmd

    (tmp_path / "tmp").mkdir()
    env = ask_env(tmp_path, {"TMPDIR": str(tmp_path / "tmp"), "DEEPRESEARCH_PDF_TIMEOUT": "900"})
    proc = subprocess.Popen(ask_cmd("--offline", "--no-clarify", "What is retrieval-augmented generation?"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        wait_until(lambda: "xelatex" in working_in(tmp_path / "tmp").values(), "the PDF build to start")
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=RUN_TIMEOUT)
        assert proc.returncode == EXIT[sig], err
        assert not working_in(tmp_path / "tmp")
    finally:
        kill_all(proc, tmp_path / "tmp")
    artifacts = tmp_path / "data" / "artifacts"
    assert not list(artifacts.rglob("*-error.log")), err
    thread = re.search(r"Continue with: deepresearch ask --resume (console:\S+)", err).group(1)
    resumed = subprocess.run(ask_cmd("--resume", thread), capture_output=True, text=True, env=env, cwd=tmp_path,
                             timeout=RUN_TIMEOUT)
    assert resumed.returncode == 0, resumed.stderr
    assert len(list(artifacts.rglob("report.pdf"))) == 1 and not list(artifacts.rglob("*-error.log"))
