"""A question that lists things is split so that every item keeps the whole frame around the list,
or it is kept whole: no item is lost, no sub-question is an item without its frame, and no
sub-question splices words from two places. Symbols and emoji are not words: they never change
where a list's items start, nor splice one item's words into another's frame."""

from __future__ import annotations

import pytest

from engine.offline_lists import listed_topics


def _kept(question: str, language: str, frame: str, items: list[str]) -> list[str]:
    """The sub-questions of ``question``, checked: none (kept whole), or one per item, in order,
    each with the frame's words before it and no other item."""
    topics = listed_topics(question, language)
    if not topics:
        return topics
    assert len(topics) == len(items), topics
    for topic, item in zip(topics, items, strict=True):
        assert topic.startswith(f"{frame} {item}"), (topic, frame, item)
        assert not any(other in topic for other in items if other != item and other not in item), topic
    return topics


@pytest.mark.parametrize(("question", "language", "frame", "items"), [
    ("¿Cuáles son las ventajas de TaskGroup, de wait_for y de los tiempos de espera en asyncio?", "es",
     "Cuáles son las ventajas", ["de TaskGroup", "de wait_for", "de los tiempos de espera"]),
    ("Quali sono i vantaggi di TaskGroup, di wait_for e dei timeout in asyncio?", "it",
     "Quali sono i vantaggi", ["di TaskGroup", "di wait_for", "dei timeout"]),
    ("Quais são as vantagens de TaskGroup, de wait_for e dos tempos limite em asyncio?", "pt",
     "Quais são as vantagens", ["de TaskGroup", "de wait_for", "dos tempos limite"]),
    ("Quels sont les avantages de TaskGroup, de wait_for et des délais d'attente en asyncio ?", "fr",
     "Quels sont les avantages", ["de TaskGroup", "de wait_for", "des délais d'attente"]),
    ("Welche Vorteile haben TaskGroup, wait_for und Timeouts in asyncio?", "de",
     "Welche Vorteile haben", ["TaskGroup", "wait_for", "Timeouts"]),
    ("Which are the advantages of TaskGroup, of wait_for and of timeouts in asyncio?", "en",
     "Which are the advantages", ["of TaskGroup", "of wait_for", "of timeouts"]),
])
def test_a_question_word_that_chooses_keeps_three_items_in_their_frame(question, language, frame, items):
    assert _kept(question, language, frame, items)


@pytest.mark.parametrize(("question", "language", "frame", "items"), [
    ("¿Cómo gestiona asyncio la cancelación de las tareas, los tiempos de espera y las excepciones?", "es",
     "Cómo gestiona asyncio", ["la cancelación de las tareas", "los tiempos de espera", "las excepciones"]),
    ("Come gestisce asyncio la cancellazione dei task, i timeout e le eccezioni?", "it",
     "Come gestisce asyncio", ["la cancellazione dei task", "i timeout", "le eccezioni"]),
    ("Comment asyncio gère-t-il l'annulation des tâches, les délais et les exceptions ?", "fr",
     "Comment asyncio gère-t-il", ["l'annulation des tâches", "les délais", "les exceptions"]),
    ("Como o asyncio gerencia o cancelamento das tarefas, os tempos limite e as exceções?", "pt",
     "Como o asyncio gerencia", ["o cancelamento das tarefas", "os tempos limite", "as exceções"]),
    ("Como funcionam as tarefas, os tempos limite e os eventos?", "pt",
     "Como funcionam", ["as tarefas", "os tempos limite", "os eventos"]),
    ("Wie behandelt asyncio den Abbruch von Tasks, die Timeouts und die Ausnahmen?", "de",
     "Wie behandelt asyncio", ["den Abbruch von Tasks", "die Timeouts", "die Ausnahmen"]),
])
def test_a_first_item_with_a_phrase_of_its_own_is_kept_whole(question, language, frame, items):
    assert _kept(question, language, frame, items) == [f"{frame} {item}" for item in items]


