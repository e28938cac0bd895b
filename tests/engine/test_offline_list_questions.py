"""Two questions joined by "and" (or "or"), the second opening with a question word, are two
sub-questions in every language the offline splitter reads, with or without a comma; a list that is
one question ("Vor- und Nachteile von Wärmepumpen") is not cut in pieces."""

from __future__ import annotations

import pytest

from engine.offline_text import plan_topics

#: (question, language, sub-questions): a second question after "and", with and without a comma,
#: its question word alone or after a preposition or article ("por qué", "à quoi", "o que").
TWO_QUESTIONS = [
    ("How efficient is a heat pump in an old house and which subsidies are there?", "en",
     ["How efficient is a heat pump in an old house", "Which subsidies are there"]),
    ("How efficient is a heat pump in an old house, and which subsidies are there?", "en",
     ["How efficient is a heat pump in an old house", "Which subsidies are there"]),
    ("How efficient is a heat pump and what does it cost?", "en", ["How efficient is a heat pump", "What does a heat pump cost"]),
    ("How does a heat pump work and for what houses is it suited?", "en",
     ["How does a heat pump work", "For what houses is a heat pump suited"]),
    ("Wie effizient ist eine Wärmepumpe im Altbau und welche Förderung gibt es?", "de",
     ["Wie effizient ist eine Wärmepumpe im Altbau", "Welche Förderung gibt es"]),
    ("Wie effizient ist eine Wärmepumpe im Altbau, und welche Förderung gibt es?", "de",
     ["Wie effizient ist eine Wärmepumpe im Altbau", "Welche Förderung gibt es"]),
    ("Lohnt sich eine Wärmepumpe im Altbau und welche Kosten entstehen?", "de",
     ["Lohnt sich eine Wärmepumpe im Altbau", "Welche Kosten entstehen"]),
    ("Wie effizient ist eine Wärmepumpe oder welche Alternative gibt es?", "de",
     ["Wie effizient ist eine Wärmepumpe", "Welche Alternative gibt es"]),
    ("Was kostet eine Wärmepumpe und wie lange hält sie?", "de", ["Was kostet eine Wärmepumpe", "Wie lange hält eine Wärmepumpe"]),
    ("Wie funktioniert eine Wärmepumpe und wofür braucht man sie?", "de",
     ["Wie funktioniert eine Wärmepumpe", "Wofür braucht man eine Wärmepumpe"]),
    ("Wie funktioniert eine Wärmepumpe und in welchem Fall lohnt sie sich?", "de",
     ["Wie funktioniert eine Wärmepumpe", "In welchem Fall lohnt eine Wärmepumpe sich"]),
    ("Quelle est l'efficacité d'une pompe à chaleur et quelles aides existent ?", "fr",
     ["Quelle est l'efficacité d'une pompe à chaleur", "Quelles aides existent"]),
    ("Comment fonctionne une pompe à chaleur, et quel est son coût ?", "fr",
     ["Comment fonctionne une pompe à chaleur", "Quel est son coût"]),
    ("Comment fonctionne une pompe à chaleur et à quoi sert-elle ?", "fr",
     ["Comment fonctionne une pompe à chaleur", "À quoi une pompe à chaleur sert-elle"]),
    ("Comment fonctionne une pompe à chaleur et est-ce qu'elle est rentable ?", "fr",
     ["Comment fonctionne une pompe à chaleur", "Est-ce qu'une pompe à chaleur est rentable"]),
    ("¿Qué eficiencia tiene una bomba de calor y qué ayudas hay?", "es",
     ["Qué eficiencia tiene una bomba de calor", "Qué ayudas hay"]),
    ("¿Por qué es eficiente una bomba de calor, y cuáles son sus límites?", "es",
     ["Por qué es eficiente una bomba de calor", "Cuáles son sus límites"]),
    ("¿Cómo funciona una bomba de calor y por qué es eficiente?", "es",
     ["Cómo funciona una bomba de calor", "Por qué es eficiente"]),
    ("¿Cómo funciona una bomba de calor y para qué sirve?", "es", ["Cómo funciona una bomba de calor", "Para qué sirve"]),
    ("Quanto è efficiente una pompa di calore e quali incentivi ci sono?", "it",
     ["Quanto è efficiente una pompa di calore", "Quali incentivi ci sono"]),
    ("Come funziona una pompa di calore, e a cosa serve?", "it", ["Come funziona una pompa di calore", "A cosa serve"]),
    ("Come funziona una pompa di calore e che cosa costa?", "it", ["Come funziona una pompa di calore", "Che cosa costa"]),
    ("Quão eficiente é uma bomba de calor, e quais incentivos existem?", "pt",
     ["Quão eficiente é uma bomba de calor", "Quais incentivos existem"]),
    ("Como funciona uma bomba de calor e por que é eficiente?", "pt",
     ["Como funciona uma bomba de calor", "Por que é eficiente"]),
    ("Como funciona uma bomba de calor e o que custa?", "pt", ["Como funciona uma bomba de calor", "O que custa"]),
    ("Hoe efficiënt is een warmtepomp en welke subsidies zijn er?", "nl",
     ["Hoe efficiënt is een warmtepomp", "Welke subsidies zijn er"]),
    ("Hoe werkt een warmtepomp, en waarvoor dient hij?", "nl", ["Hoe werkt een warmtepomp", "Waarvoor dient een warmtepomp"]),
    ("Hur effektiv är en värmepump, och vilka bidrag finns det?", "sv",
     ["Hur effektiv är en värmepump", "Vilka bidrag finns det"]),
    ("Hur fungerar en värmepump och när lönar den sig?", "sv", ["Hur fungerar en värmepump", "När lönar en värmepump sig"]),
]


