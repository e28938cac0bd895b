"""The command words and repeated events, as every chat surface hands them to the core."""

from __future__ import annotations

import logging
import os

import pytest

import jobs
from bots.chat_turns import ChatTurns
from tests.texts import TRY_AGAIN

log = logging.getLogger("tests.chat_turns")


@pytest.fixture
def turns(monkeypatch, tmp_path) -> ChatTurns:
    """A surface's :class:`ChatTurns` over an embedded store in ``tmp_path``."""
    from engine.settings import load_settings

    for var in list(os.environ):
        if var.startswith("DEEPRESEARCH_") or var in ("REDIS_URL", "DATABASE_URL"):
            monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(tmp_path / "data"))
    return ChatTurns("hook", load_settings(), log, usage=lambda language: "**Deep Research** helps.",
                     start_hint=lambda language: "Just ask.", where=lambda thread_id, language: f" in {thread_id}")


@pytest.mark.parametrize("text", ["help", " HELP! ", "?", "", "\u200fhelp", "help\u200e", "\u200b\u2060help\ufeff"])
def test_help_words_answer_the_surfaces_usage(turns, text):
    reply = turns.command(text, "alice", ephemeral=True)
    assert (reply.text, reply.action, reply.ephemeral) == ("**Deep Research** helps.", "help", True)


def test_a_question_is_no_command(turns):
    assert turns.command("how do heat pumps work?", "alice", ephemeral=False) is None


@pytest.mark.parametrize("text", ["\u200fstatus", "status\u200e", "\u200b STATUS "])
def test_invisible_marks_around_status_are_not_part_of_the_word(turns, text):
    assert turns.command(text, "alice", ephemeral=False).action == "status"


@pytest.mark.parametrize("text", ["\u200fstop", "cancel\u200e", "\u200babort!", "\u2068stop\u2069"])
def test_invisible_marks_around_a_cancel_word_are_not_part_of_it(text):
    from jobs.conversation.message import is_cancel

    assert is_cancel(text)
    assert not is_cancel(text.replace("stop", "stop it").replace("cancel", "cancel it").replace("abort", "abort it"))


def test_status_with_nothing_open_gives_the_start_hint(turns):
    reply = turns.command("status", "alice", ephemeral=False)
    assert reply.action == "status" and not reply.ephemeral
    assert reply.text == "You have no research running or waiting for an answer. Just ask."


