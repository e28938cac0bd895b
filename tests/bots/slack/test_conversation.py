"""Whole conversations through the real bot (HTTP mode), the job layer and the offline research."""

from __future__ import annotations

import logging
import time
from urllib.parse import urlencode

import pytest

import jobs
import jobs.run
from engine.runner import Artifacts, TurnOutcome
from jobs.phrases import WORDS
from tests import texts
from tests.bots.slack.conftest import (
    ALICE,
    BOB,
    CHANNEL,
    TEAM,
    bot_posts,
    runner_idle,
    thread_status,
    wait_status,
)
from tests.bots.slack.test_blocks import _long_summary
from tests.bots.slack.test_mrkdwn import EXAMPLE
from tests.waiting import wait_logged

#: Alice's direct message channel with the bot (Slack's DM channel ids start with "D").
DM = "D0ALICE"


def _root_of_command(fake) -> str:
    roots = fake.wait_for(lambda: [m for m in fake.messages(CHANNEL) if m.get("thread_ts") is None], what="root")
    return roots[0]["ts"]


def _sections(message: dict) -> str:
    return "\n".join(b["text"]["text"] for b in message.get("blocks") or [] if b["type"] == "section")


def test_slash_command_through_clarification_to_summary_and_files(bot, fake_slack, research):
    status, ack = bot.command("heat pumps")
    assert status == 200 and ack["response_type"] == "ephemeral" and "heat pumps" in ack["text"]

    # the root message names the requester and the question; the thread is its thread
    root = _root_of_command(fake_slack)
    root_message = fake_slack.thread(CHANNEL, root)[0]
    assert "<@U0ALICE>" in root_message["text"] and "heat pumps" in root_message["text"]
    thread_id = f"slack:{TEAM}:{CHANNEL}:{root}"
    wait_status(fake_slack, thread_id, "paused")
    # the thread is paused just before its question is posted: the question follows in the thread
    question = fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, CHANNEL, root)[-1:] if "?" in m["text"]],
                                   what="the clarifying question")[0]

    # the bot's own clarifying question, delivered back as an event, does not answer itself
    bot.message(question["text"], user="U0BOT", thread_ts=root, bot_id="B0BOT", ts=question["ts"])
    # someone else's reply does not resume; they get a short ephemeral note
    bot.message("I think residential", user=BOB, thread_ts=root)
    note = fake_slack.wait_for(lambda: fake_slack.calls_to("chat.postEphemeral"), what="ephemeral note")[0]
    assert note.params["user"] == BOB and note.params["thread_ts"] == root
    assert note.params["text"] == "Only <@U0ALICE> can answer this question."
    assert thread_status(thread_id) == "paused" and len(research.calls) == 1
    # /research status lists it for the requester
    assert "waiting for your answer" in bot.command("status")[1]["text"]

    # the requester's reply resumes the graph with that text
    research.gate.clear()
    answer_ts, _ = bot.message("EU residential market size and growth in 2024", thread_ts=root)
    fake_slack.wait_for(lambda: len(research.calls) == 2, what="the resume turn")
    assert research.calls[1]["answer"] == "EU residential market size and growth in 2024"
    # a reply while it runs gets "still working" with how to cancel
    bot.message("are you done?", thread_ts=root)
    busy = fake_slack.wait_for(
        lambda: [m for m in bot_posts(fake_slack, CHANNEL, root) if "Still working" in m["text"]], what="busy")
    assert "cancel" in busy[0]["text"]
    research.gate.set()
    wait_status(fake_slack, thread_id, "done")
    files_post = fake_slack.wait_for(
        lambda: [m for m in bot_posts(fake_slack, CHANNEL, root) if m.get("files")], what="files")[0]

    # every message the bot wrote is in the thread; both files are there
    assert all(m.get("thread_ts") == root for m in fake_slack.messages(CHANNEL) if m["ts"] != root)
    assert sorted(f["name"] for f in files_post["files"]) == ["report.docx", "report.md", "report.pdf"]
    [complete] = fake_slack.calls_to("files.completeUploadExternal")
    assert complete.params["channel_id"] == CHANNEL and complete.params["thread_ts"] == root
    # one status message per turn, updated in place
    updates = fake_slack.calls_to("chat.update")
    assert updates and {u.params["channel"] for u in updates} == {CHANNEL}
    status_ts = {u.params["ts"] for u in updates}
    statuses = [m for m in fake_slack.messages(CHANNEL) if m["ts"] in status_ts]
    assert len(statuses) == 2 and all(m.get("edited") for m in statuses)  # the clarify turn's and the resume turn's
    # the clarify turn's status no longer says it waits: it points below, to the resumed research
    first_status = min(statuses, key=lambda m: float(m["ts"]))
    assert first_status["text"] == texts.ANSWERED_TEXT
    summary = [m for m in bot_posts(fake_slack, CHANNEL, root) if m.get("blocks") and m["ts"] not in status_ts][-1]
    text = _sections(summary)
    assert text and "##" not in text and "**" not in text
    assert any(c.params.get("timestamp") == answer_ts for c in fake_slack.calls_to("reactions.add"))

    # after the report, a new question to the bot in the thread starts a new research with the report as context
    bot.message("<@U0BOT> Now compare it with the UK market", thread_ts=root)
    fake_slack.wait_for(lambda: len(research.calls) == 3, what="the follow-up research")
    follow_up = research.calls[2]
    assert follow_up["question"] == "Now compare it with the UK market"
    assert follow_up["context"] and "heat pumps" in follow_up["context"].lower()
    wait_status(fake_slack, thread_id, "done", "failed")
    fake_slack.wait_for(lambda: len(fake_slack.calls_to("files.completeUploadExternal")) == 2, what="second files")


