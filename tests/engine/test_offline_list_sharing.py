"""What the sub-questions of a listed question share: an item alone when the question only asks how
the items relate, whatever words the first item opens with ("How do solar panels and batteries work
together?": "batteries", not "solar batteries"); the later item is as long as it is written ("What do
solar panels and home batteries cost?", "What are wind turbine blades and solar panels made of?");
an English auxiliary agrees with the item's noun, which may be written after the list ("How
efficient are ground-source and air-source heat pumps?": "are"); and two verb phrases of one subject
are two questions of that subject, not a list ("How does asyncio cancel tasks and handle timeouts?").
Two words after an auxiliary share the words around them: two verbs their subject and object ("Can
Python read or write ZIP files?"), two subjects one article and the verb ("Should the city or state pay
for it?"); a subject of two nouns keeps both ("Does the event loop schedule tasks or callbacks?")."""

from __future__ import annotations

import pytest

from engine.offline_lists import listed_frames, listed_topics


@pytest.mark.parametrize(("brief", "topics"), [
    ("How do solar panels and batteries work together?", ["solar panels", "batteries"]),
    ("How do solar panels and batteries interact?", ["solar panels", "batteries"]),
    ("How do home solar panels and batteries work together?", ["home solar panels", "batteries"]),
    ("How do Kafka streams and RabbitMQ work together?", ["Kafka streams", "RabbitMQ"]),
    ("How are solar panels and batteries related?", ["solar panels", "batteries"]),
    ("What is the difference between solar panels and batteries?", ["solar panels", "batteries"]),
    ("How do dataclasses, enums and typing protocols work together?", ["dataclasses", "enums", "typing protocols"]),
])
def test_items_that_only_relate_stand_alone(brief: str, topics: list[str]) -> None:
    assert listed_topics(brief) == topics
    assert set(listed_frames(brief).values()) == {""}


@pytest.mark.parametrize(("brief", "language", "topics"), [
    ("How do Python and Java work together?", "en", ["Python", "Java"]),
    ("How do Python and Java interact with each other?", "en", ["Python", "Java"]),
    ("Wie hängen Solarmodule und Batterien zusammen?", "de", ["Solarmodule", "Batterien"]),
])
def test_two_capitalised_items_that_relate_are_no_name(brief: str, language: str, topics: list[str]) -> None:
    assert listed_topics(brief, language) == topics


def test_a_name_of_two_words_stays_whole() -> None:
    assert listed_topics("Who wrote Romeo and Juliet?") == ["Who wrote Romeo and Juliet"]


@pytest.mark.parametrize(("brief", "topics"), [
    ("What do solar panels and home batteries cost?", ["What do solar panels cost", "What do home batteries cost"]),
    # a frame that asks something of each item shares the words before the first one
    ("What are wind turbine blades and towers made of?",
     ["What are wind turbine blades made of", "What are wind turbine towers made of"]),
    ("What are wind turbine blades and solar panels made of?",
     ["What are wind turbine blades made of", "What are solar panels made of"]),
    ("How do solar panels and wind turbines work?", ["How do solar panels work", "How do wind turbines work"]),
    # the item is the object after the subject's verb: the words before it are shared
    ("How does asyncio cancel tasks and timeouts?", ["How does asyncio cancel tasks", "How does asyncio cancel timeouts"]),
])
def test_first_item_keeps_its_own_words(brief: str, topics: list[str]) -> None:
    assert listed_topics(brief) == topics


@pytest.mark.parametrize(("brief", "topics"), [
    ("How efficient are ground-source and air-source heat pumps?",
     ["How efficient are ground-source heat pumps", "How efficient are air-source heat pumps"]),
    ("How efficient are ground-source and air-source heat pumps in winter?",
     ["How efficient are ground-source heat pumps in winter", "How efficient are air-source heat pumps in winter"]),
    ("What do solar and wind farms cost?", ["What do solar farms cost", "What do wind farms cost"]),
    ("How loud were Daikin, Vaillant and Bosch heat pumps in tests?",
     ["How loud were Daikin heat pumps in tests", "How loud were Vaillant heat pumps in tests",
      "How loud were Bosch heat pumps in tests"]),
    # the item alone is the noun: the verb agrees with it
    ("Are Kafka and NATS fast?", ["Is Kafka fast", "Is NATS fast"]),
    ("How do Kafka and RabbitMQ handle requests?", ["How does Kafka handle requests", "How does RabbitMQ handle requests"]),
    ("What do coffee and tea cost?", ["What does coffee cost", "What does tea cost"]),
    ("How do coffee and tea cause headaches?", ["How does coffee cause headaches", "How does tea cause headaches"]),
])
def test_verb_agrees_with_the_noun_after_the_list(brief: str, topics: list[str]) -> None:
    assert listed_topics(brief) == topics


def test_frame_agrees_too() -> None:
    assert listed_frames("How efficient are ground-source and air-source heat pumps?") == {
        "How efficient are ground-source heat pumps": "How efficient are … heat pumps",
        "How efficient are air-source heat pumps": "How efficient are … heat pumps",
    }


