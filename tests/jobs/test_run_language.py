"""A turn speaks its thread's language: the status message, its Cancel button, the notes, the
upload comment, a refusal of the research and the shared files' line follow the research question's
language (German here; the status message in Italian, Dutch, Portuguese and Swedish too), a resume's too."""

from __future__ import annotations

import asyncio

import pytest

from engine.files import load_manifest
from engine.progress import Progress
from jobs import records
from jobs.phrases import WORDS
from jobs.run import run_job
from jobs.store import get_store
from jobs.threads import set_thread, thread_info
from jobs.turns import Turn
from tests.fakes.recording_port import SharingPort, read_events
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


def test_a_german_thread_whose_answer_the_research_refuses_is_told_so_in_german(turn_env):
    """The research itself (the offline graph, no script) asks back, then refuses an answer over the
    limit: the refusal reaches the thread in German, numbers grouped as German writes them."""
    settings, log = turn_env
    settings = settings.model_copy(update={"allow_clarification": True, "max_review_iterations": 0})
    vague = "Wärmepumpen für Altbauten?"
    assert run_job(_queue(settings, log, text=vague), settings=settings, last_attempt=True)["status"] == "clarify"
    answer = "Im Altbau mit Heizkörpern, Baujahr 1950. " * 250
    resume = _queue(settings, log, turn_id="t2", kind="resume", text=answer)
    set_thread(get_store(settings), THREAD, question=vague)  # the thread's question, as the rules keep it
    result = run_job(resume, settings=settings, last_attempt=True)
    english = "The answer is over 8,000 characters; shorten it."
    assert result == {"status": "rejected", "turn_id": "t2", "message": english}
    assert _events(log, "post")[-1]["text"] == "Die Antwort ist länger als 8.000 Zeichen; kürze sie."
    assert _events(log, "update")[-1]["text"] == WORDS("not_started_status", "de")
    assert thread_info(THREAD, settings=settings).error == english  # kept in English for the terminal and logs


def test_a_german_threads_status_line_says_in_german_which_shared_files_were_skipped(turn_env, monkeypatch):
    settings, log = turn_env
    _script(monkeypatch, _report(settings.data_dir / "run1"))
    material = {"files": {"notes.txt": "Fernwärme erreicht 40 % der Haushalte. " * 20,
                          "Schaltplan.dwg": "AC1032", "Angebot.pdf": "kein PDF"}}
    port = SharingPort.sharing(log, THREAD, material).reference()
    turn = Turn(turn_id="t1", thread_id=THREAD, kind="start", text=QUESTION, requester="U1", port=port)
    assert records.create(get_store(settings), turn, "embedded")
    set_thread(get_store(settings), THREAD, status="queued", turn_id="t1", requester="U1", question=QUESTION)
    assert run_job(turn.to_dict(), settings=settings, last_attempt=True)["status"] == "done"
    assert _events(log, "update")[0]["text"] == (
        "Die Recherche beginnt… (1 Datei gelesen, 2 übersprungen: nicht unterstützter Dateityp (.dwg), "
        "kein PDF (kein %PDF-Header))")
    assert sorted(e.reason for e in load_manifest(settings, THREAD)) == [
        "", "not a PDF (no %PDF header)", "unsupported type (.dwg)"]  # the list keeps English


@pytest.mark.parametrize(("question", "starting", "button", "progress", "done"), [
    ("Quali sono i vantaggi delle pompe di calore rispetto alle caldaie a gas?", "Avvio della ricerca…", "Annulla",
     "Ricerca in corso\nRicerca delle fonti · argomenti 0/1 completati · 0 fonti trovate",
     "Ricerca completata. Il rapporto è qui sotto."),
    ("Hoe werken warmtepompen in zeer koude winters?", "Het onderzoek begint…", "Annuleren",
     "Onderzoek loopt\nBronnen zoeken · onderwerpen 0/1 klaar · 0 bronnen gevonden",
     "Onderzoek afgerond. Het rapport staat hieronder."),
    ("Como funcionam as bombas de calor em invernos muito frios?", "Iniciando a pesquisa…", "Cancelar",
     "Pesquisa em andamento\nBuscando fontes · temas 0/1 concluídos · 0 fonte encontrada",
     "Pesquisa concluída. O relatório está abaixo."),
    ("Hur fungerar värmepumpar under mycket kalla vintrar?", "Undersökningen startar…", "Avbryt",
     "Undersökningen pågår\nSöker källor · ämnen 0/1 klara · 0 källor hittade",
     "Undersökningen är klar. Rapporten finns nedan."),
], ids=["it", "nl", "pt", "sv"])
def test_a_question_in_italian_dutch_portuguese_or_swedish_gets_its_status_message(turn_env, monkeypatch, question,
                                                                                    starting, button, progress, done):
    settings, log = turn_env
    report = _report(settings.data_dir / "run1", pdf=False)

    async def with_progress(kw):
        kw["on_progress"](Progress(phase="research", topics_started=1))
        await asyncio.to_thread(_wait_for_update, log, progress.split("\n")[0])
        return report(kw)

    _async_script(monkeypatch, with_progress)
    assert run_job(_queue(settings, log, text=question), settings=settings, last_attempt=True)["status"] == "done"
    status = _events(log, "post")[0]
    assert (status["text"], status["buttons"][0]["label"]) == (starting, button)
    texts = [e["text"] for e in _events(log, "update")]
    assert any(t.startswith(progress) for t in texts), texts
    assert texts[-1] == done
