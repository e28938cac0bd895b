"""The offline model through the real graph, and runs that span processes (pause/resume, SIGKILL)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from engine.runner import run_turn, thread_status
from engine.search.corpus_index import index_directory
from tests.waiting import LONG, run, wait_exit, wait_for

ROOT = Path(__file__).resolve().parents[2]

DOCS = {
    "pumps.md": "# Heat pumps\n\nA heat pump moves heat from outside air into the house using a refrigerant cycle. "
    "Air source heat pumps are the cheapest heat pumps to install in most European homes. "
    "Ground source heat pumps cost more to install but run more efficiently in cold winters.\n",
    "prices.txt": "Heat pump prices in Europe\n\nIn 2025 an air source heat pump cost between 8,000 and 14,000 euros "
    "installed. Subsidies in Germany cover up to 70 percent of heat pump installation costs for homes.\n",
    "noise.html": "<html><head><title>Heat pump noise</title><style>p{}</style></head><body><p>Outdoor heat pump "
    "units make noise of around 40 to 60 decibels at one metre. Local rules in some countries limit heat pump "
    "noise at night.</p><script>var x=1;</script></body></html>",
    "waermepumpe.md": "# Wärmepumpen in Deutschland\n\nEine Wärmepumpe nutzt die Wärme der Umgebungsluft zum Heizen. "
    "Die Förderung in Deutschland deckt bis zu 70 Prozent der Kosten einer Wärmepumpe. "
    "Luft-Wasser-Wärmepumpen sind in Deutschland am günstigsten in der Anschaffung.\n",
}


def write_corpus(folder: Path, documents: dict[str, str] | None = None) -> Path:
    """``folder`` with each of ``documents`` (file name -> UTF-8 text; :data:`DOCS` by default) in it."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in (DOCS if documents is None else documents).items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def corpus_settings(offline_settings, tmp_path, documents: dict[str, str] | None = None, **kw):
    """Offline settings searching ``tmp_path / "docs"`` holding ``documents`` (:func:`write_corpus`),
    indexed; ``kw`` are further settings."""
    settings = offline_settings(search="corpus", corpus_dir=write_corpus(tmp_path / "docs", documents), **kw)
    index_directory(settings.corpus_dir, settings.corpus_index_path)
    return settings


def test_offline_corpus_run_writes_every_artifact(offline_settings, tmp_path):
    settings = corpus_settings(offline_settings, tmp_path, allow_clarification=False)
    out = asyncio.run(run_turn("console:off1", question="What do heat pumps cost and how much noise do they make?",
                               settings=settings))
    arts = out.artifacts
    report = arts.report_md.read_text()
    assert "offline extractive mode without a language model" in report.split("\n## ")[0]
    cited = re.findall(r"^\d+\. (.+)$", report.split("\n## Sources\n")[1], re.MULTILINE)
    assert len(cited) >= 3
    for entry in cited:  # each document named by its title and its path in the folder, as text
        assert re.fullmatch(r"(?:.+ \()?(" + "|".join(map(re.escape, DOCS)) + r")\)?", entry), entry
    assert "Heat pump noise (noise.html)" in cited
    assert arts.review_md.exists() and "## Round 2" in arts.review_md.read_text()
    assert arts.pdf is not None and arts.pdf.read_bytes().startswith(b"%PDF")
    assert arts.report_tex.exists()
    text = " ".join(subprocess.run(["pdftotext", "-layout", str(arts.pdf), "-"], capture_output=True, text=True,
                                   check=True).stdout.split())
    assert "What do heat pumps cost and how much noise do they make?" in text
    assert "Executive summary" in text and "Review" in text and "Round 2" in text
    for entry in cited:
        assert entry in text
    found = json.loads(arts.sources_json.read_text())
    assert {s["url"] for s in found["found"]} <= set(DOCS) and len(found["cited"]) == len(cited)
    from tests.engine.render.fidelity import docx_text

    shown = {"report.md": report, "review.md": arts.review_md.read_text(), "sources.json": arts.sources_json.read_text(),
             "report.tex": arts.report_tex.read_text(), "report.pdf": text, "report.docx": docx_text(arts.docx),
             "summary": out.summary}
    for name, content in shown.items():  # no server path, no dead file:// link, anywhere a reader looks
        assert str(tmp_path) not in content and "file:" not in content, name
    usage = json.loads(arts.usage_json.read_text())
    assert usage["by_role"]["research"]["models"] == ["offline-extractive"]


def test_offline_extracts_each_sentence_once():
    from engine.offline import distinct

    merged = "asyncio provides a set of high-level APIs to: asyncio is a library to write concurrent code."
    alone = "asyncio is a library to write concurrent code."
    other = "Tasks are used to schedule coroutines concurrently."
    assert distinct([merged, alone, other, other]) == [merged, other]
    assert distinct([alone, merged, other]) == [alone, other]