def test_status_when_the_registry_fails_is_one_line_with_a_reference(turns, monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise RuntimeError("registry password=hunter22 unreachable")

    monkeypatch.setattr(jobs, "threads_of", broken)
    reply = turns.command("status", "alice", ephemeral=True)
    (record,) = [r for r in caplog.records if "event=hook_error" in r.getMessage()]
    ref = record.getMessage().split("ref=")[1].split()[0]
    assert (reply.text, reply.action, reply.ephemeral) == (TRY_AGAIN.format(ref=ref), "status", True)
    assert "hunter22" not in reply.text


def test_an_event_seen_before_is_dropped_once_with_one_line(turns, caplog):
    caplog.set_level(logging.INFO, logger=log.name)
    assert turns.seen_before("msg", "C1", "1712.5") is False
    assert turns.seen_before("msg", "C1", "1712.5") is True
    assert turns.seen_before("msg", "C1", "1712.6") is False
    dropped = [r.getMessage() for r in caplog.records if "event=hook_event_dropped" in r.getMessage()]
    assert dropped == ["event=hook_event_dropped key=hook:msg:C1:1712.5 reason=seen_before"]


FAMILY = "\U0001f469\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"


@pytest.mark.parametrize(("question", "shown"), [
    # a long question ends after its last whole word (it was cut in the middle of one)
    ("word " * 39 + "thermodynamics of heat pumps", "word " * 38 + "word…"),
    # no space near the cut: never inside an emoji family or between a Thai letter and its vowel
    ("x" * 195 + FAMILY * 3, "x" * 195 + "…"),
    ("ก" * 198 + "กี" + "ข" * 10, "ก" * 198 + "…"),
    # a right-to-left override would reverse the rest of the line (and the lines after it)
    ("how do \u202eheat pumps\u202c work?", "how do heat pumps work?"),
])
def test_status_shows_each_question_on_one_line_cut_as_readers_see_it(turns, monkeypatch, question, shown):
    from types import SimpleNamespace

    monkeypatch.setattr(jobs, "threads_of", lambda *a, **k: [
        SimpleNamespace(status="running", thread_id="T1", question=question)])
    line = turns.command("status", "alice", ephemeral=True).text.splitlines()[-1]
    assert line == f"- **running** in T1: {shown}"


# ---- the language of the help text and the status listing ---------------------------------------

GERMAN = "Wie funktionieren Wärmepumpen in sehr kalten Wintern?"
FRENCH = "Comment fonctionnent les pompes à chaleur pendant les hivers très froids ?"


@pytest.fixture
def slack_turns(turns) -> ChatTurns:
    """:func:`turns` with Slack's own texts (help, start hint, where)."""
    from bots.chat_phrases import SAY
    from bots.slack.handlers import slack_usage, where_in_slack

    return ChatTurns("slack", turns.settings, log, usage=slack_usage,
                     start_hint=lambda language: SAY("slack_start_hint", language), where=where_in_slack)


def _research(settings, thread_id: str, question: str, status: str = "running", requester: str = "alice") -> None:
    from jobs.store import get_store
    from jobs.threads import set_thread

    set_thread(get_store(settings), thread_id, requester=requester, question=question, status=status)


def test_help_in_a_german_thread_is_german_and_in_a_french_one_french(slack_turns):
    from bots.slack.handlers import slack_usage

    _research(slack_turns.settings, "slack:T1:C1:1.1", GERMAN)
    _research(slack_turns.settings, "slack:T1:C1:2.2", FRENCH, requester="bob")
    german = slack_turns.command("help", "bob", ephemeral=True, thread_id="slack:T1:C1:1.1").text
    assert german == slack_usage("de") and german.startswith("**Deep Research** schreibt einen Bericht")
    assert "Drücke dort auf **Abbrechen** oder sende `cancel`" in german and "`help` zeigt" in german
    french = slack_turns.command("help", "alice", ephemeral=True, thread_id="slack:T1:C1:2.2").text
    assert french == slack_usage("fr") and "Appuyez sur **Annuler**" in french
    # outside a thread: the help word's language, else the person's latest research's
    assert slack_turns.command("ayuda", "alice", ephemeral=True).text == slack_usage("es")
    assert slack_turns.command("help", "alice", ephemeral=True).text == slack_usage("de")
    assert slack_turns.command("help", "carol", ephemeral=True).text == slack_usage("en")  # nothing asked yet
    assert slack_turns.command("help", "carol", ephemeral=True, locale="fr-FR").text == slack_usage("fr")


def test_the_status_listing_speaks_the_language_of_the_thread_or_of_the_latest_research(slack_turns):
    _research(slack_turns.settings, "slack:T1:C1:1.1", GERMAN, status="paused")
    _research(slack_turns.settings, "slack:T1:D1:2.2", "Warum ist der Himmel am Abend rot und nicht blau?")
    german = slack_turns.command("status", "alice", ephemeral=True).text
    assert german.splitlines()[:2] == ["Deine Recherchen:", ""]
    assert set(german.splitlines()[2:]) == {
        "- **läuft** in einer Direktnachricht: Warum ist der Himmel am Abend rot und nicht blau?",
        f"- **wartet auf deine Antwort** in <#C1>: {GERMAN}"}
    # asked in a French thread, the same listing is French
    _research(slack_turns.settings, "slack:T1:C1:3.3", FRENCH, status="done", requester="bob")
    french = slack_turns.command("status", "alice", ephemeral=True, thread_id="slack:T1:C1:3.3").text
    assert french.splitlines()[0] == "Vos recherches\u00a0:"
    assert "- **en attente de votre réponse** dans <#C1>\u00a0: " in french and "- **en cours** dans un message direct" in french
    # nothing open: said with the surface's start hint, in the language of the latest research
    assert slack_turns.command("status", "bob", ephemeral=True).text == (
        "Vous n'avez aucune recherche en cours ni en attente d'une réponse. Lancez-en une avec `/research QUESTION`.")


@pytest.mark.parametrize(("question", "header", "line", "help_line"), [
    ("Quali sono i vantaggi delle pompe di calore rispetto alle caldaie a gas?", "Le tue ricerche:",
     "- **in attesa della tua risposta** in <#C1>: ", "- `help` mostra questo messaggio."),
    ("Wat zijn de voordelen van warmtepompen ten opzichte van cv-ketels op gas?", "Je onderzoeken:",
     "- **wacht op je antwoord** in <#C1>: ", "- `help` toont dit bericht."),
    ("Quais são as vantagens das bombas de calor em relação às caldeiras a gás?", "Suas pesquisas:",
     "- **aguardando sua resposta** em <#C1>: ", "- `help` mostra esta mensagem."),
    ("Vilka är fördelarna med värmepumpar jämfört med gaspannor?", "Dina undersökningar:",
     "- **väntar på ditt svar** i <#C1>: ", "- `help` visar det här meddelandet."),
], ids=["it", "nl", "pt", "sv"])
def test_a_thread_in_italian_dutch_portuguese_or_swedish_gets_help_and_status_in_its_language(
        slack_turns, question, header, line, help_line):
    _research(slack_turns.settings, "slack:T1:C1:1.1", question, status="paused")
    listing = slack_turns.command("status", "alice", ephemeral=True, thread_id="slack:T1:C1:1.1").text
    assert listing.splitlines() == [header, "", line + question]
    help_text = slack_turns.command("help", "alice", ephemeral=True, thread_id="slack:T1:C1:1.1").text
    assert help_line in help_text.splitlines()
    # outside the thread the help word is the person's latest research's language too
    assert slack_turns.command("help", "alice", ephemeral=True).text == help_text


def test_a_listing_shown_to_others_hides_their_questions_in_the_threads_language(turns):
    from bots.chat_phrases import SAY
    from bots.teams.bot import where_in_teams

    teams = ChatTurns("teams", turns.settings, log, where=where_in_teams)
    _research(turns.settings, "teams:T:a:alice", "Meine Krankmeldung: welche Fristen gelten in Deutschland?")
    channel = "teams:T:19:c@thread.tacv2;messageid=1"
    _research(turns.settings, channel, GERMAN, status="paused")
    listing = teams.command("status", "alice", ephemeral=False, shown_in=channel, thread_id=channel,
                            locale="en-US").text
    assert "Krankmeldung" not in listing
    assert f"- **läuft** in einem persönlichen Chat: {SAY('hidden_question', 'de')}" in listing
    assert f"- **wartet auf deine Antwort** in einem Kanal: {GERMAN}" in listing


def test_when_the_registry_fails_help_is_still_said_and_status_says_so_in_the_messages_language(slack_turns,
                                                                                               monkeypatch):
    from bots.slack.handlers import slack_usage

    def broken(*args, **kwargs):
        raise RuntimeError("registry unreachable")

    monkeypatch.setattr(jobs, "thread_info", broken)
    monkeypatch.setattr(jobs, "threads_of", broken)
    assert slack_turns.command("hilfe", "alice", ephemeral=True, thread_id="slack:T1:C1:1.1").text == slack_usage("de")
    assert slack_turns.command("help", "alice", ephemeral=True, thread_id="slack:T1:C1:1.1").text == slack_usage("en")
    said = slack_turns.command("status", "alice", ephemeral=True, locale="fr-FR").text
    assert said.startswith("Désolé, je n'ai pas pu prendre en compte cette demande pour le moment (réf. `")
