"""Chat renderings lose nothing and inject nothing: every word of a report text reaches Slack and Teams.

Each text of the corpus (and Markdown that Hypothesis builds from the same pieces) is rendered as
Slack blocks and as a Teams message; the words a reader sees there (:mod:`tests.bots.chat_view`)
must be the words of the Markdown, in order, and the output must hold no mention, broadcast,
link or HTML that the text did not write as Markdown.
"""

from __future__ import annotations

import difflib
import re

import pytest
from botbuilder.schema import Activity
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from slack_sdk import WebClient

from bots.slack.blocks import markdown_messages
from bots.slack.port import SlackPort
from bots.teams import port as teams_port
from bots.teams.markdown import to_teams_markdown
from bots.teams.port import TeamsPort
from engine.graph.run import summary_markdown
from engine.settings import load_settings
from tests.bots.chat_view import markdown_shown, slack_shown, teams_parse, teams_shown
from tests.bots.render_corpus import CORPUS
from tests.bots.teams.activities import personal_message
from tests.fakes.bot_connector import FakeBotConnector
from tests.fakes.slack_api import FakeSlackAPI

# the tags a Teams message may hold, all written by the renderer itself
TEAMS_TAGS = {"p", "strong", "em", "s", "del", "code", "pre", "a", "ul", "ol", "li", "blockquote",
              "h1", "h2", "h3", "br", "hr", "img"}
_OWN_TAG = re.compile(r"</?(?:code|pre)>")
_SLACK_ANGLE = re.compile(r"<(?!(?:https?://|mailto:)[^<>]*>)")


def _words(text: str) -> list[str]:
    return re.findall(r"\w+|[^\w\s]", text)


def assert_same_words(expected: str, shown: str, what: str) -> None:
    """Fail with a word diff unless ``shown`` has exactly the words and signs of ``expected``."""
    want, got = _words(expected), _words(shown)
    if want != got:
        diff = "\n".join(difflib.unified_diff(want, got, "markdown", what, lineterm="", n=2))
        raise AssertionError(f"{what} changed the words:\n{diff}")


def slack_text(markdown: str) -> tuple[list[str], list[str]]:
    """Every mrkdwn text of the Slack messages for ``markdown`` (block texts; fallback texts last)."""
    messages = markdown_messages(markdown)
    return [b["text"]["text"] for m in messages for b in m.blocks], [m.text for m in messages]


def check_slack(markdown: str) -> None:
    blocks, fallbacks = slack_text(markdown)
    for text in [*blocks, *fallbacks]:
        assert "<!" not in text and "<@" not in text and "<#" not in text, text
        assert not _SLACK_ANGLE.search(text), f"a raw '<' that is not a link: {text!r}"
    assert_same_words(markdown_shown(markdown), slack_shown("\n\n".join(blocks)), "slack")


def check_teams(markdown: str) -> None:
    message = to_teams_markdown(markdown)
    assert "<at" not in message.lower()
    assert not re.search("<", _OWN_TAG.sub("", message)), f"a raw '<' in Teams text: {message!r}"
    _, tags = teams_parse(message)
    assert set(tags) <= TEAMS_TAGS, set(tags) - TEAMS_TAGS
    assert_same_words(markdown_shown(markdown), teams_shown(message), "teams")


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_slack_blocks_keep_every_word(name):
    check_slack(CORPUS[name])


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_teams_text_keeps_every_word(name):
    check_teams(CORPUS[name])


def test_corpus_is_large_enough():
    assert len(CORPUS) >= 40


def test_the_chat_summary_says_what_the_executive_summary_says():
    executive = (
        "Scores lie in the interval [0, 1] [1]; `List<String>` beats Vec<u8> for a < b && c > d [2].\n\n"
        "| Metric | Value |\n|---|---|\n| COP | 3-5 |\n\n- @channel was *not* pinged\n- snake_case_names stay"
    )
    values = {
        "title": "Heat pumps [2020-2024]: <EU> view", "executive_summary": executive,
        "cited": [{"number": 1, "url": "https://example.com/a_(1)"}, {"number": 2, "url": "https://example.com/b%202"}],
    }
    summary = summary_markdown(values)
    for check in (check_slack, check_teams):
        check(summary)
    shown = markdown_shown(summary)
    assert markdown_shown(executive) in shown and "Heat pumps [2020-2024]: <EU> view" in shown