def test_cancel_in_the_thread(bot, fake_slack, research):
    research.gate.clear()
    bot.command("EU heat-pump market size and growth 2024")
    root = _root_of_command(fake_slack)
    thread_id = f"slack:{TEAM}:{CHANNEL}:{root}"
    fake_slack.wait_for(lambda: research.calls, what="the research to start")
    bot.message("cancel", user=BOB, thread_ts=root)
    refusal = fake_slack.wait_for(lambda: fake_slack.calls_to("chat.postEphemeral"), what="refusal")[0]
    assert refusal.params["user"] == BOB and "Only <@U0ALICE> can cancel" in refusal.params["text"]
    bot.message("cancel", thread_ts=root)
    assert wait_status(fake_slack, thread_id, "cancelled") == "cancelled"
    fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, CHANNEL, root) if "cancelled" in m["text"].lower()],
                        what="the cancellation message")
    assert fake_slack.calls_to("files.completeUploadExternal") == []


@pytest.mark.parametrize("summary", [EXAMPLE, _long_summary(12_000)], ids=["mrkdwn-example", "12000-chars"])
def test_summaries_are_delivered_as_valid_mrkdwn_blocks(bot, fake_slack, research, tmp_path, summary):
    def outcome(thread_id: str) -> TurnOutcome:
        directory = tmp_path / "artifacts" / "run1"
        directory.mkdir(parents=True, exist_ok=True)
        for name, data in (("report.md", b"# Report\n"), ("report.pdf", b"%PDF-1.5\n"), ("sources.json", b"[]"),
                           ("usage.json", b"{}")):
            (directory / name).write_bytes(data)
        arts = Artifacts(directory=directory, report_md=directory / "report.md", sources_json=directory / "sources.json",
                         usage_json=directory / "usage.json", pdf=directory / "report.pdf")
        return TurnOutcome(status="done", thread_id=thread_id, run_id="run1", summary=summary, artifacts=arts)

    research.outcome = outcome
    bot.command("EU heat-pump market size and growth 2024")
    root = _root_of_command(fake_slack)
    wait_status(fake_slack, f"slack:{TEAM}:{CHANNEL}:{root}", "done")
    fake_slack.wait_for(lambda: fake_slack.calls_to("files.completeUploadExternal"), what="files")
    posts = [m for m in bot_posts(fake_slack, CHANNEL, root) if m.get("blocks") and not m.get("edited")]
    text = "\n".join(_sections(m) for m in posts)
    assert "##" not in text and "**" not in text and "|---" not in text
    assert text.count("<https://example.com/") == summary.count("](https://example.com/")
    for message in posts:  # the fake refuses what Slack refuses, so these passed its checks too
        assert len(message["blocks"]) <= 50
        assert all(len(b["text"]["text"]) <= 3000 for b in message["blocks"])


def test_a_direct_message_researches_in_its_own_thread(bot, fake_slack, research):
    ts, _ = bot.message("EU heat-pump market size and growth 2024", channel="D0ALICE", channel_type="im")
    wait_status(fake_slack, f"slack:{TEAM}:D0ALICE:{ts}", "done")
    fake_slack.wait_for(lambda: fake_slack.calls_to("files.completeUploadExternal"), what="files")
    assert {m.get("thread_ts") for m in fake_slack.messages("D0ALICE")} == {ts}
    assert research.calls[0]["question"] == "EU heat-pump market size and growth 2024"


def test_slash_command_where_the_bot_cannot_post(bot, fake_slack, research, caplog):
    caplog.set_level("INFO", logger="bots.slack.handlers")
    fake_slack.missing_channels.add("C0PRIVATE")
    status, _ = bot.command("EU heat pumps 2024 market", channel="C0PRIVATE")
    assert status == 200
    reply = fake_slack.wait_for(lambda: fake_slack.calls_to("response_url"), what="the response_url note")[0]
    assert "Invite me" in reply.params["text"] and reply.params["response_type"] == "ephemeral"
    wait_logged(caplog, "event=slack_root_refused", "channel=C0PRIVATE")
    runner_idle()
    assert research.calls == [] and not any("event=slack_turn" in r.getMessage() for r in caplog.records)


def test_an_overlong_question_is_refused_before_anything_is_posted(bot, fake_slack, research, caplog):
    caplog.set_level("DEBUG", logger="bots.slack.handlers")
    status, body = bot.command("Why is the sky blue? " * 450)
    assert status == 200 and body["response_type"] == "ephemeral" and "limit is 8,000" in body["text"]
    ts, _ = bot.message("<@U0BOT> " + "Why is the sky blue? " * 450, thread_ts=None)
    said = fake_slack.wait_for(lambda: bot_posts(fake_slack, CHANNEL, ts), what="the refusal")[0]["text"]
    assert "limit is 8,000" in said
    wait_logged(caplog, "event=slack_command_done", "reason=refused_in_ack")  # the command's listener ended
    wait_logged(caplog, "event=slack_turn", f"turn=slack:{TEAM}:{CHANNEL}:{ts}", "action=rejected")
    assert [m for m in fake_slack.messages(CHANNEL) if m.get("thread_ts") is None] == []  # no root message
    assert len(bot_posts(fake_slack, CHANNEL, ts)) == 1 and research.calls == []


