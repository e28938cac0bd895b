"""What the chat adapters say themselves (help, status listing, error lines, report-file notes), and
the one rule that picks the language they say it in.

The catalogue (``chat_phrases.json``: ``{key: {language: template}}``) holds the languages of
:data:`jobs.phrases.WORDS` (English, German, French, Spanish, Italian, Dutch, Portuguese, Swedish,
Chinese, Japanese); keys of one platform start with its name (``slack_``, ``teams_``). Command
words (``help``, ``status``, ``cancel``) stay the same in every language and are shown as code.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from engine.chinese import TRADITIONAL, chinese_variant
from engine.phrasebook import BASE_LANGUAGE, Phrasebook
from jobs.conversation.message import command_word
from jobs.phrases import WORDS, thread_language

#: Every text a chat adapter posts of its own accord (the conversation core's replies are
#: :data:`jobs.phrases.WORDS`).
SAY = Phrasebook(Path(__file__).with_name("chat_phrases.json"))

#: The help words written in one language (``help``, ``?`` and ``usage`` say nothing of theirs).
HELP_LANGUAGES = {"hilfe": "de", "aide": "fr", "ayuda": "es", "帮助": "zh", "幫助": TRADITIONAL, "ヘルプ": "ja",
                  "aiuto": "it", "hulp": "nl", "ajuda": "pt", "hjälp": "sv"}


def help_language(text: str) -> str | None:
    """The language of the help word ``text`` is (``hilfe`` → ``de``, :data:`HELP_LANGUAGES`; any
    case, see :func:`jobs.conversation.message.command_word`), None for any other text."""
    return HELP_LANGUAGES.get(command_word(text))


def locale_language(locale: str | None) -> str | None:
    """The catalogue language of a platform locale (BCP 47, as a Bot Framework activity's ``locale``
    carries it: ``de-DE`` → ``de``, ``zh-Hans-CN`` → ``zh``; ``zh-TW``, ``zh-HK`` and ``zh-Hant`` →
    ``zh-Hant``, :func:`engine.chinese.chinese_variant`), None when absent or not in the catalogue."""
    tag = (locale or "").strip().replace("_", "-")
    language = chinese_variant(tag) if chinese_variant(tag) == TRADITIONAL else tag.split("-")[0].lower()
    return language if language in SAY.languages else None


def chat_language(text: str, *, question: str | None = None, locale: str | None = None,
                  recent: Callable[[], str | None] | None = None) -> str:
    """The language in which a chat adapter answers a message itself (the help text, a status
    listing, how to cancel, a file note); the one rule for all of them, first that applies:

    1. the message is in a thread with a research (``question``: its research question) → the
       thread's language (:func:`jobs.phrases.thread_language`, the report's, as
       :func:`jobs.conversation.replies.reply_language` answers in the thread);
    2. ``text`` is a help word of one language (``hilfe``, ``aide``, ``ayuda``, ``帮助``, ``ヘルプ``,
       ``aiuto``, ``hulp``, ``ajuda``, ``hjälp``; :func:`help_language`);
    3. the platform sent a locale (a Teams activity's ``locale``; a Slack slash command has none)
       whose language the catalogue holds (:func:`locale_language`);
    4. ``recent()`` gives the question of the person's most recent research (e.g. the newest of
       :func:`jobs.threads_of`, which a status listing reads anyway) → its language;
    5. English.

    ``recent`` is called only when steps 1-3 say nothing; it may raise (the registry unreachable),
    and the caller decides what that means. When the store cannot be read at all, use
    :func:`own_language` instead.
    """
    if question:
        return thread_language(question)
    found = help_language(text) or locale_language(locale)
    if found:
        return found
    asked = recent() if recent is not None else None
    return thread_language(asked) if asked else BASE_LANGUAGE


def own_language(text: str, *, locale: str | None = None) -> str:
    """The language to answer ``text`` in when the thread registry cannot be read (the store or the
    queue unreachable, an error of the adapter itself): the help word's language, else the
    message's own (:meth:`engine.phrasebook.Phrasebook.language_of`), else the platform's
    ``locale``, else English."""
    return help_language(text) or WORDS.language_of(text, default=locale_language(locale) or BASE_LANGUAGE)