# ---- what reaches the wire --------------------------------------------------------------------

def test_what_reaches_slack_is_what_was_rendered():
    with FakeSlackAPI() as fake:
        port = SlackPort(WebClient(token=fake.token, base_url=fake.base_url), channel="C0F", thread_ts="1.1")
        for name in sorted(CORPUS):
            port.post(CORPUS[name])
        messages = fake.messages("C0F")
    texts = [b["text"]["text"] for m in messages for b in m["blocks"]]
    assert all(b["text"]["verbatim"] is True for m in messages for b in m["blocks"])
    expected = [t for name in sorted(CORPUS) for t in slack_text(CORPUS[name])[0]]
    assert texts == expected


def test_what_reaches_teams_is_what_was_rendered(tmp_path, monkeypatch):
    for var in ("MICROSOFT_APP_ID", "MICROSOFT_APP_PASSWORD", "MICROSOFT_APP_TENANT_ID", "DEEPRESEARCH_PUBLIC_URL"):
        monkeypatch.delenv(var, raising=False)
    with FakeBotConnector() as connector:
        teams_port.configure(load_settings(data_dir=tmp_path, llm="offline", search="none"))
        try:
            port = TeamsPort.from_activity(Activity().deserialize(personal_message(connector.url, "hi")))
            for name in sorted(CORPUS):
                port.post(CORPUS[name])
        finally:
            teams_port.configure(None)
        sent = [m.text for m in connector.messages()]
    assert sent == [to_teams_markdown(CORPUS[name]) for name in sorted(CORPUS)]


# ---- generated Markdown --------------------------------------------------------------------------

_WORDS = st.sampled_from([
    "[0, 1]", "[1-5]", "[sic]", "[2]", "List<String>", "a < b", "&&", "c > d", "@channel", "@here",
    "<!here>", "<!channel|@channel>", "<@U123>", "<#C1|general>", "snake_case_names", "2 * 3", "x_1",
    "https://example.com/a%20b_(c)#d", "(see p. 4)", "مضخات", "משאבות", "热泵", "データ", "🚀", "AT&T",
    "50 %", "3-5 kW", "−10 °C", "<div>", "e.g.", "\"quoted\"", "it's", "#hashtag", "~approx", "C#",
    "\\*not bold\\*", "_under_", "<at>Alice</at>", "a|b",
])
_SPAN = st.one_of(
    _WORDS,
    # bold around plain words (around "\*x\*" the two CommonMark readers nest emphasis differently)
    _WORDS.filter(lambda w: "\\" not in w and "_" not in w and "*" not in w).map(lambda w: f"**{w}**"),
    _WORDS.map(lambda w: f"`{w}`" if "`" not in w else w),
    st.tuples(_WORDS, st.sampled_from(["https://example.com/x_(y)", "https://a.test/b%20c#d"])).map(
        lambda p: f"[{p[0].replace('[', '').replace(']', '')}]({p[1]})"),
)
_LINE = st.lists(_SPAN, min_size=1, max_size=8).map(" ".join)
_BLOCK = st.one_of(
    _LINE,
    _LINE.map(lambda s: f"## {s}"),
    _LINE.map(lambda s: f"> {s}"),
    st.lists(_LINE, min_size=1, max_size=4).map(lambda items: "\n".join(f"- {i}" for i in items)),
    st.lists(_LINE, min_size=1, max_size=3).map(lambda items: "\n".join(f"{n}. {i}" for n, i in enumerate(items, 1))),
    st.lists(_WORDS, min_size=1, max_size=3).map(lambda code: "```\n" + "\n".join(code) + "\n```"),
    st.lists(st.lists(_WORDS, min_size=2, max_size=2), min_size=1, max_size=3).map(
        lambda rows: "| A | B |\n|---|---|\n" + "\n".join(
            "| " + " | ".join(c.replace("|", "/") for c in r) + " |" for r in rows)),
)
_DOCUMENT = st.lists(_BLOCK, min_size=1, max_size=6).map("\n\n".join)


@seed(20241130)
@settings(max_examples=200, deadline=None, database=None,  # no per-example clock: a busy machine is slow
          suppress_health_check=[HealthCheck.too_slow])
@given(_DOCUMENT)
def test_generated_markdown_keeps_every_word(markdown):
    check_slack(markdown)
    check_teams(markdown)