def test_an_internal_error_is_one_short_line_and_a_redacted_log(bot, fake_slack, monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise ConnectionError("store down at redis://:hunter2-password@10.0.0.1 token=xoxb-1234-secret")

    monkeypatch.setattr(jobs, "handle_message", broken)
    caplog.set_level(logging.ERROR, logger="bots.slack.handlers")
    ts, _ = bot.message("<@U0BOT> EU heat pumps", thread_ts=None)
    said = fake_slack.wait_for(lambda: bot_posts(fake_slack, CHANNEL, ts), what="the error line")[0]["text"]
    assert said.startswith("Sorry, I couldn't take that request just now (ref `")
    assert "\n" not in said and "Traceback" not in said and "redis" not in said
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "ConnectionError" in logged and "xoxb-1234-secret" not in logged


def test_in_a_finished_thread_only_a_message_to_the_bot_starts_a_follow_up(bot, fake_slack, research, caplog):
    caplog.set_level("INFO", logger="bots.slack.handlers")
    ts, _ = bot.message("<@U0BOT> EU heat-pump market size and growth 2024")
    thread_id = f"slack:{TEAM}:{CHANNEL}:{ts}"
    wait_status(fake_slack, thread_id, "done")
    fake_slack.wait_for(lambda: fake_slack.calls_to("files.completeUploadExternal"), what="files")
    posts = len(bot_posts(fake_slack, CHANNEL, ts))
    # the requester talking to someone else, or thanking, is not a new paid research
    bot.message(f"<@{BOB}> can you double-check the cost table above?", thread_ts=ts)
    bot.message("thanks, looks good!", thread_ts=ts)
    # listeners run concurrently: let both be read before the follow-up starts (during a research
    # the requester's "thanks" would rightly get "still working")
    fake_slack.wait_for(lambda: sum("event=slack_turn" in r.getMessage() and "action=ignored" in r.getMessage()
                                    for r in caplog.records) == 2, what="both replies ignored")
    bot.message("<@U0BOT> Now compare it with the UK market", thread_ts=ts)
    fake_slack.wait_for(lambda: len(research.calls) >= 2, what="the follow-up research")
    wait_status(fake_slack, thread_id, "done", "failed")
    fake_slack.wait_for(lambda: len(fake_slack.calls_to("files.completeUploadExternal")) == 2, what="second files")
    assert [c["question"] for c in research.calls] == [
        "EU heat-pump market size and growth 2024", "Now compare it with the UK market"]
    assert not [m for m in bot_posts(fake_slack, CHANNEL, ts)[posts:] if "Still working" in m["text"]]


def test_in_a_direct_message_every_message_addresses_the_bot(bot, fake_slack, research):
    ts, _ = bot.message("EU heat-pump market size and growth 2024", channel="D0ALICE", channel_type="im")
    thread_id = f"slack:{TEAM}:D0ALICE:{ts}"
    wait_status(fake_slack, thread_id, "done")
    bot.message("Now compare it with the UK market", channel="D0ALICE", channel_type="im", thread_ts=ts)
    fake_slack.wait_for(lambda: len(research.calls) == 2, what="the follow-up research")
    assert research.calls[1]["question"] == "Now compare it with the UK market"
    wait_status(fake_slack, thread_id, "done", "failed")


@pytest.mark.parametrize("thread", ["new", "finished"])
def test_a_mention_of_someone_whose_id_starts_like_the_bots_is_not_one_of_the_bot(bot, fake_slack, research, caplog,
                                                                                 thread):
    caplog.set_level("DEBUG", logger="bots.slack.handlers")
    root = None
    if thread == "finished":
        root, _ = bot.message("<@U0BOT> EU heat-pump market size and growth 2024")
        wait_status(fake_slack, f"slack:{TEAM}:{CHANNEL}:{root}", "done")
    ts, _ = bot.message("<@U0BOTX> can you check the Danish heat pump subsidies?", thread_ts=root)
    [line] = fake_slack.wait_for(lambda: [r.getMessage() for r in caplog.records if ts in r.getMessage()],
                                 what="the message read")
    assert "ignored" in line, line  # not addressed: no research, no reply
    named, _ = bot.message("<@U0BOT|deepresearch> Danish heat pump subsidies in 2024", thread_ts=root)  # the bot
    fake_slack.wait_for(lambda: len(research.calls) == (2 if root else 1), what="the research the bot was asked for")
    assert research.calls[-1]["question"] == "Danish heat pump subsidies in 2024"
    wait_status(fake_slack, f"slack:{TEAM}:{CHANNEL}:{root or named}", "done", "failed")
    runner_idle()


def test_help_and_status_in_a_direct_message_thread_are_commands(bot, fake_slack, research):
    root, _ = bot.message("help", channel="D0ALICE", channel_type="im")
    fake_slack.wait_for(lambda: bot_posts(fake_slack, "D0ALICE", root), what="the help text")
    bot.message("help", channel="D0ALICE", channel_type="im", thread_ts=root)
    fake_slack.wait_for(lambda: len(bot_posts(fake_slack, "D0ALICE", root)) >= 2, what="the second answer")
    bot.message("status", channel="D0ALICE", channel_type="im", thread_ts=root)
    fake_slack.wait_for(lambda: len(bot_posts(fake_slack, "D0ALICE", root)) >= 3, what="the third answer")
    said = [m["text"] for m in bot_posts(fake_slack, "D0ALICE", root)]
    runner_idle()
    assert research.calls == [], [c["question"] for c in research.calls]
    assert said[1] == said[0] and "You have no research running" in said[2], said


@pytest.mark.parametrize(("word", "heading"), [("Hilfe?", "Recherche"), ("¿ayuda?", "investigación"),
                                                ("ヘルプ？", "リサーチ")])
def test_a_help_word_asked_as_a_question_in_a_direct_message_is_help_not_a_research(bot, fake_slack, research, word,
                                                                                     heading):
    """"Hilfe?" in a DM started a paid research on the word "Hilfe"; it is the help, in its language."""
    root, _ = bot.message(word, channel="D0ALICE", channel_type="im")
    [said] = fake_slack.wait_for(lambda: bot_posts(fake_slack, "D0ALICE", root), what="the help text")
    runner_idle()
    assert research.calls == [], [c["question"] for c in research.calls]
    assert "/research" in said["text"] and heading in said["text"], said["text"]


@pytest.mark.parametrize("word", ["cancel", "Stop!", "abort"])
def test_a_cancel_word_as_the_slash_command_says_how_to_cancel_and_posts_nothing(bot, fake_slack, research, caplog,
                                                                                  word):
    caplog.set_level(logging.DEBUG, logger="bots.slack.handlers")
    status, ack = bot.command(word)
    assert status == 200 and ack["response_type"] == "ephemeral"
    assert "Cancel" in ack["text"] and "thread" in ack["text"] and "Starting research" not in ack["text"], ack
    wait_logged(caplog, "event=slack_command_done reason=answered_in_ack")  # the lazy listener ran, and stopped
    assert fake_slack.calls_to("chat.postMessage") == [] and research.calls == []


def test_a_replayed_slash_command_starts_one_research(bot, fake_slack, research, caplog):
    caplog.set_level(logging.INFO, logger="bots.slack.handlers")
    form = {"team_id": TEAM, "channel_id": CHANNEL, "user_id": ALICE, "command": "/research",
            "text": "How loud are heat pumps at night?", "api_app_id": "A0APP",
            "response_url": f"http://127.0.0.1:{fake_slack.port}/response/replayed", "trigger_id": "13345224609.1.x"}
    body, ts = urlencode(form).encode(), str(int(time.time()))
    for _ in range(3):  # the same signed request, captured and sent again within Slack's five minutes
        status, answer, _ = bot.post(body, "application/x-www-form-urlencoded", timestamp=ts)
        assert status == 200, answer
    wait_logged(caplog, "event=slack_event_dropped", "reason=seen_before", count=2)
    fake_slack.wait_for(lambda: research.calls, what="the research")
    roots = [c for c in fake_slack.calls_to("chat.postMessage") if "asked for a research" in c.params.get("text", "")]
    assert len(roots) == 1 and len(research.calls) == 1, [r.params for r in roots]


def test_a_person_mentioned_in_a_question_reaches_the_research_by_name(bot, fake_slack, research):
    fake_slack.users[BOB] = "Bob Builder"
    ts, _ = bot.message(f"What did <@{BOB}> propose on heat-pump noise limits in 2024?", channel="D0ALICE",
                        channel_type="im")
    fake_slack.wait_for(lambda: research.calls, what="the research")
    assert research.calls[0]["question"] == "What did @Bob Builder propose on heat-pump noise limits in 2024?"
    status, ack = bot.command(f"summarise <@{BOB}>'s plan for heat-pump noise limits")
    assert "@Bob Builder" in ack["text"], ack
    fake_slack.wait_for(lambda: len(research.calls) == 2, what="the command's research")
    assert research.calls[1]["question"] == "summarise @Bob Builder's plan for heat-pump noise limits"
    runner_idle()


def test_a_thread_asked_in_german_is_answered_in_german(bot, fake_slack, research):
    from tests.bots.slack.test_buttons import CANCEL, _buttons, _with_button

    research.gate.clear()
    ts, _ = bot.message("<@U0BOT> Wie groß ist der Markt für Wärmepumpen in Europa und wie wächst er?")
    thread_id = f"slack:{TEAM}:{CHANNEL}:{ts}"
    status = _with_button(fake_slack, ts, CANCEL)
    assert status["text"].startswith("Die Recherche beginnt") and _buttons(status)[CANCEL]["text"]["text"] == "Abbrechen"
    fake_slack.wait_for(lambda: research.calls, what="the research to start")
    bot.message("cancel", user=BOB, thread_ts=ts)  # the command word is the same in every language
    refusal = fake_slack.wait_for(lambda: fake_slack.calls_to("chat.postEphemeral"), what="refusal")[0]
    assert refusal.params["text"] == "Nur <@U0ALICE> kann diese Recherche abbrechen."
    bot.message("Ist es schon fertig?", thread_ts=ts)
    fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, CHANNEL, ts) if m["text"].startswith(
        "Die Recherche läuft noch")], what="still working, in German")
    bot.message("stop", thread_ts=ts)
    assert wait_status(fake_slack, thread_id, "cancelled") == "cancelled"
    fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, CHANNEL, ts) if m["text"].startswith(
        "Recherche abgebrochen. Stelle eine neue Frage")], what="the cancellation, in German")


