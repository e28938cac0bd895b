"""Files shared in a Slack thread, and its discussion, become sources and context of the research."""

from __future__ import annotations

import asyncio
import logging
import re
import urllib.error
import urllib.request

import pytest

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
from tests.shared_files import docx_bytes, encrypted_pdf_bytes, pdf_bytes, zip_bomb_docx_bytes
from tests.waiting import wait_logged

PAGES = ["The Zephyr turbine delivers fourteen megawatts of rated power at coastal sites.",
         "Maintenance costs of the Zephyr turbine fall by thirty percent thanks to its modular gearbox."]
QUESTION = "<@U0BOT> what maintenance costs does the Zephyr turbine have, and what does one unit cost?"


def _ask(bot, fake, root: str, text: str = QUESTION) -> str:
    ts = fake.add_message(CHANNEL, text, user=ALICE, thread_ts=root)
    event = {"type": "app_mention", "channel": CHANNEL, "user": ALICE, "text": text, "ts": ts, "team": TEAM}
    if ts != root:
        event["thread_ts"] = root
    assert bot.event(event)[0] == 200
    return ts


def _report(fake, root: str) -> str:
    wait_status(fake, f"slack:{TEAM}:{CHANNEL}:{root}", "done", "failed")
    fake.wait_for(lambda: any(m.get("files") for m in bot_posts(fake, CHANNEL, root)), what="report files")
    [md] = [u for u in fake.uploads.values() if u["filename"] == "report.md"]
    return md["data"].decode()


def _brief(root: str) -> str:
    from engine.checkpoints import open_checkpointer
    from engine.graph.build import graph_builder
    from engine.settings import load_settings

    async def read() -> str:
        async with open_checkpointer(load_settings()) as saver:
            graph = graph_builder().compile(checkpointer=saver)
            state = await graph.aget_state({"configurable": {"thread_id": f"slack:{TEAM}:{CHANNEL}:{root}"}})
            return state.values["research_brief"]

    return asyncio.run(read())


def test_files_shared_in_the_thread_are_cited_with_links_to_their_messages(bot, fake_slack):
    fake_slack.users[BOB] = "Bob Builder"
    root = fake_slack.add_message(CHANNEL, "Vendor pitch for the Zephyr turbine, files below", user=BOB)
    fake_slack.add_message(CHANNEL, "Their sales rep said the Zephyr warranty lasts twelve years.", user=BOB,
                           thread_ts=root)
    pdf = fake_slack.share_file(CHANNEL, "zephyr.pdf", pdf_bytes(PAGES), user=BOB, thread_ts=root)
    doc = fake_slack.share_file(CHANNEL, "pricing.docx", docx_bytes([(
        "Pricing", "The Zephyr turbine costs two million euros per unit before any subsidy is applied.")]),
        user=BOB, thread_ts=root)
    fake_slack.add_message(CHANNEL, "Bob, is that warranty in writing?", user=ALICE, thread_ts=root)
    _ask(bot, fake_slack, root)
    report = _report(fake_slack, root)
    assert "thirty percent" in report and "two million euros" in report, report
    pdf_link = f"https://fake-team.slack.com/archives/{CHANNEL}/p{pdf['ts'].replace('.', '')}"
    doc_link = f"https://fake-team.slack.com/archives/{CHANNEL}/p{doc['ts'].replace('.', '')}"
    assert f"[zephyr.pdf, page 2](<{pdf_link}#page=2>)" in report, report
    assert re.search(rf"\[pricing\.docx, section: Pricing\]\(<{re.escape(doc_link)}#section=\d+>\)", report), report
    downloads = fake_slack.calls_to("file_download")
    assert len(downloads) == 2 and all(c.headers["authorization"] == f"Bearer {fake_slack.token}" for c in downloads)
    # the discussion: named people, as context of the brief, and the report says it used it
    assert "Bob Builder: Their sales rep said the Zephyr warranty lasts twelve years." in _brief(root)
    assert "earlier discussion (3 messages)" in report, report
    assert sorted(c.params["user"] for c in fake_slack.calls_to("users.info")) == [ALICE, BOB]  # Bob's name once
    shown = [c.params.get("text", "") for c in fake_slack.calls_to("chat.update") + fake_slack.calls_to("chat.postMessage")]
    assert any("2 files read" in text for text in shown), shown
    # a follow-up in the same thread searches the same files without fetching them again
    _ask(bot, fake_slack, root, text="<@U0BOT> how much power does the Zephyr turbine deliver at coastal sites?")
    fake_slack.wait_for(lambda: len([u for u in fake_slack.uploads.values() if u["filename"] == "report.md"
                                     and u["data"] is not None]) == 2, what="the follow-up's report")
    follow_up = [u for u in fake_slack.uploads.values() if u["filename"] == "report.md"][-1]["data"].decode()
    assert "fourteen megawatts" in follow_up and "zephyr.pdf, page 1" in follow_up, follow_up
    assert len(fake_slack.calls_to("file_download")) == 2


