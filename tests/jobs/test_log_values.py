"""Log values that hold spaces or quotes (error messages) stay one quoted logfmt value, redacted."""

from __future__ import annotations

import logging
import subprocess
from types import SimpleNamespace

import pytest
import requests

import engine.models
import engine.render.docx
import engine.render.pdf
from bots import chat_common
from bots.teams import adapter
from engine.compat import ServerSupport
from engine.files import parse
from engine.graph.research import about_the_question
from engine.redact import quoted
from engine.render import outputs
from jobs import audit, audit_pending, endings, worker
from jobs.end_steps import EndSteps
from tests.jobs.conftest import make_settings
from tests.logfmt import logfmt

PASSWORD = "pw-Zq8vN2tL0x"
TOKEN = "sk-live4Zq8vN2tL0xQ"
MESSAGE = f'disk "data" is full \\ see postgresql://app:{PASSWORD}@db.example/app\nsecond  line, key {TOKEN}'
SHOWN = 'disk "data" is full \\ see postgresql://app:[redacted]@db.example/app second line, key [redacted]'


def _lines(caplog: pytest.LogCaptureFixture, event: str) -> list[dict[str, str]]:
    lines = [r.getMessage() for r in caplog.records if f"event={event}" in r.getMessage()]
    assert not [line for line in lines if PASSWORD in line or TOKEN in line]
    return [logfmt(line) for line in lines]


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


def test_model_server_and_startup_lines_quote_their_reasons(monkeypatch, caplog):
    monkeypatch.setattr(worker, "delivery_problems", lambda *_a, **_k: {"slack": MESSAGE, "terminal": None})
    monkeypatch.setattr(engine.models, "check_model_server", lambda _settings: MESSAGE)
    monkeypatch.setattr(engine.models, "model_server_problem", lambda _err, _settings: MESSAGE)
    assert logfmt(worker.announce_surfaces(None)) == {
        "event": "worker_surfaces", "delivers": "terminal", "cannot": "slack",
        "why": f"slack: {SHOWN}; their turns wait in the queue for a worker that has these settings"}
    assert logfmt(worker.announce_model(None)) == {"event": "worker_model_refused", "why": SHOWN}
    assert logfmt("event=turn_retry" + endings._why(OSError(), None)) == {"event": "turn_retry", "why": SHOWN}
    assert [line["event"] for line in _lines(caplog, "worker_")] == ["worker_surfaces", "worker_model_refused"]


def test_an_unanswered_credentials_check_quotes_its_reason(monkeypatch, caplog):
    class Factory:
        async def create(self, *_args):
            raise requests.ConnectionError("refused", request=SimpleNamespace(url=MESSAGE))

    auth = SimpleNamespace(create_connector_factory=lambda _identity: Factory())
    monkeypatch.setattr(adapter, "auth_config", lambda _s: SimpleNamespace(APP_ID="app-1", APP_TYPE="MultiTenant"))
    monkeypatch.setattr(adapter, "make_adapter", lambda _s: SimpleNamespace(bot_framework_authentication=auth))
    assert adapter.credentials_problem(None) is None
    [line] = _lines(caplog, "teams_credentials_unchecked")
    assert line["why"] == (f"Microsoft Entra ID could not be reached ({SHOWN}: ConnectionError); "
                           "the replies' token requests ask it again")


def test_model_replies_and_fallbacks_log_their_text_as_one_value(caplog):
    support = ServerSupport()
    support.refuse_tools(("http://llm", "m1"), ValueError(MESSAGE))
    assert support.refuse_structured(("http://llm", "m1"), "json_schema", ValueError(MESSAGE))
    assert about_the_question(MESSAGE, {"question": "zebra habitats", "messages": []}) == "zebra habitats"
    assert _lines(caplog, "tool_calls_fallback")[0]["error"] == SHOWN
    assert _lines(caplog, "structured_output_fallback")[0]["error"] == SHOWN
    assert _lines(caplog, "brief_off_question") == [{"event": "brief_off_question", "brief": SHOWN}]


def test_report_builds_and_file_readers_log_their_errors_as_one_value(tmp_path, monkeypatch, caplog):
    caplog.set_level(logging.INFO)
    monkeypatch.setattr(engine.render.docx, "render_docx", _raise(RuntimeError(MESSAGE)))
    assert outputs._docx(None, tmp_path / "report.docx", None) == {"docx_error": " ".join(MESSAGE.split())}
    built = SimpleNamespace(pdf=None, error=MESSAGE, log_tail="", warnings=[])
    monkeypatch.setattr(engine.render.pdf, "build_pdf", lambda *_a, **_k: built)
    outputs._pdf("", tmp_path, 1, None)
    built = SimpleNamespace(pdf=tmp_path / "report.pdf", error=None, log_tail="", warnings=[f"Missing character {MESSAGE}"])
    outputs._pdf("", tmp_path, 1, None)
    monkeypatch.setattr(subprocess, "run", lambda args, **_k: subprocess.CompletedProcess(args, 1, b"", MESSAGE.encode()))
    assert parse(tmp_path / "a.pdf", "a.pdf", make_settings(tmp_path / "data"))["ok"] is False
    assert _lines(caplog, "docx_failed") == [{"event": "docx_failed", "error": SHOWN}]
    assert _lines(caplog, "pdf_failed") == [{"event": "pdf_failed", "error": SHOWN}]
    assert _lines(caplog, "pdf_warnings") == [{"event": "pdf_warnings", "count": "1", "first": f"Missing character {SHOWN}"}]
    assert _lines(caplog, "file_parse_failed") == [{"event": "file_parse_failed", "code": "1", "stderr": SHOWN}]


def _raise(err: Exception):
    def fail(*_args, **_kwargs):
        raise err
    return fail