def test_a_slash_command_in_german_is_acknowledged_and_refused_in_german(bot, fake_slack, research):
    status, ack = bot.command("Warum ist der Himmel am Abend rot? " * 300)
    assert status == 200 and ack["text"].startswith("Die Frage ist 10.499 Zeichen lang; erlaubt sind 8.000.")
    question = "Wie groß ist der Markt für Wärmepumpen in Europa?"
    status, ack = bot.command(question)
    assert ack["text"].startswith(f"Ich starte die Recherche zu: _{question}_.")
    root = fake_slack.thread(CHANNEL, _root_of_command(fake_slack))[0]
    assert root["text"] == f"<@U0ALICE> hat eine Recherche angefragt: {question}"


def test_help_status_and_how_to_cancel_follow_the_language(bot, fake_slack, research):
    from bots.slack.handlers import cancel_how, slack_usage
    from bots.slack.mrkdwn import markdown_to_mrkdwn

    status, ack = bot.command("hilfe")  # a help word of one language, outside any thread
    assert status == 200 and ack["text"] == markdown_to_mrkdwn(slack_usage("de"))
    assert ack["text"].startswith("*Deep Research* schreibt einen Bericht mit Quellenangaben")
    assert "`/research status`: deine Recherchen" in ack["text"]
    assert bot.command("help")[1]["text"] == markdown_to_mrkdwn(slack_usage("en"))  # nothing asked yet: English

    research.gate.clear()
    question = "Wie groß ist der Markt für Wärmepumpen in Europa und wie wächst er?"
    ts, _ = bot.message(f"<@U0BOT> {question}")
    thread_id = f"slack:{TEAM}:{CHANNEL}:{ts}"
    fake_slack.wait_for(lambda: research.calls, what="the research to start")

    def ephemeral_to(user: str) -> list[str]:
        return [c.params["text"] for c in fake_slack.calls_to("chat.postEphemeral") if c.params["user"] == user]

    # in the German thread, status is German for everyone: Bob, who has no research, and Alice
    bot.message("<@U0BOT> status", user=BOB, thread_ts=ts)
    [bob] = fake_slack.wait_for(lambda: ephemeral_to(BOB), what="Bob's status")
    assert bob == "Du hast keine Recherche, die läuft oder auf eine Antwort wartet. Starte eine mit `/research FRAGE`."
    bot.message("<@U0BOT> status", thread_ts=ts)
    [alice] = fake_slack.wait_for(lambda: ephemeral_to(ALICE), what="Alice's status")
    assert alice.splitlines()[0] == "Deine Recherchen:"
    assert alice.splitlines()[2] == f"• *läuft* in <#{CHANNEL}>: {question}", alice
    # a slash command is in no thread and carries no locale: Alice's latest research was asked in German
    assert bot.command("status")[1]["text"].splitlines()[0] == "Deine Recherchen:"
    _, how = bot.command("cancel")
    assert how["text"] == markdown_to_mrkdwn(cancel_how("de")) and how["text"].startswith(
        "Um eine Recherche abzubrechen, drücke *Abbrechen*")
    bot.message("stop", thread_ts=ts)
    assert wait_status(fake_slack, thread_id, "cancelled") == "cancelled"
    runner_idle()