def test_unreadable_files_are_skipped_with_a_reason_and_the_research_still_runs(bot, fake_slack):
    root = fake_slack.add_message(CHANNEL, "Zephyr documents", user=BOB)
    fake_slack.share_file(CHANNEL, "zephyr.pdf", pdf_bytes(PAGES), user=BOB, thread_ts=root)
    fake_slack.share_file(CHANNEL, "locked.pdf", encrypted_pdf_bytes("hidden"), user=BOB, thread_ts=root)
    fake_slack.share_file(CHANNEL, "scan.pdf", pdf_bytes([""]), user=BOB, thread_ts=root)
    fake_slack.share_file(CHANNEL, "bomb.docx", zip_bomb_docx_bytes(20), user=BOB, thread_ts=root)
    fake_slack.share_file(CHANNEL, "other.pdf", pdf_bytes(["Secret plans of another team."]), user=BOB,
                          thread_ts=root, shared_in="C0ELSEWHERE")
    _ask(bot, fake_slack, root)
    report = _report(fake_slack, root)
    assert "thirty percent" in report and "Secret plans" not in report, report
    from engine.files import load_manifest
    from engine.settings import load_settings

    reasons = {e.name: e.reason for e in load_manifest(load_settings(), f"slack:{TEAM}:{CHANNEL}:{root}")}
    assert reasons == {
        "zephyr.pdf": "", "locked.pdf": "encrypted PDF (password protected)",
        "scan.pdf": "scanned PDF without a text layer",
        "bomb.docx": "DOCX part expanding over 100 times (possible zip bomb)",
        "other.pdf": "shared in another conversation, not in this thread",
    }
    # the file of another conversation was never downloaded
    assert len(fake_slack.calls_to("file_download")) == 4


def test_a_file_on_the_question_itself_is_read_and_a_new_thread_has_no_discussion(bot, fake_slack):
    message = fake_slack.share_file(CHANNEL, "zephyr.pdf", pdf_bytes(PAGES), user=ALICE, text=QUESTION)
    event = {"type": "app_mention", "channel": CHANNEL, "user": ALICE, "text": QUESTION, "ts": message["ts"],
             "team": TEAM, "files": message["files"]}
    assert bot.event(event)[0] == 200
    report = _report(fake_slack, message["ts"])
    assert "zephyr.pdf, page 2" in report and "thirty percent" in report, report
    assert "earlier discussion" not in report and fake_slack.calls_to("users.info") == []


def test_the_files_of_the_asking_message_are_read_even_when_the_thread_cannot_be(bot, fake_slack):
    fake_slack.fail("conversations.replies", "missing_scope")
    message = fake_slack.share_file(CHANNEL, "zephyr.pdf", pdf_bytes(PAGES), user=ALICE, text=QUESTION)
    event = {"type": "message", "subtype": "file_share", "channel": CHANNEL, "user": ALICE, "text": QUESTION,
             "ts": message["ts"], "team": TEAM, "channel_type": "channel", "files": [
                 {"id": message["files"][0]["id"]}]}  # Slack's events may carry a file's id only
    assert bot.event(event)[0] == 200
    report = _report(fake_slack, message["ts"])
    assert "zephyr.pdf, page 2" in report, report
    assert [c.params["file"] for c in fake_slack.calls_to("files.info")] == [message["files"][0]["id"]]


def test_the_fake_serves_a_shared_file_only_with_the_bot_token(fake_slack):
    message = fake_slack.share_file(CHANNEL, "a.txt", b"hello", user=BOB)
    url = message["files"][0]["url_private_download"]
    try:
        urllib.request.urlopen(url, timeout=10)
        raise AssertionError("downloaded without a token")
    except urllib.error.HTTPError as err:
        assert err.code == 403
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {fake_slack.token}"})
    assert urllib.request.urlopen(request, timeout=10).read() == b"hello"