@pytest.mark.parametrize(("brief", "topics"), [
    ("How does asyncio cancel tasks and handle timeouts?",
     ["How does asyncio cancel tasks", "How does asyncio handle timeouts"]),
    ("How does Kafka store messages and replicate partitions?",
     ["How does Kafka store messages", "How does Kafka replicate partitions"]),
    ("How do I read files and write logs?", ["How do I read files", "How do I write logs"]),
    ("How can I cancel tasks and handle timeouts?", ["How can I cancel tasks", "How can I handle timeouts"]),
    ("How does asyncio cancel tasks, handle timeouts and close loops?",
     ["How does asyncio cancel tasks", "How does asyncio handle timeouts", "How does asyncio close loops"]),
])
def test_verb_phrases_of_one_subject_are_questions_of_their_own(brief: str, topics: list[str]) -> None:
    assert listed_topics(brief) == topics
    assert set(listed_frames(brief).values()) == {""}  # clauses of their own: no list frame


@pytest.mark.parametrize(("brief", "topics"), [
    ("Should the city or the state pay for it?", ["Should the city pay for it", "Should the state pay for it"]),
    ("Does the landlord or the tenant fix the boiler?",
     ["Does the landlord fix the boiler", "Does the tenant fix the boiler"]),
    ("Can a process or a thread hold a lock?", ["Can a process hold a lock", "Can a thread hold a lock"]),
    ("Would the tenant or the owner be liable?", ["Would the tenant be liable", "Would the owner be liable"]),
    ("Is the kernel or the compiler responsible for alignment?",
     ["Is the kernel responsible for alignment", "Is the compiler responsible for alignment"]),
    ("Does the city or the county or the state collect property taxes?",
     ["Does the city collect property taxes", "Does the county collect property taxes",
      "Does the state collect property taxes"]),
    # one article for both subjects; a name after "the" in capitals is no pronoun ("US", "EU")
    ("Should the city or state pay for it?", ["Should the city pay for it", "Should the state pay for it"]),
    ("Should the landlord or tenant fix the boiler?",
     ["Should the landlord fix the boiler", "Should the tenant fix the boiler"]),
    ("Does the city or county collect property taxes?",
     ["Does the city collect property taxes", "Does the county collect property taxes"]),
    ("Would the tenant or owner be liable?", ["Would the tenant be liable", "Would the owner be liable"]),
    ("Should the city council or state pay for it?",
     ["Should the city council pay for it", "Should the state pay for it"]),
    ("Can a process or thread hold a lock?", ["Can a process hold a lock", "Can a thread hold a lock"]),
    ("Can an app or website track me?", ["Can an app track me", "Can a website track me"]),
    ("Will the EU or the US regulate AI first?", ["Will the EU regulate AI first", "Will the US regulate AI first"]),
    ("Will the US or the EU regulate AI first?", ["Will the US regulate AI first", "Will the EU regulate AI first"]),
    ("Does the EU or the UK have stricter rules?", ["Does the EU have stricter rules", "Does the UK have stricter rules"]),
    ("Can the US or China win?", ["Can the US win", "Can China win"]),
    ("Does the EU or US have stricter rules?", ["Does the EU have stricter rules", "Does the US have stricter rules"]),
])
def test_subjects_after_an_auxiliary_share_the_verb_after_them(brief: str, topics: list[str]) -> None:
    """Listed subjects right after an auxiliary ("Should | the city or the state | pay for it") have no verb
    of their own: the words after the last one are every subject's, not the last one's own phrase."""
    assert listed_topics(brief) == topics


@pytest.mark.parametrize(("brief", "topics"), [
    ("Can the kernel schedule threads or processes?",
     ["Can the kernel schedule threads", "Can the kernel schedule processes"]),
    ("Does the compiler inline functions or macros?",
     ["Does the compiler inline functions", "Does the compiler inline macros"]),
    ("Should the state fund schools or hospitals?", ["Should the state fund schools", "Should the state fund hospitals"]),
    ("Can the kernel schedule threads, processes or tasks?",
     ["Can the kernel schedule threads", "Can the kernel schedule processes", "Can the kernel schedule tasks"]),
    ("Should the city use heat pumps or batteries?", ["Should the city use heat pumps", "Should the city use batteries"]),
    # a subject of two nouns: the word English writes more often in "-ing" is the verb
    ("Does the event loop schedule tasks or callbacks?",
     ["Does the event loop schedule tasks", "Does the event loop schedule callbacks"]),
    ("Can the event loop run tasks or callbacks?", ["Can the event loop run tasks", "Can the event loop run callbacks"]),
    ("Does the garbage collector free objects or arrays?",
     ["Does the garbage collector free objects", "Does the garbage collector free arrays"]),
    ("Does the kernel scheduler preempt threads or processes?",
     ["Does the kernel scheduler preempt threads", "Does the kernel scheduler preempt processes"]),
    ("Does the company offer health plans or pensions?",
     ["Does the company offer health plans", "Does the company offer pensions"]),
])
def test_the_verb_after_a_subject_is_every_objects(brief: str, topics: list[str]) -> None:
    """After an auxiliary and its subject ("Can the kernel"), the next word is the verb every listed object
    takes ("schedule"), not the first object's own word as "heat" of "heat pumps" is."""
    assert listed_topics(brief) == topics