def test_where_the_bot_cannot_post_a_german_question_is_told_in_german(bot, fake_slack, research):
    fake_slack.missing_channels.add("C0PRIVATE")
    bot.command("Wie groß ist der Markt für Wärmepumpen in Europa?", channel="C0PRIVATE")
    reply = fake_slack.wait_for(lambda: fake_slack.calls_to("response_url"), what="the response_url note")[0]
    assert reply.params["text"].startswith("Ich kann in dieser Unterhaltung nicht posten. Lade mich zuerst ein")
    runner_idle()
    assert research.calls == []


@pytest.mark.parametrize(("method", "error", "times"), [
    ("files.completeUploadExternal", "internal_error", 1),
    ("files.getUploadURLExternal", "service_unavailable", 1),
    ("files.completeUploadExternal", "fatal_error", 4),  # past the client's retries: the turn is retried
], ids=["complete-once", "get-url-once", "complete-past-client-retries"])
def test_a_transient_slack_error_while_uploading_loses_no_report_and_posts_nothing_twice(
        bot, fake_slack, research, method, error, times):
    """Slack's transient errors (``internal_error``, ``fatal_error``, ``service_unavailable``,
    ``request_timeout``) during the upload of the report files are tried again, first by the Web API
    client and, when they last, by the turn's retry (as a Teams connector's 5xx is): the files arrive,
    the thread ends ``done``, and no failure line, summary or status message is posted twice."""
    from bots.slack.client import SERVER_ERROR_RETRIES

    assert times <= 1 or times > SERVER_ERROR_RETRIES
    fake_slack.fail(method, error, times=times)
    ts, _ = bot.message("<@U0BOT> EU heat-pump market size and growth 2024")
    thread_id = f"slack:{TEAM}:{CHANNEL}:{ts}"
    wait_status(fake_slack, thread_id, "done", "failed")
    runner_idle()
    posts = bot_posts(fake_slack, CHANNEL, ts)
    said = [m["text"] for m in posts]
    assert not [t for t in said if "failed" in t.lower()], said
    assert len([m for m in posts if m.get("files")]) == 1, said
    assert thread_status(thread_id) == "done"
    # the status message, the summary and the files: each once, whatever attempt delivered them
    assert len(posts) == 3, said
    assert len(research.calls) == 1


def _run_with_a_post_behind_an_error(bot, fake_slack, match, lookups_failing: int = 1) -> tuple[str, list[dict]]:
    """Ask for a research while the bot's first post that ``match`` accepts goes through but is answered
    ``internal_error``, and reading the thread with its metadata fails ``lookups_failing`` times past the
    client's retries; (the thread id, the bot's posts in the thread once the turn ended)."""
    from bots.slack.client import SERVER_ERROR_RETRIES

    fake_slack.fail("chat.postMessage", "internal_error", applied=True, match=match)
    fake_slack.fail("conversations.replies", "internal_error", times=lookups_failing * (SERVER_ERROR_RETRIES + 1),
                    match=lambda p: bool(p.get("include_all_metadata")))
    ts, _ = bot.message("<@U0BOT> EU heat-pump market size and growth 2024")
    thread_id = f"slack:{TEAM}:{CHANNEL}:{ts}"
    wait_status(fake_slack, thread_id, "done", "failed")
    runner_idle()
    return thread_id, bot_posts(fake_slack, CHANNEL, ts)


@pytest.mark.parametrize("lookups_failing", [1, 2], ids=["retried-in-the-attempt", "retried-by-a-new-attempt"])
def test_a_summary_that_went_through_behind_an_error_is_not_posted_again_by_the_turns_retry(
        bot, fake_slack, research, lookups_failing):
    """The summary's post went through but was answered ``internal_error``, and the thread could not be
    read to see it (``conversations.replies`` failing past the client's retries): the delivery tries
    the summary again, in the same attempt or, when the thread still cannot be read, in the turn's
    retry from its checkpoint, and finds it in the thread by its key (the turn and the part, in the
    message metadata) instead of posting it a second time; the files follow once."""
    import json

    thread_id, posts = _run_with_a_post_behind_an_error(
        bot, fake_slack, lambda p: "/summary#0" in json.dumps(p.get("metadata") or {}), lookups_failing)
    summaries = [m for m in posts if "/summary#0" in json.dumps(m.get("metadata") or {})]
    assert len(summaries) == 1, [m["text"] for m in posts]
    assert len([m for m in posts if m.get("files")]) == 1
    assert thread_status(thread_id) == "done" and len(research.calls) == 1


def _status_posts(posts: list[dict]) -> list[dict]:
    """The status messages among the bot's ``posts``: those posted under a turn's status key, or
    carrying the Cancel button."""
    import json

    return [m for m in posts if "/status#" in json.dumps(m.get("metadata") or {})
            or "deepresearch_cancel_0" in json.dumps(m.get("blocks") or [])]


def test_a_status_message_that_went_through_behind_an_error_is_not_posted_again(bot, fake_slack, research):
    """The status message's post went through but was answered ``internal_error`` and the thread could
    not be read to see it: the turn's next status text looks for it by the turn's status key and edits
    it, rather than posting a second status message."""
    import json

    thread_id, posts = _run_with_a_post_behind_an_error(
        bot, fake_slack, lambda p: "deepresearch_cancel_0" in json.dumps(p.get("blocks") or ""))
    assert len(posts) == 3, [m["text"] for m in posts]  # the status message, the summary, the files
    [status] = _status_posts(posts)
    assert status["text"] == texts.DONE_TEXT, status["text"]  # the found message shows the latest text
    assert thread_status(thread_id) == "done" and len(research.calls) == 1


