"""Where a thread's files live: a locked folder on one host, or PostgreSQL shared by hosts with empty data dirs."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import psycopg
import pytest

from engine.files import SharedFile, files_dir, ingest, load_manifest, thread_search
from engine.maintenance import prune_threads
from engine.runner import run_turn
from engine.search.corpus_layout import CorpusIndexError
from engine.settings import load_settings
from tests.shared_files import docx_bytes, pdf_bytes

ROOT = Path(__file__).resolve().parents[2]
LINK = "https://example.slack.com/archives/C1/p1700000000000100"
PAGES = ["The Zephyr turbine delivers fourteen megawatts of rated power at coastal sites.",
         "Maintenance costs of the Zephyr turbine fall by thirty percent thanks to its modular gearbox."]
#: A child process that reads files into a thread: argv[1] the thread, argv[2] JSON ``[[name, path, link], ...]``;
#: one thread per file, released together; each prints the names it read (one JSON list a line).
CHILD = """
import json, sys, threading
from pathlib import Path
from engine.files import SharedFile, ingest
from engine.settings import load_settings

settings = load_settings()
files = [SharedFile(name=n, link=l, path=Path(p), size=Path(p).stat().st_size) for n, p, l in json.loads(sys.argv[2])]
gate, said = threading.Barrier(len(files)), threading.Lock()

def one(item):
    gate.wait()
    names = [e.name for e in ingest(settings, sys.argv[1], [item])]
    with said:  # print writes the text and its newline apart: two threads' lines would interleave
        print(json.dumps(names), flush=True)

workers = [threading.Thread(target=one, args=(f,)) for f in files]
for w in workers: w.start()
for w in workers: w.join()
"""


def _env(data_dir: Path, database_url: str | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPRESEARCH_") and k != "DATABASE_URL"}
    env.update(DEEPRESEARCH_DATA_DIR=str(data_dir), DEEPRESEARCH_LLM="offline", DEEPRESEARCH_SEARCH="none",
               PYTHONPATH=str(ROOT))
    if database_url:
        env["DATABASE_URL"] = database_url
    return env


def _child(env: dict, thread: str, files: list[tuple[str, Path, str]]) -> subprocess.Popen:
    spec = json.dumps([[name, str(path), link] for name, path, link in files])
    return subprocess.Popen([sys.executable, "-c", CHILD, thread, spec], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / "in" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _notes(tmp_path: Path, count: int, prefix: str) -> list[tuple[str, Path, str]]:
    return [(f"{prefix}{n}.txt", _write(tmp_path, f"{prefix}{n}.txt", f"Note {prefix}{n} about turbines.\n".encode()),
             f"{LINK}?file={prefix}{n}") for n in range(count)]


def _finish(children: list[subprocess.Popen]) -> list[str]:
    """Wait for the children; the names of the files they read, all together."""
    names: list[str] = []
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err.decode()[-2000:]
        names += [name for line in out.decode().splitlines() for name in json.loads(line)]
    return names


def test_concurrent_adds_from_processes_and_threads_keep_every_entry(offline_settings, tmp_path):
    """Three processes of two threads each add one file apiece to one thread's files.json at once."""
    settings = offline_settings()
    thread = "slack:T1:C1:1.1"
    batches = [_notes(tmp_path, 2, f"p{p}-") for p in range(3)]
    read = _finish([_child(_env(settings.data_dir), thread, batch) for batch in batches])
    names = sorted(e.name for e in load_manifest(settings, thread))
    assert names == sorted(name for batch in batches for name, _, _ in batch) == sorted(read)
    assert all(e.status == "read" for e in load_manifest(settings, thread))
    assert not [p for p in files_dir(settings, thread).iterdir() if p.name.endswith(".tmp")]  # no temp file left
    search, _ = thread_search(settings, thread)
    assert len(asyncio.run(search.search("turbines", max_results=20))) == 6


