"""Words around a list of two items that both items share: a plural noun after "1" or "one" is
singular in that item ("Is 1 or 2 cats enough?": "Is 1 cat enough")."""

from __future__ import annotations

import pytest

from engine.offline_lists import listed_topics


@pytest.mark.parametrize(
    ("brief", "language", "topics"),
    [
        ("Is 1 or 2 cats enough?", "en", ["Is 1 cat enough", "Is 2 cats enough"]),
        ("Is 2 or 1 cats enough?", "en", ["Is 2 cats enough", "Is 1 cat enough"]),
        ("Which is better, one or two monitors?", "en", ["one monitor", "two monitors"]),
        ("Are 1 or 2 batteries enough?", "en", ["Is 1 battery enough", "Are 2 batteries enough"]),
        ("Do 1 or 2 boxes fit?", "en", ["Does 1 box fit", "Do 2 boxes fit"]),
        (
            "Is one or two coats of paint enough?",
            "en",
            ["Is one coat of paint enough", "Is two coats of paint enough"],
        ),
        ("Is 1 or 2 mm enough?", "en", ["Is 1 mm enough", "Is 2 mm enough"]),
        ("Is 1 or 2 kubernetes enough?", "en", ["Is 1 kubernetes enough", "Is 2 kubernetes enough"]),
    ],
)
def test_one_takes_the_shared_noun_in_the_singular(brief: str, language: str, topics: list[str]) -> None:
    assert listed_topics(brief, language) == topics