def test_a_rerun_that_lost_its_status_messages_id_finds_the_message_and_posts_no_second(
        bot, fake_slack, research, monkeypatch):
    """The first attempt posted the status message but could not keep its id in the turn record, then
    failed on a transient error (the research's service away): the turn's retry finds the status message
    in the thread by the turn's status key and edits it; the thread shows one."""
    import jobs.run
    from jobs import records

    patch, lost, runs = records.patch, [], []
    run_turn = jobs.run.run_turn

    def patch_losing_the_status_id(store, turn_id, **fields):
        if "status_message_id" in fields and not lost:
            lost.append(fields["status_message_id"])
            raise ConnectionError("the store blinked")
        return patch(store, turn_id, **fields)

    async def away_once(thread_id, **kwargs):
        runs.append(thread_id)
        if len(runs) == 1:
            raise ConnectionError("the research's service went away")
        return await run_turn(thread_id, **kwargs)

    monkeypatch.setattr(records, "patch", patch_losing_the_status_id)
    monkeypatch.setattr(jobs.run, "run_turn", away_once)
    ts, _ = bot.message("<@U0BOT> EU heat-pump market size and growth 2024")
    thread_id = f"slack:{TEAM}:{CHANNEL}:{ts}"
    fake_slack.wait_for(lambda: len(runs) == 2, what="the turn's retry")
    wait_status(fake_slack, thread_id, "done", "failed")
    runner_idle()
    posts = bot_posts(fake_slack, CHANNEL, ts)
    assert len(posts) == 3, [m["text"] for m in posts]  # the status message, the summary, the files
    assert lost and [m["ts"] for m in _status_posts(posts)] == lost, [m["text"] for m in posts]
    assert posts[0]["text"] == texts.DONE_TEXT and thread_status(thread_id) == "done"


def _roots(fake) -> list[dict]:
    return [m for m in fake.messages(CHANNEL) if m.get("thread_ts") is None and m.get("bot_id")]


def test_a_slash_commands_root_that_went_through_behind_a_transient_error_is_posted_once(bot, fake_slack,
                                                                                          research):
    """The root message of ``/research`` was taken by Slack but answered ``internal_error``: it carries
    the command's key (its ``trigger_id``) and is looked for in the channel before another try, so one
    root and one research follow."""
    fake_slack.fail("chat.postMessage", "internal_error", applied=True,
                    match=lambda p: "asked for a research" in str(p.get("text")))
    bot.command("EU heat-pump market size and growth 2024")
    fake_slack.wait_for(lambda: research.calls, what="the research")
    runner_idle()
    assert len(_roots(fake_slack)) == 1, [m["text"] for m in _roots(fake_slack)]
    assert len(research.calls) == 1


def test_a_replayed_slash_command_past_a_dedupe_store_that_stopped_answering_posts_one_root(
        bot, fake_slack, research, monkeypatch, caplog):
    """The same signed ``/research`` request replayed while the de-duplication store does not answer (the
    first delivery was recorded there, so this process's own memory has not seen it): the root message is
    found in the channel by the command's key instead of being posted again, and no second research starts."""
    caplog.set_level(logging.INFO, logger="bots.slack")
    form = {"team_id": TEAM, "channel_id": CHANNEL, "user_id": ALICE, "command": "/research",
            "text": "How loud are heat pumps at night?", "api_app_id": "A0APP",
            "response_url": f"http://127.0.0.1:{fake_slack.port}/response/replayed", "trigger_id": "13345224610.1.y"}
    body, ts = urlencode(form).encode(), str(int(time.time()))
    assert bot.post(body, "application/x-www-form-urlencoded", timestamp=ts)[0] == 200
    wait_logged(caplog, "event=slack_turn")
    fake_slack.wait_for(lambda: research.calls, what="the research")

    def store_away(key, **kwargs):
        raise ConnectionError("the store is away")

    monkeypatch.setattr(jobs, "seen_before", store_away)
    # a busy channel: more messages since the root than one page of the channel's history holds
    for n in range(250):
        fake_slack.add_message(CHANNEL, f"standup note {n}", user=BOB)
    assert bot.post(body, "application/x-www-form-urlencoded", timestamp=ts)[0] == 200
    wait_logged(caplog, "event=slack_turn", count=2)
    runner_idle()
    assert len(_roots(fake_slack)) == 1, [m["text"] for m in _roots(fake_slack)]
    assert len(research.calls) == 1


def _paused_by_a_command(bot, fake_slack) -> tuple[str, str]:
    """Alice's ``/research heat pumps``, paused at its clarifying question once that is posted;
    (the root message's ts, the thread id)."""
    bot.command("heat pumps")
    root = _root_of_command(fake_slack)
    thread_id = f"slack:{TEAM}:{CHANNEL}:{root}"
    wait_status(fake_slack, thread_id, "paused")
    fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, CHANNEL, root)[-1:] if "?" in m["text"]],
                        what="the clarifying question")
    return root, thread_id


@pytest.mark.parametrize("word", ["status", "Help?"])
def test_a_command_word_replied_in_a_thread_waiting_for_an_answer_is_no_answer(bot, fake_slack, research, word):
    """Alice replied ``status`` (or ``help``) in her thread while its clarifying question was open:
    the research resumed with the word as her answer. It is the command, shown to her alone, and the
    question still waits for her answer."""
    root, thread_id = _paused_by_a_command(bot, fake_slack)
    posts = len(bot_posts(fake_slack, CHANNEL, root))
    bot.message(word, thread_ts=root)
    [note] = fake_slack.wait_for(lambda: fake_slack.calls_to("chat.postEphemeral"), what="the command's answer")
    assert note.params["user"] == ALICE and note.params["thread_ts"] == root
    assert ("waiting for your answer" if word == "status" else "/research") in note.params["text"], note.params
    assert thread_status(thread_id) == "paused" and len(research.calls) == 1
    assert len(bot_posts(fake_slack, CHANNEL, root)) == posts
    bot.message("EU residential market size and growth in 2024", thread_ts=root)
    fake_slack.wait_for(lambda: len(research.calls) == 2, what="the resume turn")
    assert research.calls[1]["answer"] == "EU residential market size and growth in 2024"
    wait_status(fake_slack, thread_id, "done", "failed")
    runner_idle()


