"""A short sentence that answers the question is quoted: "Solar panels make no noise at all." is shorter
than the prose sentences the offline model quotes otherwise (40 Latin letters' worth), but it names what
is asked ("solar panels", "noise") and reads on its own. A short sentence that names one word of the
question or none ("Their inverters hum quietly.", "See the table below."), one that leans on the sentence
before it ("They make no noise."), a heading's words and a question stay out. (A page with no prose
sentence at all is a short file, whose short lines are quoted on their own rule: tests/engine/test_offline_source_questions.py.)"""

from __future__ import annotations

import pytest

from engine.offline import passages
from tests.engine.test_offline_fidelity import offline_run

LONG = "Photovoltaic cells turn sunlight into electricity without moving parts."
SOLAR = f"# Solar panels\n\nSolar panels make no noise at all. Their inverters hum quietly. {LONG}\n"


@pytest.mark.parametrize(("text", "question", "quoted"), [
    (SOLAR, "How much noise do solar panels make?", ["Solar panels make no noise at all."]),
    ("Heat pumps\n\nHeat pumps are quiet. See the table below.\n",
     "How loud are heat pumps?", ["Heat pumps are quiet."]),
    ("Wärmepumpen\n\nWärmepumpen sind leise. Die Kosten sind hoch.\n",
     "Wie leise sind Wärmepumpen?", ["Wärmepumpen sind leise."]),
    ("Les pompes à chaleur sont silencieuses. Elles coûtent cher.\n",
     "Les pompes à chaleur sont-elles silencieuses ?", ["Les pompes à chaleur sont silencieuses."]),
])
def test_a_short_sentence_naming_what_is_asked_is_quoted(text, question, quoted):
    assert passages(f"{text}\n{LONG}\n", question) == [*quoted, LONG]


@pytest.mark.parametrize("text", [
    "Solar panels\n\nTheir inverters hum quietly. See the table below.\n",  # none of the question's words
    "Solar panels\n\nSolar is cheap now. Panels vary.\n",  # one word of the question each
    "Solar panels\n\nThey make no noise at all.\n",  # leans on what came before
    "Do solar panels make noise?\n",  # a question
    "Solar panels noise levels\n",  # no sentence
    "Solar panels\n\nNoise: none.\n",  # under three words
])
def test_a_short_sentence_without_what_is_asked_stays_out(text):
    assert passages(f"{text}\n{LONG}\n", "How much noise do solar panels make?") == [LONG]


def test_the_readmes_list_question_quotes_the_short_answer_under_its_item(tmp_path):
    pages = {
        "heat.md": "# Heat pumps\n\nAn air-source heat pump makes about 40 to 60 dB of noise at one metre, like a fridge.\n",
        "wind.md": "# Wind turbines\n\nA modern wind turbine makes about 45 dB of noise at 300 metres.\n",
        "solar.md": SOLAR,
    }
    artifacts = offline_run(tmp_path, pages, "How much noise do heat pumps, wind turbines and solar panels make?", 1)
    report = artifacts.report_md.read_text()
    solar = report.split("## Findings: How much noise do solar panels make", 1)
    assert len(solar) == 2, report
    assert "Solar panels make no noise at all." in solar[1].split("\n## ", 1)[0], report
    assert "Nothing more to quote was found on: How much noise do solar panels make" not in report
    assert "Their inverters hum quietly." not in report