@pytest.mark.parametrize(("question", "language", "expected"), TWO_QUESTIONS)
def test_a_question_word_after_and_opens_a_second_sub_question(question, language, expected):
    """"Wie effizient ist eine Wärmepumpe im Altbau und welche Förderung gibt es?" was one topic
    ("welche" and a noun was taken for "which of them"), and so were "por qué", "à quoi", "o que"
    after "and" (a preposition or an article before the question word)."""
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "language"), [
    ("Vor- und Nachteile von Wärmepumpen", "de"),
    ("För- och nackdelar med värmepumpar", "sv"),
    ("Voor- en nadelen van warmtepompen", "nl"),
])
def test_a_list_that_is_one_question_stays_whole(question, language):
    """"Vor- und Nachteile von Wärmepumpen" was "Vor- von Wärmepumpen" and "Nachteile von
    Wärmepumpen". (Two lists, "Pros and cons of heat pumps and solar panels", were three pieces, then
    the question whole; now one sub-question per item of the second list:
    tests/engine/test_offline_clause_questions.py.)"""
    topics = plan_topics(question, 5, language)
    assert topics[0] == question, topics
    assert all(t.startswith(question.split()[0]) for t in topics), topics


def test_words_sharing_a_compound_s_part_are_one_word_of_each_listed_item():
    assert plan_topics("Vor- und Nachteile von Wärmepumpen und Solaranlagen", 5, "de") == [
        "Vor- und Nachteile von Wärmepumpen", "Vor- und Nachteile von Solaranlagen"]
    assert plan_topics("Was sind die Vor- und Nachteile einer Wärmepumpe und welche Förderung gibt es?", 5, "de") == [
        "Was sind die Vor- und Nachteile einer Wärmepumpe", "Welche Förderung gibt es"]


@pytest.mark.parametrize(("question", "language", "expected"), [
    ("Rust or Go, which is better?", "en", ["Rust", "Go"]),
    ("Rust or Go, which one is faster?", "en", ["Rust", "Go"]),
    ("Kafka or RabbitMQ, which broker?", "en", ["Kafka", "RabbitMQ"]),
    ("Postgres oder MySQL, welche ist besser?", "de", ["Postgres", "MySQL"]),
    ("Kafka ou RabbitMQ, lequel est meilleur ?", "fr", ["Kafka", "RabbitMQ"]),
])
def test_which_of_the_listed_things_is_still_no_question_of_its_own(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("brief", "language", "topics"), [
    # names of several words, with an article or a preposition inside, are each one item
    ("Qual é o custo de vida em São Paulo, Rio de Janeiro e Belo Horizonte?", "pt",
     ["Qual é o custo de vida em São Paulo", "Qual é o custo de vida em Rio de Janeiro",
      "Qual é o custo de vida em Belo Horizonte"]),
    ("¿Cuál es el costo de vida en Buenos Aires, Santiago de Chile y Ciudad de México?", "es",
     ["Cuál es el costo de vida en Buenos Aires", "Cuál es el costo de vida en Santiago de Chile",
      "Cuál es el costo de vida en Ciudad de México"]),
    ("¿Cuál es el costo de vida en Nueva York, Los Ángeles y San Francisco?", "es",
     ["Cuál es el costo de vida en Nueva York", "Cuál es el costo de vida en Los Ángeles",
      "Cuál es el costo de vida en San Francisco"]),
    ("Qual è il costo della vita a San Marino, Reggio Emilia e La Spezia?", "it",
     ["Qual è il costo della vita a San Marino", "Qual è il costo della vita a Reggio Emilia",
      "Qual è il costo della vita a La Spezia"]),
])
def test_names_of_several_words_are_each_one_item(brief, language, topics):
    assert plan_topics(brief, 5, language) == topics