@pytest.mark.parametrize(("brief", "topics"), [
    ("Should I use Redis or Memcached?", ["Should I use Redis", "Should I use Memcached"]),
    ("Should we cache with Redis or Memcached?", ["Should we cache with Redis", "Should we cache with Memcached"]),
])
def test_a_name_in_ed_is_no_participle(brief: str, topics: list[str]) -> None:
    """"Memcached" ends like "compressed", but a capitalised name is no participle: it lists with "Redis"."""
    assert listed_topics(brief) == topics


@pytest.mark.parametrize(("brief", "language", "topics"), [
    ("Can Python read or write ZIP files?", "en", ["Can Python read ZIP files", "Can Python write ZIP files"]),
    ("Can Java parse or generate JSON documents?", "en",
     ["Can Java parse JSON documents", "Can Java generate JSON documents"]),
    ("Does Excel import or export CSV files?", "en", ["Does Excel import CSV files", "Does Excel export CSV files"]),
    ("Can pandas read or write Parquet files?", "en",
     ["Can pandas read Parquet files", "Can pandas write Parquet files"]),
    ("Can Python read or write a ZIP file?", "en", ["Can Python read a ZIP file", "Can Python write a ZIP file"]),
    ("Can the kernel read or write files?", "en", ["Can the kernel read files", "Can the kernel write files"]),
    ("Does Postgres compress or encrypt backups?", "en",
     ["Does Postgres compress backups", "Does Postgres encrypt backups"]),
    ("How can Python read or write ZIP files?", "en",
     ["How can Python read ZIP files", "How can Python write ZIP files"]),
    ("Does Apple design or manufacture chips?", "en", ["Does Apple design chips", "Does Apple manufacture chips"]),
    ("Will the Fed raise or cut rates?", "en", ["Will the Fed raise rates", "Will the Fed cut rates"]),
    ("Will prices rise or fall next year?", "en", ["Will prices rise next year", "Will prices fall next year"]),
    ("Kann Python ZIP-Dateien lesen oder schreiben?", "de",
     ["Kann Python ZIP-Dateien lesen", "Kann Python ZIP-Dateien schreiben"]),
    ("¿Puede Python leer o escribir archivos ZIP?", "es",
     ["Puede Python leer archivos ZIP", "Puede Python escribir archivos ZIP"]),
    ("¿Puede la ciudad construir o renovar el estadio?", "es",
     ["Puede la ciudad construir el estadio", "Puede la ciudad renovar el estadio"]),
    ("Può Python leggere o scrivere file ZIP?", "it", ["Può Python leggere file ZIP", "Può Python scrivere file ZIP"]),
    ("Python peut-il lire ou écrire des fichiers ZIP ?", "fr",
     ["Python peut-il lire des fichiers ZIP", "Python peut-il écrire des fichiers ZIP"]),
    ("Doit-on acheter ou louer une voiture ?", "fr", ["Doit-on acheter une voiture", "Doit-on louer une voiture"]),
    ("Faut-il réparer ou remplacer la chaudière ?", "fr",
     ["Faut-il réparer la chaudière", "Faut-il remplacer la chaudière"]),
    # two subjects with their articles share the infinitive after them
    ("Soll die Stadt oder der Staat dafür zahlen?", "de", ["Soll die Stadt dafür zahlen", "Soll der Staat dafür zahlen"]),
    ("Soll die Stadt oder das Land die Kosten tragen?", "de",
     ["Soll die Stadt die Kosten tragen", "Soll das Land die Kosten tragen"]),
    ("Wird die EU oder die USA KI zuerst regulieren?", "de",
     ["Wird die EU KI zuerst regulieren", "Wird die USA KI zuerst regulieren"]),
    ("¿Debería la ciudad o el estado pagarlo?", "es", ["Debería la ciudad pagarlo", "Debería el estado pagarlo"]),
    ("Deve a cidade ou o estado pagar?", "pt", ["Deve a cidade pagar", "Deve o estado pagar"]),
])
def test_two_words_after_an_auxiliary_share_what_is_around_them(brief: str, language: str, topics: list[str]) -> None:
    """Two verbs of one subject ("Can Python | read or write | ZIP files") share the subject and the
    object; two subjects of one verb share the verb and its words ("Soll | die Stadt oder der Staat |
    dafür zahlen"). Neither loses its verb or its subject ("Can Python read files", "Can write ZIP files")."""
    assert listed_topics(brief, language) == topics
