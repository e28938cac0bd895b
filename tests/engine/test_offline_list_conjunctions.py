"""A question that lists its things with "or", "as well as", "and/or" or the "and" and "or" of its
own language is researched as one sub-question per listed thing, as one with "and" is; an
alternative question ("rent or buy") is one sub-question per alternative; set phrases that only
sound like a list ("one or more", "more or less") are no list."""

from __future__ import annotations

import pytest

from engine.offline_text import plan_topics


@pytest.mark.parametrize(("question", "language", "expected"), [
    ("Should I use Postgres, MySQL or SQLite for a small app?", "en",
     ["Should I use Postgres for a small app", "Should I use MySQL for a small app",
      "Should I use SQLite for a small app"]),
    ("How do threading, multiprocessing or asyncio compare?", "en", ["threading", "multiprocessing", "asyncio"]),
    ("How do solar panels, wind turbines as well as heat pumps work?", "en",
     ["How do solar panels work", "How do wind turbines work", "How do heat pumps work"]),
    ("What are the costs as well as the benefits of solar panels?", "en",
     ["What are the costs of solar panels", "What are the benefits of solar panels"]),
    ("What are the costs of heat pumps and/or solar panels?", "en",
     ["What are the costs of heat pumps", "What are the costs of solar panels"]),
    ("Should I use either Postgres or MySQL?", "en", ["Should I use Postgres", "Should I use MySQL"]),
])
def test_or_as_well_as_and_and_or_list_like_and(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "language", "expected"), [
    ("Was kosten Wärmepumpen oder Gasheizungen?", "de", ["Was kosten Wärmepumpen", "Was kosten Gasheizungen"]),
    ("Soll ich Postgres oder MySQL verwenden?", "de", ["Soll ich Postgres verwenden", "Soll ich MySQL verwenden"]),
    ("Faut-il choisir Postgres, MySQL ou SQLite ?", "fr",
     ["Faut-il choisir Postgres", "Faut-il choisir MySQL", "Faut-il choisir SQLite"]),
    ("¿Cómo se comparan MySQL u Oracle?", "es", ["MySQL", "Oracle"]),
    ("¿Qué ventajas tienen la energía solar o la eólica?", "es",
     ["Qué ventajas tienen la energía solar", "Qué ventajas tienen la energía eólica"]),
    ("¿Es mejor dormir siete u ocho horas?", "es", ["Es mejor dormir siete horas", "Es mejor dormir ocho horas"]),
    ("Quali sono i costi delle pompe di calore e dei pannelli solari?", "it",
     ["Quali sono i costi delle pompe di calore", "Quali sono i costi dei pannelli solari"]),
    ("Conviene usare Postgres, MySQL o SQLite?", "it",
     ["Conviene usare Postgres", "Conviene usare MySQL", "Conviene usare SQLite"]),
    ("Quais são as vantagens da energia solar e da energia eólica?", "pt",
     ["Quais são as vantagens da energia solar", "Quais são as vantagens da energia eólica"]),
    ("Devo usar Postgres ou MySQL?", "pt", ["Devo usar Postgres", "Devo usar MySQL"]),
    ("Wat kosten warmtepompen en zonnepanelen?", "nl", ["Wat kosten warmtepompen", "Wat kosten zonnepanelen"]),
    ("Moet ik Postgres of MySQL gebruiken?", "nl", ["Moet ik Postgres gebruiken", "Moet ik MySQL gebruiken"]),
])
def test_the_and_and_or_of_each_language_list(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "language", "expected"), [
    ("热泵或燃气锅炉的效率如何？", "zh", ["热泵的效率如何", "燃气锅炉的效率如何"]),
    ("地源热泵或者空气源热泵的效率如何？", "zh", ["地源热泵的效率如何", "空气源热泵的效率如何"]),
    ("地源熱泵還是空氣源熱泵的效率更高？", "zh-Hant", ["地源熱泵的效率更高", "空氣源熱泵的效率更高"]),
    ("线程、多进程或asyncio有什么区别？", "zh", ["线程", "多进程", "asyncio"]),
    ("線程與多進程有什麼區別？", "zh-Hant", ["線程", "多進程"]),
    ("线程及多进程有什么区别？", "zh", ["线程", "多进程"]),
])
def test_chinese_or_and_its_other_ands_list(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "language", "expected"), [
    # an alternative question: one sub-question per alternative, the words they share kept with each
    ("Is it better to rent or buy?", "en", ["Is it better to rent", "Is it better to buy"]),
    ("Should I rent or buy a house?", "en", ["Should I rent a house", "Should I buy a house"]),
    ("Is it better to rent or buy a house?", "en", ["Is it better to rent a house", "Is it better to buy a house"]),
    ("What do cats and dogs eat?", "en", ["What do cats eat", "What do dogs eat"]),
    ("Should I water cacti two or three times a week?", "en",
     ["Should I water cacti two times a week", "Should I water cacti three times a week"]),
])
def test_an_alternative_question_gives_one_sub_question_per_alternative(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "language"), [
    ("How do I pass one or more arguments to a script?", "en"),
    ("Is the Zephyr turbine more or less efficient at coastal sites?", "en"),
    ("Does Python have a global interpreter lock or not?", "en"),
    ("Wie viel kostet eine Wärmepumpe mehr oder weniger?", "de"),
    ("¿Cuánto cuesta una bomba de calor más o menos?", "es"),
    # Dutch "of" and Spanish "o" split only in their own language; English "of" never
    ("What are the costs of heat pumps?", "en"),
])
def test_what_only_sounds_like_a_list_is_one_topic(question, language):
    topics = plan_topics(question, 5, language)
    assert not any(t in ("one", "more", "less", "not", "weniger", "menos") or t.endswith((" one", " more"))
                   for t in topics), topics
    assert topics[0] == question, topics