def test_offline_quotes_prose_not_code_or_list_intros():
    from engine.offline import _good_sentence

    assert _good_sentence("Task.cancel() does not guarantee that the Task will be cancelled, as it may be suppressed.")
    assert _good_sentence("„Wärmepumpen sind im Betrieb günstiger als Gasheizungen“, sagt die Studie.")
    assert not _good_sentence("await asyncio.gather(*tasks, return_exceptions=True, loop=the_event_loop)")
    assert not _good_sentence("To mitigate this issue, asyncio handles signal.SIGINT as follows:")


def test_offline_vague_question_asks_first(offline_settings, tmp_path):
    settings = corpus_settings(offline_settings, tmp_path)
    out = asyncio.run(run_turn("console:vague", question="pumps", settings=settings))
    assert out.status == "clarify" and "pumps" in out.question
    assert asyncio.run(thread_status("console:vague", settings=settings)) == "paused"
    roles = {json.loads(line)["role"] for f in settings.artifacts_dir.rglob("usage.jsonl") for line in f.read_text().splitlines()}
    assert roles == {"research"}  # only the clarify decision ran: no research before the answer


def test_offline_judges_vagueness_in_scripts_without_spaces(offline_settings):
    settings = offline_settings(max_review_iterations=0)
    full = asyncio.run(run_turn("console:ja", question="日本の少子化の主な原因と、政府の対策の効果について教えてください。",
                                settings=settings))
    assert full.status == "done"
    assert asyncio.run(run_turn("console:ja2", question="少子化", settings=settings)).status == "clarify"


def test_offline_german_question_gets_a_german_report(offline_settings, tmp_path):
    settings = corpus_settings(offline_settings, tmp_path, allow_clarification=False, max_review_iterations=1)
    out = asyncio.run(run_turn("console:de", question="Welche Wärmepumpen sind in Deutschland am günstigsten?",
                               settings=settings))
    report = out.artifacts.report_md.read_text()
    assert "## Zusammenfassung" in report and "## Quellen" in report
    assert "Offline-Extraktionsmodus" in report
    assert "## Offene Einwände" in report and "Prüfrunde" in report
    assert re.search(r"zitiert (?:die eine gefundene Quelle|\d+ der \d+ gefundenen Quellen|alle \d+ gefundenen)", report)
    assert not re.search(r"\b1 (?:der )?(?:gefundenen )?Quellen|alle 1 ", report), report
    assert "Speaking as" not in report and "claim(s)" not in report and "Reader:" not in report


CHILD = textwrap.dedent('''
    import asyncio, json, sys
    from engine.settings import load_settings
    from engine.runner import run_turn
    settings = load_settings(**json.loads(sys.argv[1]))
    out = asyncio.run(run_turn(sys.argv[2], question=sys.argv[3], settings=settings))
    print(json.dumps({"status": out.status, "question": out.question}))
''')


def child_env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPRESEARCH_")}
    env["PYTHONPATH"] = str(ROOT)
    return env


def test_clarification_in_one_process_resumed_in_another(offline_settings, tmp_path, store_url):
    """Paused on its question in one process, answered in another; with PostgreSQL the second
    process has a data dir of its own (another host), so the checkpoint can only come from there."""
    settings = corpus_settings(offline_settings, tmp_path, database_url=store_url)
    args = json.dumps({"data_dir": str(settings.data_dir), "llm": "offline", "search": "corpus",
                       "corpus_dir": str(settings.corpus_dir), "max_review_iterations": 0, "database_url": store_url})
    proc = run([sys.executable, "-c", CHILD, args, "console:xproc", "pumps"], capture_output=True,
               text=True, env=child_env())
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1])["status"] == "clarify"
    host_b = tmp_path / ("data" if store_url is None else "host-b")
    s2 = offline_settings(search="corpus", corpus_dir=settings.corpus_dir, max_review_iterations=0,
                          database_url=store_url, data_dir=host_b)
    if store_url is not None:  # each host indexes the same read-only folder
        assert not (host_b / "checkpoints.sqlite").exists() and not (settings.data_dir / "checkpoints.sqlite").exists()
        index_directory(s2.corpus_dir, s2.corpus_index_path)
    assert asyncio.run(thread_status("console:xproc", settings=s2)) == "paused"
    done = asyncio.run(run_turn("console:xproc", answer="air source heat pumps prices in Europe", settings=s2))
    assert done.status == "done" and done.artifacts.report_md.exists()
    assert done.artifacts.report_md.is_relative_to(host_b)


KILLED = textwrap.dedent('''
    import asyncio, json, sys
    from engine.settings import load_settings
    from engine.runner import run_turn
    settings = load_settings(**json.loads(sys.argv[1]))
    asyncio.run(run_turn(sys.argv[2], question=sys.argv[3], settings=settings))
''')


