"""Each sub-question of a question that lists things reads as a whole question in the brief's
language: the words around the list (the verb that asks how, before or after the items) are kept
with each item; a comparison keeps what each item is compared with; a question that asks which of
its items is better gives the items alone, in English and in Chinese alike; one that asks, before the
items, which is faster (one comparative that says what) asks it of each ("Is Postgres faster"), as
"Is Postgres or MySQL faster?" does, a sentence naming "fast" or "fastest" being about it."""

from __future__ import annotations

import pytest

from engine.offline_text import plan_topics


@pytest.mark.parametrize(("question", "language", "expected"), [
    # the verb after the items ("work", "handle") is asked of each, with the words before them
    ("How do solar panels and wind turbines work?", "en", ["How do solar panels work", "How do wind turbines work"]),
    ("How do solar panels and wind turbines work", "en", ["How do solar panels work", "How do wind turbines work"]),
    ("How do solar panels and/or wind turbines work?", "en",
     ["How do solar panels work", "How do wind turbines work"]),
    ("how do Solar Panels, wind turbines and heat pumps work?", "en",
     ["how do Solar Panels work", "how do wind turbines work", "how do heat pumps work"]),
    ("How do solar panels, wind turbines as well as heat pumps work?", "en",
     ["How do solar panels work", "How do wind turbines work", "How do heat pumps work"]),
    ("How do heat pumps and gas boilers handle cold weather?", "en",
     ["How do heat pumps handle cold weather", "How do gas boilers handle cold weather"]),
    # the auxiliary agrees with each item alone: a name or a singular noun takes "does", "is", "has"
    ("How do Kafka or RabbitMQ work?", "en", ["How does Kafka work", "How does RabbitMQ work"]),
    ("What do RAG and MCP mean?", "en", ["What does RAG mean", "What does MCP mean"]),
    ("How do Kubernetes or Nomad handle failover?", "en",
     ["How does Kubernetes handle failover", "How does Nomad handle failover"]),
    ("Are Kafka and NATS fast?", "en", ["Is Kafka fast", "Is NATS fast"]),
    ("How do CPUs and GPUs work?", "en", ["How do CPUs work", "How do GPUs work"]),
    ("How do glass and steel age?", "en", ["How does glass age", "How does steel age"]),
    ("How do cats and dogs communicate?", "en", ["How do cats communicate", "How do dogs communicate"]),
])
def test_a_verb_after_the_items_keeps_the_whole_frame(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "language", "expected"), [
    # the verb that asks how comes first: each item follows it, as the question reads
    ("Come funzionano i pannelli solari e le turbine eoliche?", "it",
     ["Come funzionano i pannelli solari", "Come funzionano le turbine eoliche"]),
    ("come funzionano i pannelli solari, le pompe di calore e le turbine eoliche", "it",
     ["come funzionano i pannelli solari", "come funzionano le pompe di calore", "come funzionano le turbine eoliche"]),
    ("Wie funktionieren Solarmodule und Windräder?", "de", ["Wie funktionieren Solarmodule", "Wie funktionieren Windräder"]),
    ("Wie funktionieren die Solarzellen und die Windräder?", "de",
     ["Wie funktionieren die Solarzellen", "Wie funktionieren die Windräder"]),
    ("wie funktionieren Solarmodule, Wärmepumpen oder Windräder", "de",
     ["wie funktionieren Solarmodule", "wie funktionieren Wärmepumpen", "wie funktionieren Windräder"]),
    ("Como funcionam os painéis solares e as turbinas eólicas?", "pt",
     ["Como funcionam os painéis solares", "Como funcionam as turbinas eólicas"]),
    ("Como funcionam os painéis solares, as bombas de calor e as turbinas eólicas", "pt",
     ["Como funcionam os painéis solares", "Como funcionam as bombas de calor", "Como funcionam as turbinas eólicas"]),
    ("Hoe werken zonnepanelen en windturbines?", "nl", ["Hoe werken zonnepanelen", "Hoe werken windturbines"]),
    ("Hur fungerar solpaneler och vindkraftverk?", "sv", ["Hur fungerar solpaneler", "Hur fungerar vindkraftverk"]),
])
def test_a_verb_before_the_items_keeps_the_whole_frame(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "language", "expected"), [
    # what is compared keeps its comparison: one whole comparison per thing it is compared with
    ("Is Rust faster than C or C++?", "en", ["Is Rust faster than C", "Is Rust faster than C++"]),
    ("is rust faster than c or c++", "en", ["is rust faster than c", "is rust faster than c++"]),
    ("Is Rust faster than C and/or C++?", "en", ["Is Rust faster than C", "Is Rust faster than C++"]),
    ("Is Rust faster than C, C++ or Go?", "en",
     ["Is Rust faster than C", "Is Rust faster than C++", "Is Rust faster than Go"]),
    ("Is Go slower than C# or Java", "en", ["Is Go slower than C#", "Is Go slower than Java"]),
    ("Are heat pumps cheaper than gas boilers or oil heaters?", "en",
     ["Are heat pumps cheaper than gas boilers", "Are heat pumps cheaper than oil heaters"]),
    ("Ist Rust schneller als C oder C++?", "de", ["Ist Rust schneller als C", "Ist Rust schneller als C++"]),
])
def test_a_comparison_with_listed_things_is_one_whole_comparison_each(question, language, expected):
    topics = plan_topics(question, 5, language)
    assert topics == expected
    assert all(" than " in t or " als " in t for t in topics)


