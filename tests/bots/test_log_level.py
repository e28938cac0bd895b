"""LOG_LEVEL: any value, known to Python's logging or not, sets a level and never stops a command."""

from __future__ import annotations

import logging

import pytest

from bots.logs import configure_logging


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
