"""Slack and Teams show the same table: one walk, the same cell text and the same column widths."""

from __future__ import annotations

import html

from bots.chat_markdown import display_width
from bots.slack.mrkdwn import markdown_to_mrkdwn
from bots.teams.markdown import to_teams_markdown

TABLE = ("| Vendor | City | Price |\n|:--|:-:|--:|\n| [A *x*](https://a.example) | 北京 | **$10** |\n"
         "| `B<T>` & co | Zürich | 9 |")


def _slack_rows() -> list[str]:
    block = markdown_to_mrkdwn(TABLE).split("\n")
    assert block[0] == "```" and block[-1] == "```"
    return [html.unescape(line) for line in block[1:-1]]


def _teams_rows() -> list[str]:
    out = to_teams_markdown(TABLE)
    assert out.startswith("<pre>") and out.endswith("</pre>")
    return html.unescape(out.removeprefix("<pre>").removesuffix("</pre>")).split("\n")


def test_both_platforms_render_the_same_cells_and_widths():
    slack = [line.replace("  ", " | ") for line in _slack_rows()]
    teams = _teams_rows()
    assert [line.replace(" | ", "").replace(" ", "") for line in slack] == \
        [line.replace(" | ", "").replace(" ", "") for line in teams]
    assert teams[2].split(" | ")[0].rstrip() == "A x (https://a.example)"
    assert "B<T> & co" in teams[3]
    # wide characters count two columns: the column separators sit at the same display column in every row
    for row in teams:
        if set(row) <= {"-", " ", "|"}:
            continue
        cells = row.split(" | ")
        assert [display_width(" | ".join(cells[: k + 1])) for k in range(2)] == [23, 23 + 3 + 6]