@pytest.mark.parametrize(("question", "language", "expected"), [
    # which of the items is better: the items alone, whether the choice is asked before or after them
    ("Which is better, Postgres or MySQL?", "en", ["Postgres", "MySQL"]),
    ("Postgres or MySQL, which is better?", "en", ["Postgres", "MySQL"]),
    ("postgres or mysql, which one is faster", "en", ["postgres", "mysql"]),
    ("Postgres, MySQL or SQLite, which is better?", "en", ["Postgres", "MySQL", "SQLite"]),
    ("Postgres or MySQL: which is better?", "en", ["Postgres", "MySQL"]),
    ("Postgres or MySQL - which is better", "en", ["Postgres", "MySQL"]),
    ("Which is better: Postgres or MySQL?", "en", ["Postgres", "MySQL"]),
    ("Which one is better – Postgres, MySQL or SQLite?", "en", ["Postgres", "MySQL", "SQLite"]),
    # one comparative that says what ("faster"), asked before the items, is asked of each, as "Is
    # Postgres or MySQL faster?" asks it: a sentence names it in any degree ("fast", "fastest")
    ("Which one is faster – Postgres, MySQL or SQLite?", "en", ["Is Postgres faster", "Is MySQL faster", "Is SQLite faster"]),
    ("which one is better, postgres or mysql", "en", ["postgres", "mysql"]),
    ("用Postgres还是MySQL比较好", "zh", ["Postgres", "MySQL"]),
    ("用Postgres还是MySQL比较好？", "zh", ["Postgres", "MySQL"]),
    ("用Postgres還是MySQL比較好", "zh-Hant", ["Postgres", "MySQL"]),
    ("选择Postgres还是MySQL更好？", "zh", ["Postgres", "MySQL"]),
    ("Postgres、MySQL还是SQLite比较好", "zh", ["Postgres", "MySQL", "SQLite"]),
    ("Postgres和MySQL哪个更好？", "zh", ["Postgres", "MySQL"]),
])
def test_which_is_better_gives_the_things_to_choose_among(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "expected"), [
    # Japanese "which one" ("どちらが", "どっちが", "どれが") after the items' topic: what it asks is
    # asked of each item ("電気自動車は安いですか"), as "Which is cheaper, A or B?" asks "Is A cheaper";
    # which is better (良い, いい, おすすめ) gives the items alone, as "Which is better, A or B?" does
    ("電気自動車とハイブリッド車はどちらが安いですか？", ["電気自動車は安いですか", "ハイブリッド車は安いですか"]),
    ("PythonとGoはどっちが速いですか", ["Pythonは速いですか", "Goは速いですか"]),
    ("東京、大阪、福岡はどれが住みやすいですか？", ["東京は住みやすいですか", "大阪は住みやすいですか", "福岡は住みやすいですか"]),
    ("ヒートポンプとガスボイラーはどちらの方が静かですか？", ["ヒートポンプは静かですか", "ガスボイラーは静かですか"]),
    ("PostgresとMySQLはどちらが良いですか？", ["Postgres", "MySQL"]),
    ("PostgresとMySQLはどっちがいいですか", ["Postgres", "MySQL"]),
    ("PostgresとMySQLはどちらがおすすめですか？", ["Postgres", "MySQL"]),
])
def test_a_japanese_which_one_is_asked_of_each_item(question, expected):
    assert plan_topics(question, 5, "ja") == expected


@pytest.mark.parametrize(("question", "expected"), [
    # a colon or dash that parts no choice leaves the words before it with each item
    ("Note: Postgres or MySQL for logs?", ["Note: Postgres for logs", "Note: MySQL for logs"]),
    ("Update - is Rust faster than C or C++?", ["Update - is Rust faster than C", "Update - is Rust faster than C++"]),
])
def test_a_colon_parts_only_a_choice_from_its_items(question, expected):
    assert plan_topics(question, 5) == expected


