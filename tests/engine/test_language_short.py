"""Short questions (two to five words, names and loanwords among them): the report's language."""

from __future__ import annotations

import pytest

from engine.language import detect_language

#: (question, language): each language's short questions, and English ones that must stay English
#: although a word of theirs is another language's too ("War", "Die", "Man") or their names are.
SHORT = [
    # German: a conjunction between two names, a verb or noun of the language, a question word
    ("Kafka oder RabbitMQ?", "de"),
    ("Docker oder Podman?", "de"),
    ("Python oder Java lernen?", "de"),
    ("Postgres und MySQL vergleichen", "de"),
    ("Was kostet Kubernetes?", "de"),
    ("Was bringt Rust?", "de"),
    ("Lohnt sich Kubernetes?", "de"),
    ("Vorteile von Redis?", "de"),
    ("Kubernetes Kosten senken?", "de"),
    ("Wärmepumpe oder Gasheizung?", "de"),
    # one word of the language beside a name: the name carries no language, the word does
    ("Kubernetes Vorteile?", "de"),
    ("Preis Wärmepumpe?", "de"),
    ("Nachteile Rust?", "de"),
    ("Kosten Solaranlage?", "de"),
    ("Kubernetes alternativen?", "de"),
    # French: "ou" between names, the space before "?" of French typography
    ("Rust ou Go ?", "fr"),
    ("Kafka ou RabbitMQ ?", "fr"),
    ("Docker ou Podman ?", "fr"),
    ("Pompe à chaleur prix ?", "fr"),
    ("Combien coûte Kubernetes ?", "fr"),
    ("Avantages de Kubernetes ?", "fr"),
    ("Avantages Kubernetes ?", "fr"),
    ("Kubernetes inconvénients ?", "fr"),
    # Spanish
    ("Bomba de calor precio?", "es"),
    ("Precio de paneles solares", "es"),
    ("Ventajas de Kubernetes?", "es"),
    ("Cuánto cuesta Kubernetes?", "es"),
    ("Energía solar precio?", "es"),
    ("Ventajas Kubernetes?", "es"),
    ("Kubernetes desventajas?", "es"),
    # Italian
    ("Pompa di calore prezzo?", "it"),
    ("Vantaggi di Kubernetes?", "it"),
    ("Kafka oppure RabbitMQ?", "it"),
    ("Migliore database?", "it"),  # "database" is English and Italian alike: the other word tells
    ("Vantaggi Kubernetes?", "it"),
    ("Vantaggi Rust?", "it"),
    ("Prezzo pompa di calore?", "it"),
    # Dutch
    ("Warmtepomp kosten?", "nl"),
    ("Wat kost Kubernetes?", "nl"),
    ("Voordelen van Kubernetes?", "nl"),
    ("Voordelen Kubernetes?", "nl"),
    ("Kubernetes nadelen?", "nl"),
    # Portuguese
    ("Bomba de calor preço?", "pt"),
    ("Quanto custa Kubernetes?", "pt"),
    ("Vantagens do Kubernetes?", "pt"),
    ("Vantagens Kubernetes?", "pt"),
    ("Kubernetes desvantagens?", "pt"),
    # Swedish
    ("Fördelar Kubernetes?", "sv"),
    ("Kubernetes nackdelar?", "sv"),
    # Chinese and Japanese around Latin names, which outnumber their characters
    ("Kafka还是RabbitMQ？", "zh"),
    ("Kafka 还是 RabbitMQ？", "zh"),
    ("Kubernetes多少钱？", "zh"),
    ("Kafka和RabbitMQ的区别", "zh"),
    ("Kafkaとは？", "ja"),
    ("Kubernetesの料金は？", "ja"),
    ("DockerかPodmanか", "ja"),
    # English, which stays English
    ("War in Ukraine?", "en"),
    ("Die Hard trivia", "en"),
    ("Man vs machine?", "en"),
    ("Rust or Go?", "en"),
    ("Kafka vs RabbitMQ?", "en"),
    ("Is Go faster than Rust?", "en"),
    ("Postgres or MySQL?", "en"),
    ("Docker Compose tips", "en"),
    ("Redis or Memcached?", "en"),
    ("Docker and Podman?", "en"),
    ("Bank of America stock?", "en"),
    ("Heat pump price?", "en"),
    ("Solar panel costs", "en"),
    ("Die casting costs", "en"),
    ("Pasta de Italia recipes", "en"),
    ("Was it worth it?", "en"),
    ("Kafka vs Flink?", "en"),
    ("Vue vs React?", "en"),
    ("Tokio vs async-std?", "en"),
    ("What does 你好 mean?", "en"),
    ("Kanji 水 meaning", "en"),
    ("Kafka vs RabbitMQ ?", "en"),
    # a name alone, or names with an English word: no other language's word
    ("Kubernetes?", "en"),
    ("Postgres vs MySQL?", "en"),
    ("GPT-4 pricing?", "en"),
    ("Kafka of RabbitMQ?", "en"),  # Dutch "of" is English "of" too ("Bank of America")
    # a name that is another language's word too, which English text uses as a name
    ("Vue Router?", "en"),  # French "vue"
    ("Mistral Large?", "en"),
    ("Llama Guard?", "en"),  # Spanish "llama"
    ("Vue 3?", "en"),  # a version number is no word
    # a product's name that is a rare word of another language, before an English word
    ("Redis Cluster?", "en"),  # French "redis" (a form of "redire")
    ("Redis Streams?", "en"),
    ("Velero Backup?", "en"),  # Spanish "velero", a sailing boat
]


@pytest.mark.parametrize(("question", "language"), SHORT)
def test_the_language_of_a_short_question(question, language):
    """A report was written in English for "Kafka oder RabbitMQ?", "Rust ou Go ?", "Bomba de calor
    precio?", "Was kostet Kubernetes?", for a name and one word of another language ("Kubernetes
    Vorteile?", "Migliore database?") and for a Chinese or Japanese question whose Latin names
    outnumber its characters."""
    assert detect_language(question) == language


@pytest.mark.parametrize(
    ("question", "languages"),
    [
        ("Kafka ou RabbitMQ?", {"fr", "pt"}),  # "ou" is French and Portuguese
        ("Kafka o RabbitMQ?", {"es", "it", "pt"}),
        ("Docker y Podman?", {"es"}),
        ("Kafka en RabbitMQ?", {"nl"}),
    ],
)
def test_a_conjunction_between_two_names_is_its_language_s(question, languages):
    """Two names joined by a conjunction that English does not have: the conjunction's language
    (among those that have it), never English."""
    assert detect_language(question) in languages


@pytest.mark.parametrize("default", ["de", "fr", "en"])
@pytest.mark.parametrize("message", ["Kafka vs Flink?", "Rust or Go?", "ok thanks", "Postgres vs MySQL?",
                                     "Vue Router?"])
def test_names_alone_keep_the_thread_s_language(message, default):
    assert detect_language(message, default=default) == default


@pytest.mark.parametrize("default", ["fr", "en"])
@pytest.mark.parametrize(("message", "language"), [("Kubernetes Vorteile?", "de"), ("Vantaggi Kubernetes?", "it")])
def test_a_name_and_one_word_of_a_language_are_that_language_s_in_any_thread(message, language, default):
    assert detect_language(message, default=default) == language
