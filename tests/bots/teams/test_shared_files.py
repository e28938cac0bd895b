"""Files shared with the bot in Teams: read and cited in a personal chat, named as unreadable in a channel."""

from __future__ import annotations

import jobs
from engine.files import load_manifest
from tests.bots.teams.activities import channel_mention, personal_message
from tests.bots.teams.test_conversation import _thread, _wait_status
from tests.shared_files import encrypted_pdf_bytes, pdf_bytes
from tests.waiting import wait_for

PAGES = ["The Zephyr turbine delivers fourteen megawatts of rated power at coastal sites.",
         "Maintenance costs of the Zephyr turbine fall by thirty percent thanks to its modular gearbox."]
QUESTION = "What maintenance costs does the Zephyr turbine have?"


def test_a_pdf_in_a_personal_chat_is_cited_by_page_with_its_onedrive_link(bot, connector, settings):
    message = personal_message(connector.url, QUESTION, conversation_id="a:personal-files")
    pdf = connector.file_attachment("zephyr.pdf", pdf_bytes(PAGES))
    message["attachments"] = [pdf, connector.file_attachment("locked.pdf", encrypted_pdf_bytes("hidden"))]
    assert bot.send(message).status_code in (200, 201)
    thread_id = _thread(message)
    info = _wait_status(settings, thread_id, ("done",))
    report = (info.report_dir / "report.md").read_text()
    assert "thirty percent" in report, report
    assert f"[zephyr.pdf, page 2](<{pdf['contentUrl']}#page=2>)" in report, report
    assert "download/" not in report  # the short-lived download URL is used once, never kept
    entries = {e.name: e.reason for e in load_manifest(settings, thread_id)}
    assert entries == {"zephyr.pdf": "", "locked.pdf": "encrypted PDF (password protected)"}
    assert "download/" not in (settings.data_dir / "threadfiles").joinpath(
        thread_id.replace(":", "_"), "files.json").read_text()
    shown = [c.text for c in connector.updates()] + [c.text for c in connector.messages("a:personal-files")]
    assert any("1 file read, 1 skipped: encrypted PDF" in text for text in shown), shown


def test_a_file_in_a_channel_is_named_as_unreadable_and_the_research_still_runs(bot, connector, settings):
    mention = channel_mention(connector.url, QUESTION)
    mention["attachments"] = [{"contentType": "reference", "name": "zephyr.pdf",
                               "contentUrl": "https://contoso.sharepoint.com/sites/team/Shared%20Documents/zephyr.pdf"}]
    bot.send(mention)
    conv = mention["conversation"]["id"]
    info = _wait_status(settings, _thread(mention), ("done",))
    texts = [m.text for m in connector.messages(conv)]
    assert any("can't read files shared in a Teams channel" in t and "Microsoft Graph" in t for t in texts), texts
    assert info.status == "done" and load_manifest(settings, _thread(mention)) == []
    assert jobs.thread_info(_thread(mention), settings=settings).report_dir is not None


def test_a_file_sent_alone_in_a_personal_chat_is_read_for_the_next_question(bot, connector, settings):
    conv = "a:personal-file-alone"
    alone = personal_message(connector.url, "", conversation_id=conv)
    alone["attachments"] = [connector.file_attachment("zephyr.pdf", pdf_bytes(PAGES))]
    assert bot.send(alone).status_code in (200, 201)
    said = connector.wait_for(lambda c: c.messages(conv), what="the answer to the file")[-1]
    assert "Read zephyr.pdf" in said.text and "question" in said.text, said.text  # not the help text
    assert [e.name for e in load_manifest(settings, _thread(alone))] == ["zephyr.pdf"]
    assert jobs.thread_info(_thread(alone), settings=settings) is None  # a file alone starts nothing
    again = personal_message(connector.url, "", conversation_id=conv)
    again["attachments"] = alone["attachments"]
    bot.send(again)
    said = connector.wait_for(lambda c: len(c.messages(conv)) == 2 and c.messages(conv), what="the second answer")[-1]
    assert "already" in said.text, said.text  # the same file again: said, not silence

    question = personal_message(connector.url, QUESTION, conversation_id=conv)
    bot.send(question)
    info = _wait_status(settings, _thread(question), ("done",))
    assert "thirty percent" in (info.report_dir / "report.md").read_text()


def test_a_skipped_file_sent_alone_is_named_with_its_reason_in_the_clients_language(bot, connector):
    """A German client (``locale`` de-DE) sends a locked PDF alone: the answer names it as skipped
    with the reason in German, not the English reason kept in the thread's list of files."""
    conv = "a:personal-file-alone-de"
    alone = personal_message(connector.url, "", conversation_id=conv)
    alone["locale"] = "de-DE"
    alone["attachments"] = [connector.file_attachment("gesperrt.pdf", encrypted_pdf_bytes("geheim"))]
    assert bot.send(alone).status_code in (200, 201)
    said = connector.wait_for(lambda c: c.messages(conv), what="the answer to the file")[-1]
    assert "gesperrt.pdf (verschlüsseltes PDF" in said.text, said.text
    assert "encrypted" not in said.text, said.text