@pytest.mark.parametrize(("question", "language", "expected"), [
    # a later item that is a noun of its own ("los aerogeneradores") gets no noun of the first one's
    ("¿Cómo funcionan los paneles solares y los aerogeneradores?", "es",
     ["Cómo funcionan los paneles solares", "Cómo funcionan los aerogeneradores"]),
    ("¿Qué ventajas tienen la energía solar o la calefacción?", "es",
     ["Qué ventajas tienen la energía solar", "Qué ventajas tienen la calefacción"]),
    ("Comment fonctionnent les panneaux solaires et les onduleurs ?", "fr",
     ["Comment fonctionnent les panneaux solaires", "Comment fonctionnent les onduleurs"]),
    ("come funzionano i pannelli solari e i generatori", "it",
     ["come funzionano i pannelli solari", "come funzionano i generatori"]),
    ("Como funcionam os painéis solares e os aquecedores?", "pt",
     ["Como funcionam os painéis solares", "Como funcionam os aquecedores"]),
    # an adjective standing for the first item's noun gets it back
    ("¿Qué ventajas tienen la energía solar o la eólica?", "es",
     ["Qué ventajas tienen la energía solar", "Qué ventajas tienen la energía eólica"]),
])
def test_a_noun_of_its_own_is_not_given_the_first_items_noun(question, language, expected):
    assert plan_topics(question, 5, language) == expected


@pytest.mark.parametrize(("question", "language"), [
    # items of different lengths before a shared verb: where the first ends and the frame goes on
    # cannot be told, so the question is one topic (with its facets), never cut into half-questions
    # (a verb that ends the question after an auxiliary is every item's: tests/engine/test_offline_list_shared_words.py)
    ("What happens to daemon threads and the _thread module when the main thread exits?", "en"),
    ("What do the main thread and daemon threads do at exit?", "en"),
    # a comparison whose items cannot be cut from what follows is one question, not two halves
    # (was "Waarom verschillen warmtepompen" / "cv-ketels zo sterk")
    ("Waarom verschillen warmtepompen en cv-ketels zo sterk?", "nl"),
    ("Warum unterscheiden sich Wärmepumpen und Gasheizungen so stark?", "de"),
])
def test_items_that_cannot_be_told_apart_leave_the_question_whole(question, language):
    topics = plan_topics(question, 5, language)
    assert topics[0] == question, topics
    assert all(" — " in t for t in topics[1:]), topics


@pytest.mark.parametrize(("question", "language", "expected"), [
    # the verb's reflexive pronoun, after the items ("zich", "sich") or before them, goes with the
    # frame to each item (was "Hoe gedragen warmtepompen" / "zonnepanelen zich in de winter")
    ("Hoe gedragen warmtepompen en zonnepanelen zich in de winter?", "nl",
     ["Hoe gedragen warmtepompen zich in de winter", "Hoe gedragen zonnepanelen zich in de winter"]),
    ("Hoe gedragen warmtepompen en zonnepanelen zich?", "nl",
     ["Hoe gedragen warmtepompen zich", "Hoe gedragen zonnepanelen zich"]),
    ("Wie verhalten Wärmepumpen und Solarmodule sich im Winter?", "de",
     ["Wie verhalten Wärmepumpen sich im Winter", "Wie verhalten Solarmodule sich im Winter"]),
    ("Wie verhalten sich Wärmepumpen und Solarmodule im Winter?", "de",
     ["Wie verhalten sich Wärmepumpen im Winter", "Wie verhalten sich Solarmodule im Winter"]),
    ("Was kosten Wärmepumpen und Solarmodule im Jahr 2025?", "de",
     ["Was kosten Wärmepumpen im Jahr 2025", "Was kosten Solarmodule im Jahr 2025"]),
    ("Hur skiljer sig värmepumpar och solpaneler åt?", "sv",
     ["Hur skiljer sig värmepumpar åt", "Hur skiljer sig solpaneler åt"]),
    # compared with each other ("elkaar", "voneinander"): the items alone, never "sich Wärmepumpen"
    ("Hoe onderscheiden warmtepompen en cv-ketels zich van elkaar?", "nl", ["warmtepompen", "cv-ketels"]),
    ("Wie unterscheiden sich Wärmepumpen und Gasheizungen voneinander?", "de", ["Wärmepumpen", "Gasheizungen"]),
])
def test_a_reflexive_verb_keeps_its_pronoun_in_the_frame(question, language, expected):
    assert plan_topics(question, 5, language) == expected

