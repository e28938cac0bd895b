"""What the bot says in a chat thread, in the language of the thread's question.

The catalogue (``phrases.json``: ``{key: {language: template}}``) holds English, German, French,
Spanish, Italian, Dutch, Portuguese, Swedish, Chinese and Japanese, the languages whose report headings
the bot also translates (``engine/render/templates/labels.json``); a thread in another language is
answered in English. The phrases address the reader informally (German and Swedish "du", Spanish
"tú", Italian "tu", Dutch "je", Brazilian Portuguese "você"), the French ones with "vous".
"""

from __future__ import annotations

from pathlib import Path

from engine.phrasebook import Phrasebook
from engine.phrases import number as engine_number

#: Every text the job layer posts or edits into a chat thread.
WORDS = Phrasebook(Path(__file__).with_name("phrases.json"))


def thread_language(question: str | None) -> str:
    """The language to speak in a thread whose research question is ``question``: the report's
    language (:func:`engine.language.detect_language`, as the research chooses it) when the
    catalogue holds it, else English."""
    return WORDS.language_of(question)


def number(value: int, language: str) -> str:
    """``value`` with its digits grouped by thousands as ``language`` writes them ("8,000" in English,
    "8.000" in German and Spanish, "8 000" with a narrow no-break space in French): the engine's
    :func:`engine.phrases.number`, so the engine's refusals and the bot's replies group alike."""
    return engine_number(value, language)