def test_a_question_cancelled_unanswered_leaves_no_status_waiting_for_its_answer(bot, fake_slack, research):
    """Alice cancelled while her clarifying question was open: the status message above it still
    said "the research starts once the requester answers it". It says the research is cancelled."""
    root, thread_id = _paused_by_a_command(bot, fake_slack)
    [status] = [m for m in bot_posts(fake_slack, CHANNEL, root) if m["text"] == WORDS("clarify_status")]
    bot.message("cancel", thread_ts=root)
    fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, CHANNEL, root) if m["text"].startswith("Cancelled. Ask")],
                        what="the cancellation reply")
    # the status is edited before the reply is said
    [updated] = [m for m in fake_slack.messages(CHANNEL) if m["ts"] == status["ts"]]
    assert updated["text"] == "Cancelled." and thread_status(thread_id) == "cancelled"
    assert len(research.calls) == 1


def test_a_command_word_after_someone_elses_mention_and_the_bots_is_the_command(bot, fake_slack, research):
    """Bob wrote "<@U0ALICE> <@U0BOT> status" in a channel: it was read as the question "@Alice
    status". Other people's mentions before the command word do not keep it from being the command
    (help, status), whichever mention comes first; a question after them is still a question."""
    for text, expected in ((f"<@{ALICE}> <@U0BOT> status", "You have no research running"),
                           (f"<@{ALICE}> <@U0BOT>   Help?", "/research"),
                           (f"<@U0BOT> <@{ALICE}> status", "You have no research running")):
        notes = len(fake_slack.calls_to("chat.postEphemeral"))
        bot.message(text, user=BOB)
        note = fake_slack.wait_for(lambda n=notes: fake_slack.calls_to("chat.postEphemeral")[n:],
                                   what=f"the answer to {text!r}")[0]
        assert note.params["user"] == BOB and expected in note.params["text"], (text, note.params["text"])
    assert jobs.threads_of(BOB, settings=_settings()) == [] and research.calls == []
    # more than the command word after the mentions: a question
    ts, _ = bot.message(f"<@{ALICE}> <@U0BOT> status of heat pump subsidies in Denmark 2024", user=BOB)
    wait_status(fake_slack, f"slack:{TEAM}:{CHANNEL}:{ts}", "paused", "done")
    assert "status of heat pump subsidies in Denmark 2024" in research.calls[0]["question"]
    runner_idle()


def _settings():
    from engine.settings import load_settings

    return load_settings()


def _paused_in_dm(bot, fake_slack, question: str) -> str:
    """Alice's top-level DM ``question``, paused at its clarifying question once that is posted in
    the message's thread; the message's ts (the research's thread root)."""
    ts, _ = bot.message(question, channel=DM, channel_type="im")
    wait_status(fake_slack, f"slack:{TEAM}:{DM}:{ts}", "paused")
    fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, DM, ts)[-1:] if "?" in m["text"]],
                        what="the clarifying question")
    return ts


def test_a_top_level_direct_message_answers_the_clarifying_question_that_waits_there(bot, fake_slack, research):
    """In a DM Alice answered the bot's clarifying question at top level, as people do in DMs, not in
    its thread: the answer started a new research and the first waited for ever. A top-level DM
    message from the person whose research waits there answers it (the latest, when several wait);
    help and status stay commands; once none waits, a top-level message starts a new research."""
    # two wait in the DM: a top-level question, then a follow-up in the thread of a finished research
    done, _ = bot.message("EU heat-pump market size and growth 2024", channel=DM, channel_type="im")
    wait_status(fake_slack, f"slack:{TEAM}:{DM}:{done}", "done")
    fake_slack.wait_for(lambda: fake_slack.calls_to("files.completeUploadExternal"), what="the first report's files")
    first = _paused_in_dm(bot, fake_slack, "heat pumps")
    posts = len(bot_posts(fake_slack, DM, done))
    bot.message("solar panels", channel=DM, channel_type="im", thread_ts=done)
    wait_status(fake_slack, f"slack:{TEAM}:{DM}:{done}", "paused")
    fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, DM, done)[posts:][-1:] if "?" in m["text"]],
                        what="the follow-up's clarifying question")
    second = done
    # a command word at top level is the command, never the answer
    posts = len(fake_slack.messages(DM))
    status_ts, _ = bot.message("status", channel=DM, channel_type="im")
    [listing] = fake_slack.wait_for(lambda: bot_posts(fake_slack, DM, status_ts), what="the status listing")
    assert listing["text"].count("waiting for your answer") == 2, listing["text"]
    assert thread_status(f"slack:{TEAM}:{DM}:{first}") == thread_status(f"slack:{TEAM}:{DM}:{second}") == "paused"
    assert len(research.calls) == 3 and len(fake_slack.messages(DM)) == posts + 1  # the listing alone
    help_ts, _ = bot.message("help", channel=DM, channel_type="im")
    [helped] = fake_slack.wait_for(lambda: bot_posts(fake_slack, DM, help_ts), what="the help text")
    assert "your next message outside its thread answers it" in helped["text"], helped["text"]

    # the answer at top level resumes the research asked last, in that research's thread
    answer, _ = bot.message("EU residential market size and growth in 2024", channel=DM, channel_type="im")
    fake_slack.wait_for(lambda: len(research.calls) == 4, what="the resume turn")
    assert research.calls[3]["thread_id"] == f"slack:{TEAM}:{DM}:{second}"
    assert research.calls[3]["answer"] == "EU residential market size and growth in 2024"
    wait_status(fake_slack, f"slack:{TEAM}:{DM}:{second}", "done")
    assert thread_status(f"slack:{TEAM}:{DM}:{answer}") is None  # no research of its own
    assert bot_posts(fake_slack, DM, answer) == []  # the reply, status and summary are in the research's thread
    assert any(m["text"] == texts.ANSWERED_TEXT for m in bot_posts(fake_slack, DM, second))
    assert any(c.params.get("timestamp") == answer for c in fake_slack.calls_to("reactions.add"))
    # said in that thread and at top level (all Alice saw there was the :eyes:): her message was taken
    # as the answer, and how to ask something new instead
    [taken] = [c.params for c in fake_slack.calls_to("chat.postMessage") if c.params.get("reply_broadcast")]
    assert taken["thread_ts"] == second and taken["channel"] == DM
    assert taken["text"].startswith("Taken as your answer to the clarifying question in this thread"), taken
    assert "`cancel`" in taken["text"]

    # the next top-level message answers the one still waiting
    bot.message("Residential heat pumps in Germany since 2020", channel=DM, channel_type="im")
    fake_slack.wait_for(lambda: len(research.calls) == 5, what="the second resume turn")
    assert research.calls[4]["thread_id"] == f"slack:{TEAM}:{DM}:{first}"
    wait_status(fake_slack, f"slack:{TEAM}:{DM}:{first}", "done")
    broadcasts = [c.params for c in fake_slack.calls_to("chat.postMessage") if c.params.get("reply_broadcast")]
    assert [b["thread_ts"] for b in broadcasts] == [second, first]

    # none waits: a top-level message is a new research in its own thread
    new, _ = bot.message("EU heat-pump market size and growth 2024", channel=DM, channel_type="im")
    wait_status(fake_slack, f"slack:{TEAM}:{DM}:{new}", "done")
    assert research.calls[5]["question"] == "EU heat-pump market size and growth 2024"
    runner_idle()


