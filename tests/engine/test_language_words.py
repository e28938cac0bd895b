"""Function words: the question's own verbs and question words are never taken for its topic."""

from __future__ import annotations

import pytest

from engine.offline_text import content_words


@pytest.mark.parametrize(("question", "function"), [
    ("Welche Vorteile haben Wärmepumpen?", {"welche", "haben"}),
    ("Welche Förderung gibt es, und was hat sich geändert?", {"gibt", "hat"}),
    ("Quelles sont les limites des pompes à chaleur ?", {"quelles", "sont"}),
    ("Quels avantages ont les pompes à chaleur ?", {"quels", "ont"}),
    ("¿Cuáles son los límites y qué ventajas hay?", {"cuáles", "hay"}),
    ("What limits do heat pumps have?", {"what", "have"}),
])
def test_question_words_and_common_verbs_are_not_topic_words(question, function):
    words = content_words(question)
    assert words and not function & set(words), words
