"""``ask --queue`` on one host, the worker on another: the report's files are read through the
artifact store (PostgreSQL with ``DATABASE_URL``), never printed as the worker's paths."""

from __future__ import annotations

from pathlib import Path

from bots.console_queue import _QueuedRun
from engine.artifact_store import artifact_store
from engine.settings import Settings
from jobs.threads import ThreadInfo


def _host(tmp_path: Path, name: str, url: str | None) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path / name, llm="offline", search="none", database_url=url)


def _worker_run(settings: Settings) -> Path:
    """A finished run's folder on the worker's host, stored as a run is (``save_run``)."""
    folder = settings.artifacts_dir / "console_t1" / "20261202T090000-abcd"
    folder.mkdir(parents=True)
    (folder / "report.md").write_text("# Heat pumps\n\nThey move heat.\n", encoding="utf-8")
    (folder / "report.pdf").write_bytes(b"%PDF-1.5 test")
    artifact_store(settings).save_run(folder)
    return folder


def test_the_files_come_from_the_store_the_hosts_share(tmp_path, store_url, capsys):
    worker, here = _host(tmp_path, "worker", store_url), _host(tmp_path, "here", store_url)
    folder = _worker_run(worker)
    if store_url is None:  # SQLite: the files stay on the worker's disk, which this host cannot see
        for f in folder.iterdir():
            f.unlink()
    out = tmp_path / "out"
    run = _QueuedRun("console:t1", here)
    assert run.print_files(ThreadInfo(thread_id="console:t1", status="done", report_dir=folder, title="Heat pumps"),
                           out) == 0
    printed = capsys.readouterr()
    if store_url is None:  # nothing to show or copy here: one line says why, no traceback
        assert str(worker.data_dir) not in printed.out and "not stored where this host can read them" in printed.err
        assert not list(out.glob("*"))
    else:  # PostgreSQL: this host's copies, never the worker's paths
        assert str(worker.data_dir) not in printed.out and str(here.data_dir) in printed.out
        assert (out / "report.md").read_text(encoding="utf-8").startswith("# Heat pumps")
        assert (out / "report.pdf").read_bytes() == b"%PDF-1.5 test"
