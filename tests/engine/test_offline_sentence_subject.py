"""A sentence several sub-questions found, and that names the listed things of more than one of them
("Ground-source heat pumps are more efficient than air-source heat pumps"), is quoted once, under the
sub-question of the thing it names first: the one it is about, in every language."""

from __future__ import annotations

import pytest

from engine.offline_text import plan_topics, shown_blocks


def _findings(topics: list[str], lines: list[str]) -> str:
    """Findings in which every topic found every line, as the offline researcher writes them."""
    return "\n".join(f"### {t}\n" + "".join(f"- {ln}\n" for ln in lines) for t in topics)


def _placed(question: str, language: str, lines: list[str]) -> dict[str, list[str]]:
    topics = plan_topics(question, 5, language)
    assert len(topics) == 2, topics
    return {t: [ln.split(" [")[0] for ln in shown] for t, shown in shown_blocks(_findings(topics, lines))}


@pytest.mark.parametrize(
    ("question", "language", "first", "second"),
    [
        (
            "How efficient are ground-source and air-source heat pumps?",
            "en",
            "Ground-source heat pumps are more efficient than air-source heat pumps.",
            "Air-source heat pumps cost less to install than ground-source heat pumps.",
        ),
        (
            "What are the costs of heat pumps and gas boilers?",
            "en",
            "Heat pumps cost more to install than gas boilers.",
            "Gas boilers cost less to buy than heat pumps but more to run.",
        ),
        (
            "Wie effizient sind Erdwärmepumpen und Luftwärmepumpen?",
            "de",
            "Erdwärmepumpen sind effizienter als Luftwärmepumpen.",
            "Luftwärmepumpen sind billiger als Erdwärmepumpen.",
        ),
        (
            "地源熱泵和空氣源熱泵的效率有何不同?",
            "zh-Hant",
            "地源熱泵的效率比空氣源熱泵更高。",
            "空氣源熱泵的安裝成本比地源熱泵低。",
        ),
        (
            "地源热泵和空气源热泵的效率有何不同？",
            "zh",
            "地源热泵的效率比空气源热泵更高。",
            "空气源热泵的安装成本比地源热泵低。",
        ),
    ],
)
def test_a_sentence_naming_two_listed_things_sits_under_the_one_it_names_first(
    question, language, first, second
):
    topics = plan_topics(question, 5, language)
    placed = _placed(question, language, [f"{first} [S000001]", f"{second} [S000002]"])
    assert placed == {topics[0]: [first], topics[1]: [second]}, placed