def test_a_long_thread_is_read_page_by_page_up_to_the_cap(fake_slack, monkeypatch):
    from slack_sdk import WebClient

    from bots.slack import shared

    root = fake_slack.add_message(CHANNEL, "reply 0", user=BOB)
    for i in range(1, 450):
        fake_slack.add_message(CHANNEL, f"reply {i}", user=BOB, thread_ts=root)
    client = WebClient(token=fake_slack.token, base_url=fake_slack.base_url)
    texts = [m["text"] for m in shared._replies(client, CHANNEL, root)]
    assert texts == [f"reply {i}" for i in range(450)]  # three pages of 200, in order, none twice
    assert len(fake_slack.calls_to("conversations.replies")) == 3
    monkeypatch.setattr(shared, "MAX_THREAD_MESSAGES", 250)
    assert len(shared._replies(client, CHANNEL, root)) == 250  # stops after the page that reaches the cap
    assert len(fake_slack.calls_to("conversations.replies")) == 5


def _dm_with_only(bot, fake_slack, name: str, data: bytes) -> str:
    """Alice's DM carrying only the file ``name`` (``data``), sent as Slack sends it: the text of
    the bot's one answer in the DM, once the turn runner is idle."""
    message = fake_slack.share_file("D0ALICE", name, data, user=ALICE)
    event = {"type": "message", "subtype": "file_share", "channel": "D0ALICE", "channel_type": "im",
             "user": ALICE, "text": "", "ts": message["ts"], "team": TEAM, "files": message["files"]}
    assert bot.event(event)[0] == 200
    [said] = fake_slack.wait_for(lambda: bot_posts(fake_slack, "D0ALICE", message["ts"]), what="the bot's answer")
    runner_idle()
    return said["text"]


def test_a_direct_message_with_only_a_file_is_acknowledged_not_answered_with_the_help(bot, fake_slack, research):
    """Teams reads a personal chat's file sent alone and says so ("Read notes.txt. Send your
    question..."); a Slack DM carrying only a file got the generic help text, which says nothing
    of the file."""
    said = _dm_with_only(bot, fake_slack, "notes.txt", b"Heat pumps in Denmark grew 30% in 2023.")
    assert research.calls == []
    assert "notes.txt" in said and "/research QUESTION" not in said, said


def _share_alone(bot, fake, channel: str, *, thread_ts: str, channel_type: str = "channel") -> dict:
    """Alice shares ``notes.txt`` in ``thread_ts`` with no words: the ``file_share`` event Slack sends."""
    message = fake.share_file(channel, "notes.txt", b"Heat pumps in Denmark grew 30% in 2023.", user=ALICE,
                              thread_ts=thread_ts)
    event = {"type": "message", "subtype": "file_share", "channel": channel, "channel_type": channel_type,
             "user": ALICE, "text": "", "ts": message["ts"], "team": TEAM, "files": message["files"],
             "thread_ts": thread_ts}
    assert bot.event(event)[0] == 200
    return message


def test_a_file_alone_as_the_answer_to_the_clarifying_question_gets_a_reply(bot, fake_slack, research, caplog):
    """The requester answers the clarifying question with a file and no words: the question stays
    open (no second research turn) and the thread says the file is read with the research and asks
    for the answer in words, instead of silence."""
    caplog.set_level(logging.INFO, logger="bots.slack.handlers")
    root, _ = bot.message("<@U0BOT> heat pumps")
    thread_id = f"slack:{TEAM}:{CHANNEL}:{root}"
    wait_status(fake_slack, thread_id, "paused")
    fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, CHANNEL, root)[-1:] if "?" in m["text"]],
                        what="the clarifying question")
    posts, notes = len(bot_posts(fake_slack, CHANNEL, root)), len(fake_slack.calls_to("chat.postEphemeral"))
    message = _share_alone(bot, fake_slack, CHANNEL, thread_ts=root)
    wait_logged(caplog, "event=slack_turn", f"thread={thread_id}", message["ts"])

    def said() -> list[str]:  # the reply is posted after the rules' decision is logged
        return ([m["text"] for m in bot_posts(fake_slack, CHANNEL, root)[posts:]]
                + [c.params["text"] for c in fake_slack.calls_to("chat.postEphemeral")[notes:]])

    fake_slack.wait_for(said, what="a word in the thread for the file-only answer")
    runner_idle()
    assert thread_status(thread_id) == "paused" and len(research.calls) == 1
    assert [t for t in said() if "in words" in t and "cancel" in t], said()