UNITS_SAVED = ("SELECT COUNT(DISTINCT task_id) FROM {writes} WHERE thread_id = {p} AND channel = 'units_done'"
               " AND checkpoint_ns LIKE {p} AND checkpoint_ns NOT LIKE {p} AND task_path LIKE {p}")
UNITS_ARGS = ("research_supervisor:%", "%|%", "~__pregel_push%")


def units_saved(settings, thread_id: str) -> int:
    """How many research units of ``thread_id`` have their results in the checkpoint store (as pending
    writes of the supervisor's ``research_unit`` tasks, saved as each unit ends)."""
    import sqlite3

    if settings.database_url is not None:
        import psycopg

        with psycopg.connect(settings.database_url.get_secret_value()) as conn:
            try:
                return conn.execute(UNITS_SAVED.format(writes="checkpoint_writes", p="%s"),
                                    (thread_id, *UNITS_ARGS)).fetchone()[0]
            except (psycopg.errors.UndefinedTable, psycopg.errors.UndefinedColumn):
                return 0  # the checkpointer's setup() is still creating or migrating its tables
    if not settings.checkpoint_path.exists():
        return 0
    conn = sqlite3.connect(settings.checkpoint_path, timeout=LONG)
    try:
        return conn.execute(UNITS_SAVED.format(writes="writes", p="?"), (thread_id, *UNITS_ARGS)).fetchone()[0]
    except sqlite3.OperationalError:  # the tables do not exist yet
        return 0
    finally:
        conn.close()


def test_sigkill_mid_research_resumes_without_redoing_finished_units(online_settings, script, fake_openai, store_url,
                                                                     tmp_path):
    script.topics = ["fast one", "fast two", "slow three"]
    script.slow_topics = {"slow three": LONG}  # answered only after the kill
    settings = online_settings(max_review_iterations=0, database_url=store_url)
    args = json.dumps({"data_dir": str(settings.data_dir), "llm": "openai", "search": "tavily",
                       "openai_api_key": "test-openai-key", "openai_base_url": settings.openai_base_url,
                       "tavily_api_key": "tvly-test", "tavily_url": settings.tavily_url, "model_max_retries": 0,
                       "database_url": store_url})
    proc = subprocess.Popen([sys.executable, "-c", KILLED, args, "t:kill", "three topics please"],
                            env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: units_saved(settings, "t:kill") >= 2, what="two finished units in the checkpoint file",
                 diag=lambda: f"compress calls: {len(script.calls('compress_research'))}")
        assert len(script.calls("compress_research")) == 2
    finally:
        proc.send_signal(signal.SIGKILL)
        wait_exit(proc, what="the killed research to exit")
    if store_url is not None:  # with PostgreSQL, another host with an empty data dir takes over
        settings = online_settings(max_review_iterations=0, database_url=store_url, data_dir=tmp_path / "host-b")
    assert asyncio.run(thread_status("t:kill", settings=settings)) == "interrupted"
    script.slow_topics = {}
    out = asyncio.run(run_turn("t:kill", resume_only=True, settings=settings))
    assert out.status == "done"
    compressed = [re.search(r"on the topic: (.*)", t).group(1) for t in script.calls("compress_research")]
    assert sorted(compressed) == ["fast one", "fast two", "slow three"]  # finished units not redone
    usage = json.loads(out.artifacts.usage_json.read_text())
    assert len(usage["turns"]) == 2  # the killed turn and the resumed one (on either host)
    assert out.artifacts.usage_json.is_relative_to(settings.data_dir)


def test_sigkill_during_review_resumes_to_a_report(online_settings, script, fake_openai):
    script.topics = ["only topic"]
    settings = online_settings(max_review_iterations=2)
    script.role_latency = {"critique": LONG}  # answered only after the kill
    args = json.dumps({"data_dir": str(settings.data_dir), "llm": "openai", "search": "tavily",
                       "openai_api_key": "test-openai-key", "openai_base_url": settings.openai_base_url,
                       "tavily_api_key": "tvly-test", "tavily_url": settings.tavily_url, "model_max_retries": 0,
                       "max_review_iterations": 2})
    proc = subprocess.Popen([sys.executable, "-c", KILLED, args, "t:killrev", "one topic please"],
                            env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: script.calls("critique"), what="the review to ask for a critique")
    finally:
        proc.send_signal(signal.SIGKILL)
        wait_exit(proc, what="the killed research to exit")
    assert asyncio.run(thread_status("t:killrev", settings=settings)) == "interrupted"
    script.role_latency = {}
    out = asyncio.run(run_turn("t:killrev", resume_only=True, settings=settings))
    assert out.status == "done" and out.artifacts.report_md.exists()
    assert len(script.calls("solution")) >= 3 and len(script.calls("final_report")) == 1
