"""`deepresearch ask` and `index` as a new user meets them: one index per corpus folder, Ctrl-C
anywhere, bad arguments and unusable data folders, each ending with one line and the right code."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.bots.console_helpers import RUN_TIMEOUT, ask, ask_env, no_traceback, report_of, write_docs

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