def test_a_top_level_direct_message_answers_only_its_senders_research_waiting_in_that_direct_message(
        bot, fake_slack, research):
    """Alice's research waiting in a channel, and Bob's waiting in his DM, take no answer from Alice's
    top-level DM message: it starts her new research. ``cancel`` at top level cancels the one waiting
    in that DM (it is never an answer)."""
    bot.command("heat pumps")  # waits in the channel
    root = _root_of_command(fake_slack)
    wait_status(fake_slack, f"slack:{TEAM}:{CHANNEL}:{root}", "paused")
    bob_ts, _ = bot.message("solar panels", user=BOB, channel="D0BOB", channel_type="im")
    wait_status(fake_slack, f"slack:{TEAM}:D0BOB:{bob_ts}", "paused")
    ts, _ = bot.message("wind turbines", channel=DM, channel_type="im")
    wait_status(fake_slack, f"slack:{TEAM}:{DM}:{ts}", "paused")
    assert [c["thread_id"] for c in research.calls] == [
        f"slack:{TEAM}:{CHANNEL}:{root}", f"slack:{TEAM}:D0BOB:{bob_ts}", f"slack:{TEAM}:{DM}:{ts}"]
    fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, DM, ts)[-1:] if "?" in m["text"]],
                        what="the clarifying question")
    cancel, _ = bot.message("cancel", channel=DM, channel_type="im")
    wait_status(fake_slack, f"slack:{TEAM}:{DM}:{ts}", "cancelled")
    fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, DM, ts) if m["text"].startswith("Cancelled. Ask")],
                        what="the cancellation reply in the research's thread")
    [said] = [c.params for c in fake_slack.calls_to("chat.postMessage") if c.params["text"].startswith("Cancelled. Ask")]
    assert said["thread_ts"] == ts and said.get("reply_broadcast") is True  # seen at top level, where it was written
    assert thread_status(f"slack:{TEAM}:{CHANNEL}:{root}") == thread_status(f"slack:{TEAM}:D0BOB:{bob_ts}") == "paused"
    assert thread_status(f"slack:{TEAM}:{DM}:{cancel}") is None and len(research.calls) == 3


def test_a_top_level_cancel_in_a_direct_message_stops_the_research_running_there(bot, fake_slack, research):
    """Alice's DM research was running (no clarifying question) and she wrote ``cancel`` at top level,
    as people do in a DM: she was told "Nothing is running in this thread" and the research went on.
    A top-level ``cancel`` in a DM stops her research running there, not Bob's in his DM; with none
    open it still says nothing is running."""
    research.gate.clear()
    try:
        bob_ts, _ = bot.message("EU heat-pump market size and growth 2024", user=BOB, channel="D0BOB",
                                channel_type="im")
        ts, _ = bot.message("EU heat-pump market size and growth 2024", channel=DM, channel_type="im")
        fake_slack.wait_for(lambda: len(research.calls) == 2, what="two researches running")
        assert thread_status(f"slack:{TEAM}:{DM}:{ts}") == "running"
        cancel, _ = bot.message("cancel", channel=DM, channel_type="im")
        wait_status(fake_slack, f"slack:{TEAM}:{DM}:{ts}", "cancelled")
        assert thread_status(f"slack:{TEAM}:{DM}:{cancel}") is None
        # the job edits the status message far up in the research's thread: the cancel shows it was seen
        fake_slack.wait_for(lambda: [c for c in fake_slack.calls_to("reactions.add")
                                     if c.params.get("timestamp") == cancel], what="the cancel's reaction")
        assert thread_status(f"slack:{TEAM}:D0BOB:{bob_ts}") == "running"
        assert not [m for m in fake_slack.messages(DM) if m["text"].startswith("Nothing is running")]
    finally:
        research.gate.set()
    wait_status(fake_slack, f"slack:{TEAM}:D0BOB:{bob_ts}", "done")
    again, _ = bot.message("cancel", channel=DM, channel_type="im")
    [said] = fake_slack.wait_for(lambda: bot_posts(fake_slack, DM, again), what="the answer to a cancel with none open")
    assert said["text"].startswith("Nothing is running"), said
    runner_idle()


def test_a_cancel_word_of_the_question_s_language_cancels_the_research_waiting_in_a_direct_message(
        bot, fake_slack, research):
    """A German user whose research waited for an answer in her DM wrote "Abbrechen" at top level: only
    the English words cancelled, so it was taken as her answer and the research went on. The cancel
    words of each language the bot speaks cancel, and are never an answer."""
    ts = _paused_in_dm(bot, fake_slack, "Wärmepumpen")
    cancel, _ = bot.message("Abbrechen!", channel=DM, channel_type="im")
    wait_status(fake_slack, f"slack:{TEAM}:{DM}:{ts}", "cancelled")
    assert len(research.calls) == 1 and "answer" not in research.calls[0]
    assert thread_status(f"slack:{TEAM}:{DM}:{cancel}") is None
    runner_idle()
