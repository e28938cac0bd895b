"""A turn speaks its thread's language: the status message, its Cancel button, the notes and the
upload comment follow the research question's language (German here), a resume's too."""

from __future__ import annotations

import asyncio

from engine.progress import Progress
from jobs.phrases import WORDS
from jobs.run import run_job
from jobs.store import get_store
from jobs.threads import set_thread
from tests.fakes.recording_port import read_events
from tests.jobs.run_helpers import _async_script, _wait_for_update
from tests.jobs.test_run_states import THREAD, _question, _queue, _report, _script

QUESTION = "Wie funktionieren Wärmepumpen in sehr kalten Wintern?"


def _events(log, op: str) -> list[dict]:
    return [e for e in read_events(log, THREAD) if e["op"] == op]


def test_a_german_question_gets_a_german_status_message_button_and_upload(turn_env, monkeypatch):
    settings, log = turn_env
    report = _report(settings.data_dir / "run1", pdf=False)

    async def with_progress(kw):
        kw["on_progress"](Progress(phase="research", topics_started=1))
        await asyncio.to_thread(_wait_for_update, log, "Recherche läuft")
        return report(kw)

    _async_script(monkeypatch, with_progress)
    assert run_job(_queue(settings, log, text=QUESTION), settings=settings, last_attempt=True)["status"] == "done"
    status = _events(log, "post")[0]
    assert status["text"] == "Die Recherche beginnt…"
    assert status["buttons"] == [{"action": "cancel", "label": "Abbrechen", "value": ""}]
    texts = [e["text"] for e in _events(log, "update")]
    assert any(t.startswith("Recherche läuft\nSuche nach Quellen · Themen 0/1 fertig · 0 Quellen gefunden")
               for t in texts), texts
    assert texts[-1] == "Recherche abgeschlossen. Der Bericht steht unten."
    upload = _events(log, "upload")[0]
    assert upload["comment"] == ("Das PDF konnte nicht erstellt werden (LaTeX stopped); hier ist "
                                 "der Markdown-Bericht.")


def test_a_resume_speaks_the_language_of_the_threads_question(turn_env, monkeypatch):
    settings, log = turn_env
    _script(monkeypatch, _question)
    assert run_job(_queue(settings, log, text=QUESTION), settings=settings, last_attempt=True)["status"] == "clarify"
    assert _events(log, "update")[-1]["text"] == WORDS("clarify_status", "de")
    clarify_status = _events(log, "post")[0]["id"]
    set_thread(get_store(settings), THREAD, clarify_status_id=clarify_status)
    _script(monkeypatch, _report(settings.data_dir / "run2"))
    # the answer is a single word: the thread's question, not the answer, sets the language
    resume = _queue(settings, log, turn_id="t2", kind="resume", text="Heizung")
    set_thread(get_store(settings), THREAD, question=QUESTION)
    assert run_job(resume, settings=settings, last_attempt=True)["status"] == "done"
    edits = {e["id"]: e["text"] for e in _events(log, "update")}
    assert edits[clarify_status] == "Beantwortet, danke: Die Recherche geht unten weiter."
    assert _events(log, "upload")[-1]["comment"] == "Der vollständige Bericht."
