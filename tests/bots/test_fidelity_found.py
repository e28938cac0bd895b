"""Report text that Slack or Teams show changed: the words a reader sees must be the Markdown's.

The reader's view of the Markdown, of Slack mrkdwn and of a Teams message is
:mod:`tests.bots.chat_view`'s (CommonMark with GFM tables and strikethrough; Slack's documented
mrkdwn rules; Teams read as CommonMark with HTML). Each case failed before the renderers read
strikethrough as GFM does and wrote Slack's whole-word formatting and code spans for what they hold.
"""

from __future__ import annotations

import pytest

from bots.slack.mrkdwn import markdown_to_mrkdwn
from bots.teams.markdown import to_teams_markdown
from tests.bots.chat_view import markdown_shown, slack_shown, teams_shown

TILDES_WITH_SPACES = "Range ~~ 5 and ~~ 10 end."  # GFM: "~~" followed by a space opens nothing
TILDE_RUNS = "Tilde ~~~ and ~~ alone end."  # GFM: runs of different lengths do not pair


@pytest.mark.parametrize("markdown", [TILDES_WITH_SPACES, TILDE_RUNS])
def test_slack_shows_tildes_that_strike_nothing(markdown):
    assert slack_shown(markdown_to_mrkdwn(markdown)) == markdown_shown(markdown)


@pytest.mark.parametrize("markdown", [TILDES_WITH_SPACES, TILDE_RUNS])
def test_teams_shows_tildes_that_strike_nothing(markdown):
    assert teams_shown(to_teams_markdown(markdown)) == markdown_shown(markdown)


@pytest.mark.parametrize("markdown", ["x**bold**y and foo*bar* end.", "Strike ~~a~~b and x~~y~~ end.",
                                      "A a*b*c word."])
def test_slack_shows_emphasis_inside_a_word_without_stray_markers(markdown):
    assert slack_shown(markdown_to_mrkdwn(markdown)) == markdown_shown(markdown)


@pytest.mark.parametrize("markdown", ["Code span with backticks `` a`b `` end.", "Fence ``` `` ``` end.",
                                      "Three ```` a```b ```` end.", "Two literal ``, then \\*\\* stars."])
def test_slack_shows_code_that_holds_backticks(markdown):
    assert slack_shown(markdown_to_mrkdwn(markdown)) == markdown_shown(markdown)


@pytest.mark.parametrize("markdown", ["x**bold**y and foo*bar* end.", "Code span with backticks `` a`b `` end."])
def test_teams_shows_the_same_emphasis_and_code_as_written(markdown):
    """Teams shows these as the Markdown does too (the view is not what failed on Slack's output)."""
    assert teams_shown(to_teams_markdown(markdown)) == markdown_shown(markdown)


LITERAL_BACKTICKS = [
    r"Press the \` key, then `run` it.",
    r"A [label with \` tick](https://x.test) then `code` after.",
    r"Tick \` in a line with ``a`b`` and `c` code.",
    "| a | b |\n|---|---|\n| x```y | `z` |",
    "````\nbefore\n```\nafter\n````",
    "Run ```` a```b ```` and a ` tick.",
]


@pytest.mark.parametrize("markdown", LITERAL_BACKTICKS)
def test_slack_shows_literal_backticks_as_written_and_code_intact(markdown):
    assert slack_shown(markdown_to_mrkdwn(markdown)) == markdown_shown(markdown)


@pytest.mark.parametrize("markdown", ["See *my_file_name.csv* now.", "It is *snake_case here* too.",
                                      "Open *https://x.test/a_b* now.", "Bold **2 \\* 3** is six.",
                                      "Strike ~~a\\~b~~ end.", "# Cost of a\\*b"])
def test_slack_shows_a_span_that_holds_its_own_marker_as_its_words(markdown):
    assert slack_shown(markdown_to_mrkdwn(markdown)) == markdown_shown(markdown)