def _mention_with_file(bot, fake, name: str = "notes.txt", *, text: str = "<@U0BOT>", thread_ts: str | None = None,
                       kind: str = "message", user: str = ALICE,
                       data: bytes = b"Heat pumps in Denmark grew 30% in 2023.") -> dict:
    """``user`` mentions the bot in the channel with ``text`` and one file ``name`` (the event Slack
    sends: a ``file_share`` message, or its ``app_mention`` twin, both carrying the files)."""
    message = fake.share_file(CHANNEL, name, data, user=user, text=text, thread_ts=thread_ts)
    event = {"type": kind, "channel": CHANNEL, "user": user, "text": text, "ts": message["ts"], "team": TEAM,
             "files": message["files"]}
    if kind == "message":
        event.update(subtype="file_share", channel_type="channel")
    if thread_ts:
        event["thread_ts"] = thread_ts
    assert bot.event(event)[0] == 200
    return message


def _said_after(fake, root: str, posts: int) -> list[str]:
    """What the bot posted in the thread ``root`` after its first ``posts`` messages there, and every
    ephemeral note (the help text is one)."""
    return ([m["text"] for m in bot_posts(fake, CHANNEL, root)[posts:]]
            + [c.params["text"] for c in fake.calls_to("chat.postEphemeral")])


@pytest.mark.parametrize(("text", "kind"), [("<@U0BOT>", "message"), ("<@U0BOT>   ", "app_mention"),
                                            ("<@U0BOT> :wave:", "message")])
def test_a_channel_mention_with_only_a_file_is_acknowledged_in_its_thread(bot, fake_slack, research, text, kind):
    """A mention carrying only a file (or blanks, or an emoji) got the private help text; it is
    acknowledged in the message's thread as a direct message is, naming the file and saying to
    mention the bot there with the question; nothing starts."""
    message = _mention_with_file(bot, fake_slack, text=text, kind=kind)
    [said] = fake_slack.wait_for(lambda: bot_posts(fake_slack, CHANNEL, message["ts"]), what="the bot's answer")
    runner_idle()
    assert research.calls == [] and thread_status(f"slack:{TEAM}:{CHANNEL}:{message['ts']}") is None
    assert fake_slack.calls_to("chat.postEphemeral") == []
    assert "notes.txt" in said["text"] and "mention me" in said["text"].lower(), said["text"]


def test_a_file_acknowledged_in_a_channel_is_a_source_of_the_question_asked_next_in_its_thread(bot, fake_slack):
    message = _mention_with_file(bot, fake_slack, "zephyr.pdf", data=pdf_bytes(PAGES))
    fake_slack.wait_for(lambda: bot_posts(fake_slack, CHANNEL, message["ts"]), what="the acknowledgement")
    _ask(bot, fake_slack, message["ts"])
    report = _report(fake_slack, message["ts"])
    assert "zephyr.pdf, page 2" in report and "thirty percent" in report, report
    assert len(fake_slack.calls_to("file_download")) == 1


def test_a_mention_with_only_a_file_is_no_line_of_the_discussion_the_next_question_reads(bot, fake_slack):
    """The mention that opened the thread with only a file said nothing but the bot's name: the
    discussion handed to the research has the people's words, not "Alice: @Deep Research"."""
    fake_slack.users[BOB] = "Bob Builder"
    message = _mention_with_file(bot, fake_slack, "zephyr.pdf", data=pdf_bytes(PAGES))
    fake_slack.wait_for(lambda: bot_posts(fake_slack, CHANNEL, message["ts"]), what="the acknowledgement")
    fake_slack.add_message(CHANNEL, "That is the vendor's datasheet.", user=BOB, thread_ts=message["ts"])
    _ask(bot, fake_slack, message["ts"])
    report = _report(fake_slack, message["ts"])
    brief = _brief(message["ts"])
    assert "Bob Builder: That is the vendor's datasheet." in brief, brief
    assert "U0BOT" not in brief and f"{ALICE}:" not in brief, brief
    assert "earlier discussion (1 message)" in report, report


