"""A question's subject written as a plural noun ("sets" of "How do sets differ") is met only by a
sentence that writes the word as a noun: its plural, or its singular after a determiner or an adjective
("a set", "the frozen set"), not the verb of the same Snowball stem ("If no DTDHandler is set", "set to
None", "lock the mutex"). A dotted name (``asyncio.gather``) is asked whole: asked as the name it
ends in ("gather") it met argparse's "arguments … are gathered into a list", and "functools.lru_cache"
as "lru_cache" quoted sentences on ``functools.cache`` that name it in passing, not what it does."""

from __future__ import annotations

import pytest

from engine.offline_select import choose
from engine.offline_terms import query_terms

SETS = "How do sets differ"
NOUNS = [
    "Sets are disjoint if and only if their intersection is the empty set.",
    "A set object is an unordered collection of distinct hashable objects.",
    "Both set and frozenset support set to set comparisons.",
    "To represent sets of sets, the inner sets must be frozenset objects.",
]
VERBS = [
    "If no DTDHandler is set, DTD events will be discarded.",
    "The instance's contents are initially set to a copy of list, defaulting to the empty list.",
    "The flag has been set by the caller before the parser starts.",
    "Set the locale for errors and warnings before the first call.",
    "Return the current setting for feature featurename.",
    "The attribute was set when the handler ran.",
]


@pytest.mark.parametrize("sentence", NOUNS)
def test_a_noun_meets_a_plural_subject(sentence):
    assert sentence in choose([sentence, *VERBS], SETS, 10)


@pytest.mark.parametrize("sentence", VERBS)
def test_a_verb_of_the_same_stem_does_not(sentence):
    assert sentence not in choose([sentence, *NOUNS], SETS, 10)


LOCKS = "How do locks differ"


@pytest.mark.parametrize("sentence, quoted", [
    ("The lock is released when the with block ends.", True),
    ("A reentrant lock may be acquired several times by the same thread.", True),
    ("Locks also support the context management protocol.", True),
    ("Lock objects have the following methods.", True),
    ("Always lock the file before you write to it.", False),
    ("The mailbox is locked while the messages are written.", False),
    ("You should lock it first and unlock it afterwards.", False),
])
def test_locks_are_met_by_the_noun_only(sentence, quoted):
    other = "Queues are thread-safe and hold the items in order."
    assert (sentence in choose([sentence, other], LOCKS, 10)) is quoted


def test_a_question_verb_in_the_plural_is_not_touched():
    # "timeouts" is the object here, not the subject: "timed out" meets nothing anyway, and
    # "TimeoutError" keeps meeting it
    chosen = choose(["A TimeoutError is raised when the tasks time out."], "How do asyncio tasks handle timeouts?", 5)
    assert chosen


@pytest.mark.parametrize("question, module", [
    ("What does asyncio.gather do?", "asyncio"),
    ("How does os.path.join handle absolute paths?", "os"),
])
def test_a_dotted_name_is_asked_whole(question, module):
    assert module in query_terms(question)
    gathered = "All command-line arguments present are gathered into a list, and join them with a path."
    assert choose([gathered], question, 5) == []


def test_a_verb_does_not_move_a_sentence_under_the_plural_item():
    from engine.offline_select import answers, named_first

    questions = ["lists", "tuples", "sets"]
    line = "The instance's contents are initially set to a copy of list, defaulting to the empty list."
    assert named_first(line, questions) is None
    scores = answers(line, questions)
    assert scores[0] > scores[2] == 0.0, scores
    noun = "A set is built from a list by set(list)."
    assert named_first(noun, questions) == 2