def test_files_read_on_one_host_are_searched_and_cited_on_another_and_pruned(tmp_path, clean_env, pg_url):
    host_a = load_settings(data_dir=tmp_path / "a", database_url=pg_url, llm="offline", search="none")
    host_b = load_settings(data_dir=tmp_path / "b", database_url=pg_url, llm="offline", search="none",
                           allow_clarification=False, max_review_iterations=0)
    thread = "slack:T1:C1:1.1"
    pdf = _write(tmp_path, "zephyr.pdf", pdf_bytes(PAGES, "Zephyr"))
    docx = _write(tmp_path, "pricing.docx", docx_bytes([("Pricing", "The Zephyr turbine costs two million euros "
                                                                    "per unit before any subsidy is applied.")]))
    _finish([_child(_env(host_a.data_dir, pg_url), thread, [("zephyr.pdf", pdf, f"{LINK}?file=zephyr.pdf"),
                                                             ("pricing.docx", docx, f"{LINK}?file=pricing.docx")])])
    assert not (host_a.data_dir / "threadfiles").exists()  # nothing of the files on host A's disk
    assert sorted((e.name, e.status, e.pages) for e in load_manifest(host_b, thread)) == [
        ("pricing.docx", "read", 0), ("zephyr.pdf", "read", 2)]
    out = asyncio.run(run_turn(thread, question="What maintenance costs does the Zephyr turbine have, and what does one unit cost?",
                               settings=host_b))
    report = out.artifacts.report_md.read_text()
    assert "thirty percent" in report and "two million euros" in report, report
    found = sorted(host_b.artifacts_dir.glob("slack_T1_C1_1.1/*/sources.json"))
    cited = {s["title"]: s["url"] for s in json.loads(found[-1].read_text())["cited"]}
    assert cited["zephyr.pdf, page 2"] == f"{LINK}?file=zephyr.pdf#page=2", cited
    assert not (host_b.data_dir / "threadfiles").exists()
    gone = asyncio.run(prune_threads(host_a, older_than_days=-1))
    assert gone.threads == [thread]
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM deepresearch_thread_files").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM deepresearch_passages").fetchone()[0] == 0
    assert load_manifest(host_b, thread) == [] and thread_search(host_b, thread)[0] is None


def test_prune_removes_the_files_of_a_thread_that_never_reached_a_checkpoint(tmp_path, clean_env, pg_url):
    settings = load_settings(data_dir=tmp_path / "a", database_url=pg_url, llm="offline", search="none")
    ingest(settings, "console:early", [SharedFile(name="zephyr.pdf", link="file:///x/zephyr.pdf",
                                                  path=_write(tmp_path, "zephyr.pdf", pdf_bytes(PAGES)), size=900)])
    other = load_settings(data_dir=tmp_path / "b", database_url=pg_url, llm="offline", search="none")
    assert asyncio.run(prune_threads(other, older_than_days=1)).threads == []  # too young
    assert asyncio.run(prune_threads(other, older_than_days=-1)).threads == ["console_early"]
    assert load_manifest(settings, "console:early") == []


def test_concurrent_adds_on_two_hosts_keep_every_entry_and_index_each_file_once(tmp_path, clean_env, pg_url):
    """Two processes with their own data dirs add files to one thread in PostgreSQL at once, the
    same file among them: the advisory lock keeps every entry, and the shared file is read once."""
    thread = "teams:conv-1"
    shared = ("same.txt", _write(tmp_path, "same.txt", b"Both hosts saw this turbine note."), f"{LINK}?file=same")
    batches = [[*_notes(tmp_path, 2, f"h{h}-"), shared] for h in range(2)]
    read = _finish([_child(_env(tmp_path / f"host{h}", pg_url), thread, batch) for h, batch in enumerate(batches)])
    assert sorted(read) == sorted({name for batch in batches for name, _, _ in batch})  # same.txt read by one host
    settings = load_settings(data_dir=tmp_path / "reader", database_url=pg_url)
    names = [e.name for e in load_manifest(settings, thread)]
    assert sorted(names) == sorted({name for batch in batches for name, _, _ in batch}) and len(names) == 5
    with psycopg.connect(pg_url) as conn:
        docs = conn.execute("SELECT doc_key, count(*) FROM deepresearch_passages GROUP BY doc_key").fetchall()
    assert len(docs) == 5 and all(n == 1 for _, n in docs)


