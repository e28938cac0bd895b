"""Log values that hold spaces or quotes (error messages) stay one quoted logfmt value, redacted."""

from __future__ import annotations

import logging

import pytest

from bots import chat_common
from engine.redact import quoted
from jobs import audit, audit_pending
from jobs.end_steps import EndSteps
from tests.jobs.conftest import make_settings
from tests.logfmt import logfmt

PASSWORD = "pw-Zq8vN2tL0x"
MESSAGE = f'disk "data" is full \\ see postgresql://app:{PASSWORD}@db.example/app\nsecond line'
SHOWN = 'disk "data" is full \\ see postgresql://app:[redacted]@db.example/app second line'


def _lines(caplog: pytest.LogCaptureFixture, event: str) -> list[dict[str, str]]:
    return [logfmt(r.getMessage()) for r in caplog.records if f"event={event}" in r.getMessage()]


def test_a_quoted_value_is_read_back_whole_and_redacted():
    assert logfmt(f"event=x detail={quoted(MESSAGE)} n=1") == {"event": "x", "detail": SHOWN, "n": "1"}
    assert quoted("a b c", limit=3) == '"a b"' and quoted("") == '""'


def test_a_failed_end_step_logs_its_error_message_as_one_value(caplog):
    steps = EndSteps("t1")
    assert steps.run("audit", _raise(OSError(MESSAGE))) is None
    [line] = _lines(caplog, "turn_end_step_failed")
    assert line == {"event": "turn_end_step_failed", "step": "audit", "turn": "t1", "error": "OSError", "detail": SHOWN}


def test_an_audit_record_that_cannot_be_built_or_written_logs_its_error_message_as_one_value(tmp_path, monkeypatch,
                                                                                             caplog):
    settings = make_settings(tmp_path / "data")
    monkeypatch.setattr(audit, "_with_turn_facts", _raise(RuntimeError(MESSAGE)))
    assert audit.record_end(settings, "console:t", "done", turn_id="t1") is False
    monkeypatch.setattr(audit, "_store", _raise(OSError(MESSAGE)))
    monkeypatch.setattr(audit_pending, "_add_line", _raise(OSError("no room")))
    assert audit.write(settings, {"thread": "console:t", "status": "done"}) is False
    built, written = _lines(caplog, "audit_write_failed")
    assert built == {"event": "audit_write_failed", "error": "RuntimeError", "detail": SHOWN}
    assert written == {"event": "audit_write_failed", "error": "OSError", "detail": SHOWN, "kept": "none"}


def test_a_chat_step_failure_logs_its_error_message_as_one_value(caplog):
    log = logging.getLogger("tests.chat")
    ref = chat_common.log_failure(log, "hook", "reply", ValueError(MESSAGE))
    [line] = _lines(caplog, "hook_error")
    assert line == {"event": "hook_error", "step": "reply", "ref": ref, "error": "ValueError", "detail": SHOWN}


def _raise(err: Exception):
    def fail(*_args, **_kwargs):
        raise err
    return fail