@pytest.mark.parametrize(("question", "expected"), [
    # a verb's own object is no list item: two clauses, the second continuing the first one's subject
    ("How do I read a file and write it back?", ["How do I read a file", "How do I write it back"]),
    ("How does asyncio cancel tasks or handle timeouts?",
     ["How does asyncio cancel tasks", "How does asyncio handle timeouts"]),
])
def test_two_clauses_of_one_question_keep_its_subject(question, expected):
    assert plan_topics(question, 5) == expected


@pytest.mark.parametrize(("question", "language", "expected"), [
    ("Do heat pumps or gas boilers cost more to run?", "en",
     ["Do heat pumps cost more to run", "Do gas boilers cost more to run"]),
    ("Should I rent an apartment or buy a house in Berlin?", "en",
     ["Should I rent an apartment in Berlin", "Should I buy a house in Berlin"]),
    ("Is this a bug or a feature?", "en", ["Is this a bug", "Is this a feature"]),
    ("What is the difference between TCP and UDP?", "en", ["TCP", "UDP"]),
    ("¿Cuál es la diferencia entre hijos e hijas?", "es", ["hijos", "hijas"]),
    # a verb that asks how ("funzionano", as "funktionieren") is asked of each item
    ("Come funzionano i pannelli solari e le turbine eoliche?", "it",
     ["Come funzionano i pannelli solari", "Come funzionano le turbine eoliche"]),
    ("Como funcionam os painéis solares e as turbinas eólicas?", "pt",
     ["Como funcionam os painéis solares", "Como funcionam as turbinas eólicas"]),
    ("Wie funktionieren die Solarzellen und die Windräder?", "de",
     ["Wie funktionieren die Solarzellen", "Wie funktionieren die Windräder"]),
])
def test_the_items_of_two_are_found_whole(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize("question", ["Who wrote Romeo and Juliet?", "What is the history of Procter and Gamble?"])
def test_a_name_with_and_in_it_is_one_topic(question):
    assert plan_topics(question, 5)[0] == question


def test_names_the_question_compares_are_still_split():
    assert plan_topics("How do Python and Java compare?", 5) == ["Python", "Java"]


@pytest.mark.parametrize(("question", "language", "expected"), [
    ("Which is better, Python or Java?", "en", ["Python", "Java"]),
    # one comparative that says what ("faster") is asked of each, as "Is Python or Java faster?" asks
    # it, now that a sentence names it in any degree ("fast", "fastest": engine.word_forms.degree_bases)
    ("Which is faster, Python or Java?", "en", ["Is Python faster", "Is Java faster"]),
    ("¿Cuál es mejor, Postgres o MySQL?", "es", ["Postgres", "MySQL"]),
    ("É melhor alugar ou comprar uma casa?", "pt", ["É melhor alugar uma casa", "É melhor comprar uma casa"]),
    ("¿Es mejor alquilar o comprar una casa?", "es", ["Es mejor alquilar una casa", "Es mejor comprar una casa"]),
])
def test_a_choice_gives_one_sub_question_per_thing_to_choose(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "language", "expected"), [
    ("How do vaccines work and are they safe?", "en", ["How do vaccines work", "Are vaccines safe"]),
    ("Is Python slow and can it be faster?", "en", ["Is Python slow", "Can it be faster"]),
    ("Wie funktioniert Kafka und ist es sicher?", "de", ["Wie funktioniert Kafka", "Ist Kafka sicher"]),
])
def test_a_yes_or_no_question_after_and_is_a_question_of_its_own(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "language", "expected"), [
    # an adjective that only ranks the differences ("main", "key", "wichtigsten") asks nothing more
    ("What are the main differences between React, Vue and Svelte?", "en", ["React", "Vue", "Svelte"]),
    ("What are the key differences between TCP and UDP?", "en", ["TCP", "UDP"]),
    ("What is the biggest difference between Python and Java?", "en", ["Python", "Java"]),
    ("Was sind die wichtigsten Unterschiede zwischen React, Vue und Svelte?", "de", ["React", "Vue", "Svelte"]),
    ("Quelles sont les principales différences entre React, Vue et Svelte ?", "fr", ["React", "Vue", "Svelte"]),
    ("¿Cuáles son las principales diferencias entre React, Vue y Svelte?", "es", ["React", "Vue", "Svelte"]),
])
def test_the_main_differences_between_items_compare_them(question, language, expected):
    assert plan_topics(question, 5, language) == expected