def test_postgres_search_stems_by_the_files_language_and_ranks_the_better_match_first(tmp_path, clean_env,
                                                                                       pg_url):
    settings = load_settings(data_dir=tmp_path, database_url=pg_url)
    files = [
        ("windkraft.md", b"# Windkraft\n\nDie neuen Turbinen liefern bei starkem Wind deutlich mehr Leistung als "
                         b"die alten Anlagen an der Nordseek\xc3\xbcste. Die Leistung steigt."),
        ("gearbox.md", b"# Gearbox maintenance\n\nGearbox maintenance schedules for offshore turbines: gearboxes "
                       b"are inspected every six months, and a gearbox is replaced after ten years."),
        ("other.md", b"# Cables\n\nSubsea cables connect the wind farm to the grid; a gearbox is not involved."),
        ("shop.md", "# 風力\n\n風力発電機の保守費用は三割下がった。".encode()),
    ]
    ingest(settings, "console:lang", [SharedFile(name=n, link=f"https://files.example/{n}", path=_write(tmp_path, n, d),
                                                 size=len(d)) for n, d in files])
    with psycopg.connect(pg_url) as conn:
        configs = dict(conn.execute("SELECT DISTINCT doc_key, config FROM deepresearch_passages").fetchall())
    assert configs["https://files.example/windkraft.md#section=1"] == "german"
    assert configs["https://files.example/gearbox.md#section=1"] == "english"
    search, _ = thread_search(settings, "console:lang")
    [german] = asyncio.run(search.search("Leistungen"))  # German stems: "Leistungen" finds "Leistung"
    assert german.url.startswith("https://files.example/windkraft.md") and "Nordseeküste" in german.raw_content
    ranked = asyncio.run(search.search("gearboxes maintenance"))
    assert [r.url.split("#")[0] for r in ranked][:2] == ["https://files.example/gearbox.md",
                                                         "https://files.example/other.md"]
    assert ranked[0].score > ranked[1].score and "inspected" in ranked[0].raw_content
    [cjk] = asyncio.run(search.search("保守費用"))  # no spaces to split: found by substring
    assert cjk.url.startswith("https://files.example/shop.md") and "三割" in cjk.raw_content
    assert asyncio.run(search.search("zeppelin")) == []


def test_two_events_of_one_thread_at_once_both_keep_their_files(offline_settings, tmp_path):
    """The race of two in-process events (threads) on files.json, without any child process."""
    settings = offline_settings()
    items = [SharedFile(name=n, link=f"{LINK}?file={n}", path=p, size=p.stat().st_size)
             for n, p, _ in _notes(tmp_path, 4, "t")]
    gate = threading.Barrier(len(items))

    def add(item: SharedFile) -> None:
        gate.wait()
        ingest(settings, "console:race", [item])

    workers = [threading.Thread(target=add, args=(item,)) for item in items]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(300)
    assert sorted(e.name for e in load_manifest(settings, "console:race")) == sorted(i.name for i in items)


def test_a_thread_folder_that_cannot_be_made_is_one_line(offline_settings, tmp_path):
    (tmp_path / "blocked").write_text("a file where the data dir should be")
    settings = offline_settings(data_dir=tmp_path / "blocked" / "data")
    item = SharedFile(name="n.txt", link=f"{LINK}?file=n", path=_write(tmp_path, "n.txt", b"turbines"), size=8)
    with pytest.raises(CorpusIndexError, match="a part of the path is a file, not a folder"):
        ingest(settings, "console:blocked", [item])
