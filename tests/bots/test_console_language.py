"""`deepresearch ask --offline` on a German corpus: a one-word German question is answered in German,
and two German questions joined by "und" are researched, and quoted, each on its own."""

from __future__ import annotations

import pytest

from tests.bots.console_helpers import ask, no_traceback, report_of

EFFICIENCY = ("Eine Wärmepumpe im Altbau erreicht eine Jahresarbeitszahl von etwa 3, wenn die Vorlauftemperatur "
              "unter 55 Grad bleibt.")
FUNDING = "Die Förderung durch die KfW beträgt bis zu 70 Prozent der Kosten für den Heizungstausch."


@pytest.fixture
def docs(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "waermepumpe.txt").write_text(f"Wärmepumpen im Altbau\n\n{EFFICIENCY} {FUNDING}\n", encoding="utf-8")
    return folder


def test_a_one_word_german_question_is_asked_and_answered_in_german(tmp_path, docs):
    """"Wärmepumpen" was taken for English: the clarifying question, the headings and the notes were
    English, and the English stemmer found no passage of the German text to quote."""
    out = ask(tmp_path, "Wärmepumpen", "--offline", "--corpus", str(docs), stdin="im Altbau\n")
    assert out.returncode == 0, out.stderr
    no_traceback(out)
    asked = next(ln for ln in out.stderr.splitlines() if ln.startswith("Clarifying question:"))
    assert "„Wärmepumpen“ ist" in asked, asked
    report = report_of(tmp_path, out.stdout).read_text(encoding="utf-8")
    assert "**Frage:** Wärmepumpen" in report and "## Zusammenfassung" in report, report
    assert EFFICIENCY in report, report


def test_two_german_questions_joined_by_und_are_two_sub_questions(tmp_path, docs):
    """"… und welche Förderung gibt es?" was one topic with the efficiency question, and only the
    efficiency sentence was quoted."""
    question = "Wie effizient ist eine Wärmepumpe im Altbau und welche Förderung gibt es?"
    out = ask(tmp_path, question, "--offline", "--no-clarify", "--corpus", str(docs))
    assert out.returncode == 0, out.stderr
    no_traceback(out)
    report = report_of(tmp_path, out.stdout).read_text(encoding="utf-8")
    assert "## Ergebnisse: Wie effizient ist eine Wärmepumpe im Altbau" in report, report
    assert "## Ergebnisse: Welche Förderung gibt es" in report, report
    assert EFFICIENCY in report and FUNDING in report, report
