"""A question that asks which of its items is something ("Which is cheaper to run, gas or a heat
pump?") asks it of each item: "Is gas cheaper to run", "Is a heat pump cheaper to run", in a language
whose yes-or-no question puts its verb first (English, German, Dutch, Spanish, Italian, Portuguese),
each with its frame ("Is … cheaper to run"), which a sentence quoted under it must name a word of.
A choice that names nothing but which to take ("Which is faster, Python or Java?", "Which is
better?") and one in a language that asks otherwise (French) keep the items alone."""

from __future__ import annotations

import pytest

from engine.offline_lists import listed_frames
from engine.offline_text import plan_topics
from tests.engine.test_offline_fidelity import offline_run


@pytest.mark.parametrize(("brief", "language", "topics"), [
    ("Which is cheaper to run, gas or a heat pump?", "en", ["Is gas cheaper to run", "Is a heat pump cheaper to run"]),
    ("Which is cheaper to run: a gas boiler or a heat pump?", "en",
     ["Is a gas boiler cheaper to run", "Is a heat pump cheaper to run"]),
    ("Which is better for a small house, a heat pump or solar panels?", "en",
     ["Is a heat pump better for a small house", "Are solar panels better for a small house"]),
    ("Which one is quieter at night, a heat pump or a gas boiler?", "en",
     ["Is a heat pump quieter at night", "Is a gas boiler quieter at night"]),
    ("Welche ist günstiger im Betrieb, eine Gasheizung oder eine Wärmepumpe?", "de",
     ["Ist eine Gasheizung günstiger im Betrieb", "Ist eine Wärmepumpe günstiger im Betrieb"]),
    ("¿Cuál es más barata de usar, la calefacción de gas o la bomba de calor?", "es",
     ["Es la calefacción de gas más barata de usar", "Es la bomba de calor más barata de usar"]),
])
def test_which_of_the_items_is_asked_of_each(brief, language, topics):
    assert plan_topics(brief, 5, language) == topics
    frames = listed_frames(brief, language)
    assert all(frames[t] and "…" in frames[t] for t in topics), frames


@pytest.mark.parametrize(("brief", "language", "topics"), [
    ("Which is faster, Python or Java?", "en", ["Python", "Java"]),
    ("Postgres or MySQL: which is better?", "en", ["Postgres", "MySQL"]),
    ("Lequel est moins cher à l'usage, le chauffage au gaz ou la pompe à chaleur ?", "fr",
     ["le chauffage au gaz", "la pompe à chaleur"]),
])
def test_a_choice_naming_nothing_more_or_asked_otherwise_keeps_the_items_alone(brief, language, topics):
    assert plan_topics(brief, 5, language) == topics


def test_a_choice_quotes_under_each_item_what_names_the_question(tmp_path):
    pages = {
        "costs.md": "# Running costs\n\nA heat pump costs about 40 percent less to run than a gas boiler in an "
                    "average house. Gas prices rose sharply in 2022 across Europe.\n",
        "gas.md": "# Gas boilers\n\nA gas boiler is cheaper to buy than a heat pump but dearer to run each year. "
                  "Gas boilers were first sold in the nineteenth century in England.\n",
    }
    report = offline_run(tmp_path, pages, "Which is cheaper to run, a gas boiler or a heat pump?", 1).report_md.read_text()
    assert "## Findings: Is a gas boiler cheaper to run" in report, report
    assert "## Findings: Is a heat pump cheaper to run" in report, report
    assert "nineteenth century" not in report and "rose sharply" not in report, report
