"""The language of a question: the report's language, the prompts' "Write in …" and the offline phrases."""

from __future__ import annotations

import pytest

from engine.language import detect_language, language_name


@pytest.mark.parametrize(("question", "code"), [
    ("كيف تعمل المضخات الحرارية في المناخات الباردة؟", "ar"),  # the model alone: 0.71, below its 0.8
    ("ما هو asyncio؟", "ar"),
    ("چگونه پمپ های حرارتی در هوای سرد کار می کنند؟", "fa"),
    ("איך עובדות משאבות חום באקלים קר?", "he"),
    ("ऊष्मा पंप ठंडे मौसम में कैसे काम करते हैं?", "hi"),
    ("ปั๊มความร้อนทำงานอย่างไรในสภาพอากาศหนาว", "th"),
    ("Co to jest asyncio?", "pl"),  # among all 97 languages: 0.60
    ("Jak działają pompy ciepła w zimnym klimacie?", "pl"),
    ("Wie funktionieren Wärmepumpen im Winter?", "de"),
    ("Qué es asyncio?", "es"),
    ("How does asyncio cancel tasks and handle timeouts?", "en"),
    ("What is asyncio?", "en"),
    ("\ufecb\ufef4\ufef2 \ufe97\ufecc\ufee4\ufede \ufe8d\ufedf\ufee4\ufec0\ufea8\ufe8e\ufe95 \ufe8d\ufedf\ufea4\ufeae\ufe8d\ufead\ufef3\ufe94", "ar"),
    ("What is the β coefficient in CAPM?", "en"),  # one Greek letter: a symbol, not Greek
    ("How does the α-helix fold in proteins?", "en"),
    ("What does שלום mean in English?", "en"),  # one Hebrew word quoted
    ("Τι είναι η αντλία θερμότητας;", "el"),
])
def test_the_language_of_a_question(question, code):
    assert detect_language(question) == code


@pytest.mark.parametrize("question", ["Compare Kafka and Pulsar", "asyncio timeouts", "Is RAG good?"])
def test_a_question_too_short_to_tell_gets_the_default(question):
    assert detect_language(question, default="en") == "en"


def test_every_language_it_can_name_has_an_english_name():
    for question in ("كيف تعمل المضخات الحرارية في المناخات الباردة؟", "איך עובדות משאבות חום באקלים קר?",
                     "ऊष्मा पंप ठंडे मौसम में कैसे काम करते हैं?", "Как работают тепловые насосы зимой?"):
        code = detect_language(question)
        assert language_name(code) != code, code


@pytest.mark.parametrize(("question", "language"), [
    ("Warum ist `SELECT * FROM users WHERE id = 1` so langsam?", "de"),
    ("Warum ist ```\nSELECT * FROM users WHERE id = 1\n``` so langsam?", "de"),
    ("Wie kann ich in der Datei config_prod.yaml die Variable DEEPRESEARCH_DATA_DIR setzen?", "de"),
    ("Pourquoi `std::vector<int>::push_back()` est-il si lent dans ma boucle ?", "fr"),
    ("Why does os.path.join fail on Windows with `C:\\temp`?", "en"),
    ("What is U.S. policy on heat pumps in cold climates?", "en"),
])
def test_code_urls_and_identifiers_in_a_question_do_not_decide_its_language(question, language):
    """A backtick span of SQL or a dotted identifier outweighed the German words around it: the
    thread was answered, and the report written, in English."""
    assert detect_language(question) == language


@pytest.mark.parametrize(("question", "language"), [
    ("Wie bricht asyncio Tasks ab?", "de"),  # the identifier alone: German 0.63
    ("Wärmepumpe Kosten?", "de"),
    ("Warum ist Redis langsam?", "de"),
    ("Comment annuler asyncio ?", "fr"),
    ("Cómo cancelar tareas asyncio?", "es"),
    ("¿Bomba de calor precio?", "es"),
    ("Cos'è Kubernetes?", "it"),
    ("Wat is Kubernetes?", "nl"),
    ("Hoe werkt Kafka?", "nl"),
    ("O que é Kubernetes?", "pt"),
    ("Czym jest Kubernetes?", "pl"),
    ("Hur fungerar Kafka?", "sv"),
    ("Vad är Kubernetes?", "sv"),
    ("Värmepump kostnad?", "sv"),
    # English, which must stay English
    ("What is RAG?", "en"),
    ("Kubernetes vs Nomad?", "en"),
    ("Explain Kafka", "en"),
    ("asyncio cancel tasks?", "en"),
    ("Redis Streams vs Kafka?", "en"),
    ("Is Kubernetes worth it?", "en"),
    ("Postgres vacuum tuning?", "en"),
    ("Kafka Connect sink retries?", "en"),
    ("Rust vs Go?", "en"),
    # a function word of another language that is an English word or a name too is no evidence
    ("War in Ukraine?", "en"),
    ("Die Hard trivia", "en"),
    ("Man vs machine?", "en"),
    ("Was it worth it?", "en"),
])
def test_a_short_question_is_told_by_its_own_words_and_letters(question, language):
    """Two to five words with a product name in them: the identifier's ranking is right but below
    its 0.8, and the README's own German example was answered with an English report."""
    assert detect_language(question) == language


@pytest.mark.parametrize("message", ["thanks!", "ok", "cancel", "stop", "ok thanks", "What is RAG?",
                                     "Kubernetes vs Nomad?", "Explain Kafka"])
@pytest.mark.parametrize("default", ["de", "fr", "en"])
def test_a_short_chat_message_without_a_language_of_its_own_keeps_the_thread_s(message, default):
    assert detect_language(message, default=default) == default
