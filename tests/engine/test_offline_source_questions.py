"""A question a source asks is no finding: a FAQ's "Q: Which is cheaper to run, gas or a heat pump?",
a page's rhetorical "Are heat pumps really cheaper to run than gas boilers?" or "¿Son más baratas las
bombas de calor?" names the question's words and says nothing of them. It is never quoted, alone or
among a short file's lines; the answer after it is, and an answer that refers back to it ("It depends
on …") is quoted with the question that gives it its subject."""

from __future__ import annotations

import pytest

from engine.offline import passages

QUESTION = "Which is cheaper to run, a gas boiler or a heat pump?"
ANSWER = "A heat pump costs about 40 percent less to run than a gas boiler in an average house."


@pytest.mark.parametrize("asked", [
    "Q: Which is cheaper to run, a gas boiler or a heat pump?",
    "Are heat pumps really cheaper to run than gas boilers in an average house?",
    "Is a heat pump or a gas boiler cheaper to run？",
    "Frage: Ist eine Wärmepumpe günstiger im Betrieb als ein Gaskessel?",
])
def test_a_question_in_a_source_is_never_a_passage(asked):
    assert passages(f"{asked}\n\n{ANSWER}\n", QUESTION) == [ANSWER]
    assert passages(f"{asked}\n", QUESTION) == []  # a page of questions alone has nothing to quote


def test_a_short_file_of_questions_and_answers_gives_its_answers():
    faq = "Q: Is a heat pump cheaper to run?\nA: Yes, a heat pump is cheaper to run than a gas boiler.\n"
    assert passages(faq, QUESTION) == [" ".join(faq.split())]  # the answer with the question it answers


def test_an_answer_that_refers_to_the_question_is_quoted_with_it():
    text = "Is a heat pump cheaper to run than a gas boiler? It depends on the price of electricity and gas.\n"
    assert passages(text, QUESTION) == [text.strip()]


@pytest.mark.parametrize("label", ["A:", "Answer:", "Antwort:", "R :", "Réponse :", "Respuesta:"])
def test_an_answer_line_is_quoted_with_the_question_it_answers(label):
    """"A: Yes, …" answers a question the reader never sees: it is quoted with that question, as a
    sentence that refers back to the one before it is."""
    asked = "Q: Do solar panels still produce power in winter?"
    answer = f"{label} Yes, solar panels still produce power in winter, but about a quarter of their summer output."
    question = "How much power do solar panels produce in winter?"
    assert passages(f"{asked}\n{answer}\n", question) == [f"{asked} {answer}"]
    assert passages(f"{answer}\n", question) == []  # the question it answers is not there