def test_a_mention_with_only_a_file_in_a_finished_thread_is_acknowledged_and_starts_nothing(bot, fake_slack, research):
    root = fake_slack.add_message(CHANNEL, "Zephyr", user=BOB)
    _ask(bot, fake_slack, root)
    thread_id = f"slack:{TEAM}:{CHANNEL}:{root}"
    wait_status(fake_slack, thread_id, "done")
    runner_idle()
    posts = len(bot_posts(fake_slack, CHANNEL, root))
    _mention_with_file(bot, fake_slack, thread_ts=root, user=BOB)
    fake_slack.wait_for(lambda: _said_after(fake_slack, root, posts), what="the bot's answer")
    runner_idle()
    [said] = _said_after(fake_slack, root, posts)
    assert len(research.calls) == 1 and thread_status(thread_id) == "done"
    assert "notes.txt" in said and "mention me" in said.lower(), said


@pytest.mark.parametrize("mention", ["<@U0BOT>", ""])
def test_a_file_alone_while_the_research_runs_is_kept_for_the_next_question(bot, fake_slack, research, mention):
    """The requester's file alone (a mention or a plain reply) while the thread's research runs
    starts no second research and is not lost: the bot says it is a source of the next question
    in the thread, and that question reads it."""
    root = fake_slack.add_message(CHANNEL, "Zephyr", user=BOB)
    thread_id = f"slack:{TEAM}:{CHANNEL}:{root}"
    research.gate.clear()
    _ask(bot, fake_slack, root)
    fake_slack.wait_for(lambda: research.calls, what="the research to run")
    posts = len(bot_posts(fake_slack, CHANNEL, root))
    message = fake_slack.share_file(CHANNEL, "zephyr.pdf", pdf_bytes(PAGES), user=ALICE, text=mention,
                                    thread_ts=root)
    assert bot.event({"type": "message", "subtype": "file_share", "channel": CHANNEL, "channel_type": "channel",
                      "user": ALICE, "text": mention, "ts": message["ts"], "thread_ts": root, "team": TEAM,
                      "files": message["files"]})[0] == 200
    fake_slack.wait_for(lambda: [t for t in _said_after(fake_slack, root, posts) if "zephyr.pdf" in t],
                        what="the bot's answer")
    [said] = _said_after(fake_slack, root, posts)
    assert "next question" in said and "still working" not in said.lower(), said
    research.gate.set()
    wait_status(fake_slack, thread_id, "done")
    runner_idle()
    assert len(research.calls) == 1 and fake_slack.calls_to("file_download") == []
    _ask(bot, fake_slack, root, text="<@U0BOT> how much power does the Zephyr turbine deliver at coastal sites?")
    fake_slack.wait_for(lambda: len(research.calls) == 2 and thread_status(thread_id) == "done",
                        what="the next research")
    assert len(fake_slack.calls_to("file_download")) == 1


def test_a_file_alone_in_a_direct_message_while_its_research_runs_is_kept_for_the_next_question(
        bot, fake_slack, research):
    research.gate.clear()
    root, _ = bot.message(QUESTION.replace("<@U0BOT> ", ""), channel="D0ALICE", channel_type="im")
    fake_slack.wait_for(lambda: research.calls, what="the research to run")
    message = _share_alone(bot, fake_slack, "D0ALICE", thread_ts=root, channel_type="im")
    fake_slack.wait_for(lambda: [m for m in bot_posts(fake_slack, "D0ALICE", root) if "notes.txt" in m["text"]],
                        what="the bot's answer")
    said = [m["text"] for m in bot_posts(fake_slack, "D0ALICE", root) if "notes.txt" in m["text"]]
    research.gate.set()
    runner_idle()
    assert len(research.calls) == 1 and message["ts"]
    assert "next question" in said[0], said


def test_a_direct_message_with_only_an_unreadable_file_says_it_cannot_be_read(bot, fake_slack, research):
    """A file whose type is not read (``tool.exe``) is not promised as a source."""
    said = _dm_with_only(bot, fake_slack, "tool.exe", b"MZ\x90\x00")
    assert research.calls == []
    assert "tool.exe" in said and "unsupported type (.exe)" in said and "I'll use" not in said, said
