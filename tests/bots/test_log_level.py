"""LOG_LEVEL: any value, known to Python's logging or not, sets a level and never stops a command."""

from __future__ import annotations

import logging

import pytest

from bots.console_log import live_log
from bots.logs import configure_logging
from tests.bots.console_helpers import ask, write_docs


@pytest.mark.parametrize(("value", "expected"), [("", logging.WARNING), ("   ", logging.WARNING),
                                                 ("verbose", logging.WARNING), ("info", logging.INFO),
                                                 (" DEBUG ", logging.DEBUG)])
def test_any_log_level_value_configures_a_level(monkeypatch, value, expected):
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    monkeypatch.setenv("LOG_LEVEL", value)
    try:
        configure_logging()
        assert root.level == expected
    finally:
        root.handlers[:], _ = saved
        root.setLevel(saved[1])


@pytest.mark.parametrize(("dotenv", "env", "expected"), [
    ("LOG_LEVEL=DEBUG\n", {}, logging.DEBUG), ("export LOG_LEVEL='info'\n", {}, logging.INFO),
    ("LOG_LEVEL=DEBUG\n", {"LOG_LEVEL": "ERROR"}, logging.ERROR), ("LOG_LEVEL=DEBUG\n", {"LOG_LEVEL": " "}, logging.DEBUG),
    ("LOG_LEVEL=\n", {}, logging.WARNING), ("OTHER=1\n", {}, logging.WARNING),
])
def test_log_level_is_read_from_dotenv_as_every_setting_is(monkeypatch, tmp_path, dotenv, env, expected):
    """``.env`` in the working folder sets it as the other settings; the environment wins, and a blank
    value in it is as unset (:class:`engine.settings.BlankIsUnset`)."""
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text(dotenv)
    monkeypatch.delenv("LOG_LEVEL", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    try:
        configure_logging()
        assert root.level == expected
        assert live_log(False) is (expected != logging.WARNING)
    finally:
        root.handlers[:], _ = saved
        root.setLevel(saved[1])


@pytest.mark.parametrize("kind", ["folder", "not UTF-8"])
def test_a_dotenv_that_cannot_be_read_leaves_the_level_to_the_command(monkeypatch, tmp_path, kind):
    """Its command's settings say why in one line; the log set-up before it neither stops nor waits."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LOG_LEVEL", raising=False)
    if kind == "folder":
        (tmp_path / ".env").mkdir()
    else:
        (tmp_path / ".env").write_bytes(b"LOG_LEVEL=INFO\nX=\xff\n")
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        configure_logging()
        assert root.level == logging.WARNING
    finally:
        root.handlers[:], _ = saved
        root.setLevel(saved[1])


def test_a_command_logs_at_the_level_dotenv_sets(tmp_path):
    """``deepresearch ask`` with ``LOG_LEVEL=DEBUG`` in ``.env`` shows its INFO and DEBUG lines as they
    happen, as with ``LOG_LEVEL=DEBUG`` in the environment."""
    docs = write_docs(tmp_path / "docs")
    (tmp_path / ".env").write_text("LOG_LEVEL=DEBUG\n")
    out = ask(tmp_path, "--offline", "--no-clarify", "--corpus", str(docs), "How do home solar panels work?")
    assert out.returncode == 0, out.stderr
    assert "level=INFO" in out.stderr and "level=DEBUG" in out.stderr, out.stderr


@pytest.mark.parametrize(("value", "shown"), [("WARNING", False), ("INFO", False), ("DEBUG", True)])
def test_the_pools_reconnect_lines_are_shown_only_at_debug(monkeypatch, capsys, value, shown):
    """psycopg_pool logs each reconnect attempt while PostgreSQL is away at WARNING; the product says the
    outage once itself, so a terminal or bot log shows the pool's lines only with LOG_LEVEL=DEBUG."""
    root = logging.getLogger()
    pool_log = logging.getLogger("psycopg.pool")
    saved = root.handlers[:], root.level, pool_log.level
    monkeypatch.setenv("LOG_LEVEL", value)
    try:
        configure_logging()
        pool_log.warning("error connecting in 'deepresearch-sync': connection refused")
        logging.getLogger("jobs.delivery").warning("event=own_line")
    finally:
        root.handlers[:], _, _ = saved
        root.setLevel(saved[1])
        pool_log.setLevel(saved[2])
    err = capsys.readouterr().err
    assert "event=own_line" in err
    assert ("error connecting in 'deepresearch-sync'" in err) is shown