def test_files_sent_alone_in_japanese_are_listed_as_japanese_writes_a_list(bot, connector):
    """A ja-JP client's two skipped files are listed with 、 and full-width brackets, not ", " and "( )"."""
    conv = "a:personal-file-alone-ja"
    alone = personal_message(connector.url, "", conversation_id=conv)
    alone["locale"] = "ja-JP"
    alone["attachments"] = [connector.file_attachment("一.pdf", encrypted_pdf_bytes("x")),
                            connector.file_attachment("二.pdf", encrypted_pdf_bytes("y"))]
    assert bot.send(alone).status_code in (200, 201)
    said = connector.wait_for(lambda c: c.messages(conv), what="the answer to the files")[-1]
    assert "一.pdf（" in said.text and "）、二.pdf（" in said.text, said.text


def test_a_file_sent_alone_while_the_research_runs_is_kept_for_the_next_question(bot, connector, settings, research):
    """As in Slack, a file alone while the chat's research runs starts nothing and is said to be a
    source of the next question (not "send your question here", which would only get "still working")."""
    conv = "a:personal-file-while-running"
    research.gate.clear()
    question = personal_message(connector.url, QUESTION, conversation_id=conv)
    bot.send(question)
    wait_for(lambda: research.calls, what="the research to run")
    said = len(connector.messages(conv))
    alone = personal_message(connector.url, "", conversation_id=conv)
    alone["attachments"] = [connector.file_attachment("zephyr.pdf", pdf_bytes(PAGES))]
    assert bot.send(alone).status_code in (200, 201)
    answer = connector.wait_for(lambda c: [m for m in c.messages(conv)[said:] if "zephyr.pdf" in (m.text or "")],
                                what="the answer to the file")[-1]
    research.gate.set()
    _wait_status(settings, _thread(question), ("done",))
    assert "next question" in answer.text and "Send your question" not in answer.text, answer.text
    assert len(research.calls) == 1


def test_a_file_sent_alone_while_the_clarifying_question_is_open_is_asked_to_be_answered_in_words(
        bot, connector, settings):
    """As in Slack, the rules decide first: a file alone is no answer to the open clarifying question,
    so the reply asks for words (not "send your question here"); the file is still read for the research."""
    conv = "a:personal-file-while-paused"
    question = personal_message(connector.url, "heat pumps", conversation_id=conv)
    bot.send(question)
    _wait_status(settings, _thread(question), ("paused",))
    connector.wait_for(lambda c: "?" in c.messages(conv)[-1].text, what="the clarifying question")
    said = len(connector.messages(conv))
    alone = personal_message(connector.url, "", conversation_id=conv)
    alone["attachments"] = [connector.file_attachment("zephyr.pdf", pdf_bytes(PAGES))]
    assert bot.send(alone).status_code in (200, 201)
    answer = connector.wait_for(lambda c: c.messages(conv)[said:], what="the answer to the file")[-1]
    assert "answer the question above in words" in answer.text, answer.text
    assert "Send your question" not in answer.text, answer.text
    assert jobs.thread_info(_thread(alone), settings=settings).status == "paused"
    assert [e.name for e in load_manifest(settings, _thread(alone))] == ["zephyr.pdf"]


def test_a_file_sent_alone_where_a_lost_research_is_still_marked_running_is_read_for_the_next_question(
        bot, connector, settings):
    """A research still marked running long after its job could have run (the worker died, the job is
    gone) counts as lost, as the rules count it: a file alone is read for the next question, not
    said to wait for a running research."""
    import time

    from jobs.conversation.rules import RuleSettings
    from jobs.store import get_store
    from jobs.threads import update_thread

    conv = "a:personal-file-lost-research"
    alone = personal_message(connector.url, "", conversation_id=conv)
    alone["attachments"] = [connector.file_attachment("zephyr.pdf", pdf_bytes(PAGES))]
    long_ago = time.time() - RuleSettings.from_settings(settings).stale_after - 60
    update_thread(get_store(settings), _thread(alone), lambda old: {
        "thread_id": _thread(alone), "status": "running", "requester": alone["from"]["id"],
        "question": QUESTION, "turn_id": "teams:lost-turn", "created_at": long_ago, "started_at": long_ago,
        "updated_at": long_ago})
    assert bot.send(alone).status_code in (200, 201)
    said = connector.wait_for(lambda c: c.messages(conv), what="the answer to the file")[-1]
    assert "Read zephyr.pdf" in said.text and "running" not in said.text, said.text