@pytest.mark.parametrize(("question", "language", "expected"), [
    # the split is the one without the emoji ("asyncio" is shared), each emoji with its own item's words
    ("How do 🐍 asyncio tasks and 🚀 timeouts work?", "en",
     ["How do 🐍 asyncio tasks work", "How do asyncio 🚀 timeouts work"]),
    ("How do asyncio tasks 🐍 and timeouts 🚀 work?", "en",
     ["How do asyncio tasks 🐍 work", "How do asyncio timeouts 🚀 work"]),
    ("How do 🐍 asyncio tasks, 🚀 timeouts and ⚡ events work?", "en",
     ["How do 🐍 asyncio tasks work", "How do asyncio 🚀 timeouts work", "How do asyncio ⚡ events work"]),
    ("What are the costs, risks ⚠️ and benefits of solar panels?", "en",
     ["What are the costs of solar panels", "What are the risks ⚠️ of solar panels",
      "What are the benefits of solar panels"]),
    ("🚀 How do tasks and timeouts work?", "en", ["🚀 How do tasks work", "🚀 How do timeouts work"]),
    ("How do tasks and timeouts work? 🚀", "en", ["How do tasks work 🚀", "How do timeouts work 🚀"]),
    ("¿Cómo funcionan 🐍 las tareas, 🚀 los tiempos de espera y ⚡ los eventos?", "es",
     ["Cómo funcionan 🐍 las tareas", "Cómo funcionan 🚀 los tiempos de espera", "Cómo funcionan ⚡ los eventos"]),
    ("Wie funktionieren 🐍 Tasks, 🚀 Timeouts und ⚡ Events in asyncio?", "de",
     ["Wie funktionieren 🐍 Tasks in asyncio", "Wie funktionieren 🚀 Timeouts in asyncio",
      "Wie funktionieren ⚡ Events in asyncio"]),
    ("Comment fonctionnent 🐍 les tâches, 🚀 les délais et ⚡ les événements ?", "fr",
     ["Comment fonctionnent 🐍 les tâches", "Comment fonctionnent 🚀 les délais",
      "Comment fonctionnent ⚡ les événements"]),
    ("Come funzionano 🐍 i task, 🚀 i timeout e ⚡ gli eventi?", "it",
     ["Come funzionano 🐍 i task", "Come funzionano 🚀 i timeout", "Come funzionano ⚡ gli eventi"]),
    ("Como funcionam 🐍 as tarefas, 🚀 os tempos limite e ⚡ os eventos?", "pt",
     ["Como funcionam 🐍 as tarefas", "Como funcionam 🚀 os tempos limite", "Como funcionam ⚡ os eventos"]),
])
def test_emoji_do_not_change_the_split(question, language, expected):
    assert listed_topics(question, language) == expected
    plain = " ".join(w for w in question.split() if any(ch.isalnum() for ch in w) or w == "?")
    assert listed_topics(plain, language) == [" ".join(w for w in t.split() if any(c.isalnum() for c in w))
                                              for t in expected]


@pytest.mark.parametrize(("question", "expected"), [
    ("What does $VAR, \\cmd, #tag, {x} and 50% mean in string.Template?",
     [f"What does {item} mean in string.Template" for item in ("$VAR", "\\cmd", "#tag", "{x}", "50%")]),
    ("What do $HOME and ~user mean in a shell?", ["What does $HOME mean in a shell", "What does ~user mean in a shell"]),
    # "+" is no item (no letter nor digit): the question is kept whole, no clause spliced onto its head
    ("What does $VAR, \\cmd, #tag and + mean in string.Template?", []),
])
def test_items_that_are_not_words_never_splice_frames(question, expected):
    topics = listed_topics(question, "en")
    assert topics == expected


@pytest.mark.parametrize(("question", "language"), [
    ("Welche Vorteile haben TaskGroup, wait_for und Timeouts in asyncio?", "de"),
    ("What does $VAR, \\cmd, #tag, {x} and 50% mean in string.Template?", "en"),
    ("What does $VAR, \\cmd, #tag and + mean in string.Template?", "en"),
])
def test_no_sub_question_is_an_item_without_its_frame(question, language):
    opening = question.split()[0]
    assert all(t.startswith(opening) for t in listed_topics(question, language))
