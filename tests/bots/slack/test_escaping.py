"""What reaches Slack from research text: escaped, verbatim, no mention or link the bot did not mean."""

from __future__ import annotations

import json
import zipfile

import pytest

from bots.slack.client import make_client
from bots.slack.mrkdwn import markdown_to_mrkdwn, slack_to_text
from bots.slack.port import SlackPort

ROOT = "1700000000.000100"
QUESTION_ECHO = (
    "You asked: *compare @channel, @here and <!channel> and <@U0BOB>* — "
    "use List<String> or Vec<u8>, a < b && c > d, <!everyone> <!here|@here> <!subteam^S1|@team>."
)


@pytest.fixture
def port(slack_env, fake_slack) -> SlackPort:
    return SlackPort(make_client(), channel="C0RESEARCH", thread_ts=ROOT, team="T0TEAM")


def _unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def test_posted_blocks_are_verbatim_and_make_no_mention_or_link(port, fake_slack):
    port.post(QUESTION_ECHO)
    [call] = fake_slack.calls_to("chat.postMessage")
    assert call.params["parse"] == "none"
    [message] = fake_slack.messages("C0RESEARCH")
    for block in message["blocks"]:
        assert block["text"]["type"] == "mrkdwn" and block["text"]["verbatim"] is True
    for text in [message["text"], *(b["text"]["text"] for b in message["blocks"])]:
        assert "<" not in text and ">" not in text  # every one of them is &lt; / &gt;
        shown = _unescape(text)
        for words in ("List<String>", "Vec<u8>", "a < b && c > d", "<!channel>", "<@U0BOB>", "<!everyone>",
                      "@channel", "!here|@here", "!subteam^S1|@team"):
            assert words in shown


def test_update_is_escaped_and_verbatim_too(port, fake_slack):
    ts = port.post("Starting")
    port.update(ts, "Researching List<String> for <!here>")
    [call] = fake_slack.calls_to("chat.update")
    blocks = call.params["blocks"]
    [block] = json.loads(blocks) if isinstance(blocks, str) else blocks
    assert block["text"]["verbatim"] is True
    assert block["text"]["text"] == "Researching List&lt;String&gt; for &lt;!here&gt;"


def test_an_autolink_shows_its_whole_address():
    out = markdown_to_mrkdwn("<https://evil.test|click>")
    assert out == "<https://evil.test%7Cclick|https://evil.test|click>"  # Slack cuts at the first "|"


def test_bare_urls_stay_links_without_slacks_own_parsing():
    out = markdown_to_mrkdwn("See https://example.com/a_b_(c)?q=1%202#x_y, then stop.")
    assert out == "See <https://example.com/a_b_(c)?q=1%202#x_y>, then stop."
    assert markdown_to_mrkdwn("Voir https://fr.wikipedia.org/wiki/Éole.") == (
        "Voir <https://fr.wikipedia.org/wiki/%C3%89ole|https://fr.wikipedia.org/wiki/Éole>."
    )


def test_link_definitions_are_kept_as_text():
    out = markdown_to_mrkdwn("Sources:\n\n[1]: https://a.test/x\n\n```\n[2]: in code\n```")
    assert "[1]: <https://a.test/x>" in out and "[2]: in code" in out


def test_special_mentions_read_back_without_a_doubled_at():
    assert slack_to_text("<!channel|@channel> and <!here> and <!subteam^S1|@research-team> ask") == (
        "@channel and @here and @research-team ask"
    )
    assert slack_to_text("<@U0BOT> ask <@U0BOB|bob> in <#C1|general>", bot_user_id="U0BOT") == (
        "ask @bob in #general"
    )


def test_upload_delivers_the_word_document(port, fake_slack, tmp_path):
    files = [tmp_path / "report.md", tmp_path / "report.pdf", tmp_path / "report.docx"]
    files[0].write_text("# Report\n", encoding="utf-8")
    files[1].write_bytes(b"%PDF-1.5\n%fake\n")
    with zipfile.ZipFile(files[2], "w") as docx:
        docx.writestr("[Content_Types].xml", "<Types/>")
        docx.writestr("word/document.xml", "<w:document/>")
    port.upload(files, comment="The report as Markdown, PDF and Word.")
    names = [c.params["filename"] for c in fake_slack.calls_to("files.getUploadURLExternal")]
    assert names == ["report.md", "report.pdf", "report.docx"]
    uploaded = {fake_slack.uploads[f]["filename"]: fake_slack.uploads[f]["data"] for f in fake_slack.uploads}
    assert uploaded["report.docx"] == files[2].read_bytes()
    [shared] = fake_slack.thread("C0RESEARCH", ROOT)
    assert [f["name"] for f in shared["files"]] == names


def test_literal_markers_do_not_format_but_identifiers_stay_clean():
    out = markdown_to_mrkdwn(r"\*not bold\* and 2 * 3 but snake_case_names and **bold**")
    joiner = "\u2060"
    assert out == f"{joiner}*not bold*{joiner} and 2 {joiner}*{joiner} 3 but snake_case_names and *bold*"
    # a span that holds its own marker is its words (Slack would end it at the first one)
    assert markdown_to_mrkdwn(r"**\*x\*** and _a\_b_") == f"{joiner}*x*{joiner} and a_b"


@pytest.mark.parametrize("question", [
    "why do _private_ names and a*b*c differ?",
    "is snake_case or *stars* or ~tilde~ better?",
    "what does ~/.config/x_y hold_",
])
def test_the_commands_answer_shows_the_question_as_typed(bot, fake_slack, question):
    from tests.bots.chat_view import slack_shown
    from tests.bots.slack.conftest import CHANNEL, TEAM, runner_idle, wait_status

    status, answer = bot.command(question)
    assert status == 200 and answer["response_type"] == "ephemeral"
    assert question in slack_shown(answer["text"]), answer["text"]  # no marker of the question became formatting
    # the research the command started ends here, not in a later test's Slack
    [root] = fake_slack.wait_for(lambda: [m["ts"] for m in fake_slack.messages(CHANNEL) if m.get("thread_ts") is None],
                                 what="the command's root message")
    wait_status(fake_slack, f"slack:{TEAM}:{CHANNEL}:{root}", "done", "failed", "paused")
    runner_idle()
