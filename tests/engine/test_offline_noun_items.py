"""A question's subject written as a plural noun ("sets" of "How do sets differ") is met only by a
sentence that writes the word as a noun: its plural, or its singular after a determiner or an adjective
("a set", "the frozen set"), not the verb of the same Snowball stem ("If no DTDHandler is set", "set to
None", "lock the mutex"). A dotted name (``functools.lru_cache``) is asked as the name it ends in: its
module's page names the function bare ("lru_cache() with a size limit")."""

from __future__ import annotations

import pytest

from engine.offline import passages
from engine.offline_select import choose, query_terms

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


@pytest.mark.parametrize("question, term", [
    ("What does functools.lru_cache do?", "lru_cach"),
    ("How does os.path.join handle absolute paths?", "join"),
    ("What does asyncio.wait_for do on timeout?", "wait_for"),
])
def test_a_dotted_name_is_asked_as_its_last_name(question, term):
    asked = query_terms(question)
    assert term in asked and "functool" not in asked and "os" not in asked and "asyncio" not in asked, asked


@pytest.mark.parametrize("question", ["What is setup.py for?", "How do I fix it, e.g. on Linux?"])
def test_a_file_name_or_an_abbreviation_is_no_dotted_name(question):
    asked = query_terms(question)
    assert "setup" in asked or "linux" in asked, asked


FUNCTOOLS = (
    "Returns the same as lru_cache(maxsize=None), creating a thin wrapper around a dictionary lookup for the "
    "function arguments. Because it never needs to evict old values, this is smaller and faster than "
    "lru_cache() with a size limit.\n\nThe partial() function is used for partial function application."
)


def test_a_dotted_name_question_quotes_its_sentences():
    chosen = choose(passages(FUNCTOOLS, "What does functools.lru_cache do?"), "What does functools.lru_cache do?", 5)
    assert len(chosen) == 2 and all("lru_cache" in s for s in chosen), chosen


def test_a_verb_does_not_move_a_sentence_under_the_plural_item():
    from engine.offline_select import answers, named_first

    questions = ["lists", "tuples", "sets"]
    line = "The instance's contents are initially set to a copy of list, defaulting to the empty list."
    assert named_first(line, questions) is None
    scores = answers(line, questions)
    assert scores[0] > scores[2] == 0.0, scores
    noun = "A set is built from a list by set(list)."
    assert named_first(noun, questions) == 2


def test_the_review_asks_for_the_dotted_name_as_the_selection_does():
    from engine.offline_review import unanswered

    claim = "Because it never needs to evict old values, this is smaller and faster than lru_cache() with a size limit."
    assert unanswered("What does functools.lru_cache do?", [claim]) == []
    assert unanswered("What does functools.lru_cache do?", ["The partial() function is used often."]) == ["lru_cache"]
