"""Handing what a chat adapter has read to the conversation core, the same for every surface:
repeated events, the command words (help, status), a message's turn, a button press, and one
log line for each.

An adapter reads its platform's event into plain values (thread id, author, text, how the
message addresses the bot, the port's reference) and calls :class:`ChatTurns`; it renders the
:class:`jobs.Reply` it gets back in its own syntax. Nothing here knows a platform.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import jobs
from bots.chat_common import STATUS_WORDS, dedupe_key, is_help, log_failure, press_key, try_again
from bots.chat_phrases import SAY, chat_language, own_language
from bots.logs import redact
from engine.settings import Settings
from engine.text import has_words, markdown_literal, one_line
from jobs.conversation import Address, Attachment
from jobs.conversation.message import command_word, is_cancel

#: Seconds a platform event is remembered in the process while the store does not answer (Slack retries
#: an event for up to about an hour, as :func:`jobs.seen_before` keeps it), and how many at most.
LOCAL_SEEN_TTL = 3600.0
LOCAL_SEEN_MAX = 10_000


def command_of(text: str) -> str | None:
    """``help`` or ``status`` when the text of a message to the bot is that command (see
    :func:`bots.chat_common.is_help` for the help words), else None: the text is a question."""
    if is_help(text):
        return "help"
    return "status" if command_word(text) == "status" else None


def alone_command(text: str) -> bool:
    """True when ``text`` is a command word alone: ``help``, ``status`` (:func:`command_of`) or a
    cancel word (:func:`jobs.conversation.message.is_cancel`). An adapter asks it of a message's
    text after the mentions it starts with, anyone's (``@Alice @Deep Research status``): other
    people's mentions before the word do not keep it from being the command, while any other text
    after them makes the whole message, names and all, a question."""
    return command_of(text) is not None or is_cancel(text)


class ChatTurns:
    """The conversation core (:func:`jobs.handle_message`, :func:`jobs.handle_press`) as one chat
    surface calls it.

    ``surface`` names the platform in log lines (``event={surface}_turn``,
    ``event={surface}_button``); ``log`` is the adapter's logger, so the lines carry its name.
    The surface's texts are functions of the language (an ISO 639-1 code of
    :data:`bots.chat_phrases.SAY`) they are said in: ``usage(language)`` is its help text
    (Markdown, :func:`bots.chat_common.usage`), ``start_hint(language)`` (Markdown) says how to
    start a research when a status listing has none, and ``where(thread_id, language)`` says where
    a research runs (e.g. `` in #general``; "" when the platform cannot say). The calls are
    blocking (the registry and the queue); the errors of :meth:`message` and :meth:`press` (the
    store or the queue unreachable) propagate, and each adapter answers them its own way.
    """

    def __init__(self, surface: str, settings: Settings, log: logging.Logger, *,
                 usage: Callable[[str], str] = lambda language: "",
                 start_hint: Callable[[str], str] = lambda language: "",
                 where: Callable[[str, str], str] = lambda thread_id, language: "") -> None:
        self.surface, self.settings, self.log = surface, settings, log
        self.usage, self.start_hint, self.where = usage, start_hint, where
        self._seen: dict[str, float] = {}  # key: time.monotonic() first seen, while the store failed
        self._seen_lock = threading.Lock()

    def seen_before(self, kind: str, *ids: str) -> bool:
        """True when the platform event ``kind`` with ``ids`` (:func:`bots.chat_common.dedupe_key`)
        came before (platforms retry what they think unanswered; :func:`jobs.seen_before`), with
        one ``event={surface}_event_dropped reason=seen_before`` line.

        When the store does not answer, the event is remembered in this process instead
        (:data:`LOCAL_SEEN_TTL`, :data:`LOCAL_SEEN_MAX`): it goes on to its listener, which answers it
        (if only to say to try again, :func:`bots.chat_common.try_again`) rather than failing unheard.
        """
        key = dedupe_key(self.surface, kind, *ids)
        try:
            seen = jobs.seen_before(key, settings=self.settings)
        except Exception as err:  # the store does not answer: de-duplicate in this process meanwhile
            self.log.warning("event=%s_dedupe_local key=%s error=%s", self.surface, key, type(err).__name__)
            seen = self._seen_here(key)
        if seen:
            self.log.info("event=%s_event_dropped key=%s reason=seen_before", self.surface, key)
        return seen

    def _seen_here(self, key: str) -> bool:
        """:meth:`seen_before` kept in this process: True when ``key`` was recorded here before."""
        now = time.monotonic()
        with self._seen_lock:
            while self._seen and (len(self._seen) >= LOCAL_SEEN_MAX
                                  or now - next(iter(self._seen.values())) > LOCAL_SEEN_TTL):
                del self._seen[next(iter(self._seen))]  # the oldest first (insertion order)
            if key in self._seen:
                return True
            self._seen[key] = now
        return False

    def language(self, text: str, user: str, *, thread_id: str | None = None, locale: str | None = None,
                 researches: list[jobs.ThreadInfo] | None = None) -> str:
        """The language to answer ``user``'s message ``text`` in (:func:`bots.chat_phrases.chat_language`):
        that of the research in ``thread_id`` (the registry's record; None: the message is in no
        thread), else the help word's, else the platform's ``locale``, else that of ``user``'s
        most recent research (``researches``: :func:`jobs.threads_of`'s answer when already read),
        else English.

        Raises:
            Exception: whatever the thread registry raises when it is unreachable.
        """
        info = jobs.thread_info(thread_id, settings=self.settings) if thread_id else None

        def recent() -> str | None:
            found = jobs.threads_of(user, settings=self.settings) if researches is None else researches
            return found[0].question if found else None

        return chat_language(text, question=info.question if info else None, locale=locale, recent=recent)

    def command(self, text: str, user: str, *, ephemeral: bool, shown_in: str | None = None,
                thread_id: str | None = None, locale: str | None = None, files: bool = False) -> jobs.Reply | None:
        """The reply to a message to the bot that is a command (:func:`command_of`): the help
        text (action ``help``) or ``user``'s status listing (action ``status``, :meth:`status`),
        shown only to ``user`` when ``ephemeral``; ``shown_in`` is the thread id when others see the
        reply (a Teams channel or group chat); None when ``text`` is a question.

        Said in :meth:`language` (``thread_id``: the thread the message is in, when it is in one;
        ``locale``: the platform's, when it sends one). When the registry fails, the help text is
        said all the same and a status listing is :func:`bots.chat_common.try_again` with a logged
        reference, both in :func:`bots.chat_phrases.own_language` (the store cannot tell the thread's).
        A message carrying ``files`` and no words is no command (the rules acknowledge the files,
        :func:`jobs.conversation.rules.files_alone`), rather than the help text, which says nothing of them.
        """
        command = None if files and not has_words(text) else command_of(text)
        if command is None:
            return None
        try:
            if command == "help":
                listing = self.usage(self.language(text, user, thread_id=thread_id, locale=locale))
            else:
                listing = self.status(user, shown_in=shown_in, thread_id=thread_id, locale=locale)
        except Exception as err:  # the registry failed: one line to the user, detail to the log
            language = own_language(text, locale=locale)
            ref = log_failure(self.log, self.surface, command, err)
            listing = self.usage(language) if command == "help" else try_again(ref, language)
        return jobs.Reply(text=listing, ephemeral=ephemeral, action=command)

    def message(self, thread_id: str, user: str, text: str, port_ref: dict, turn_id: str,
                address: Address, files: tuple[str, ...] = ()) -> jobs.Reply:
        """Apply the rules to one message (``turn_id``: its de-duplication key; ``files``: the names
        of the files it carries) and queue the turn it makes; returns the reply to say at once."""
        reply = jobs.handle_message(thread_id, user, text, port_ref, turn_id, settings=self.settings,
                                    explicit_start=address, attachments=tuple(Attachment(name) for name in files))
        self.log.info("event=%s_turn thread=%s turn=%s action=%s", self.surface, redact(thread_id),
                      redact(turn_id), reply.action)
        return reply

    def press(self, thread_id: str, user: str, button: tuple[str, int, str], message_key: str,
              port_ref: dict) -> jobs.Reply:
        """Hand a press of one of the bot's buttons to the rules: ``button`` is ``(action, index,
        value)`` as the platform's payload carries it, ``message_key`` names the bot message that
        holds the button (see :func:`bots.chat_common.press_key`: a double press runs once)."""
        action, index, value = button
        press_id = press_key(message_key, action, index, user)
        reply = jobs.handle_press(thread_id, user, action, value, port_ref, press_id, settings=self.settings)
        self.log.info("event=%s_button thread=%s action=%s outcome=%s", self.surface, redact(thread_id), action,
                      reply.action)
        return reply

    def status(self, user: str, *, shown_in: str | None = None, thread_id: str | None = None,
               locale: str | None = None) -> str:
        """Markdown listing ``user``'s researches still open (queued, running, waiting for an
        answer; the 20 latest), each with its status, where it runs and its question; the
        surface's ``start_hint`` when there is none. Said in :meth:`language` (``thread_id``,
        ``locale``: as :meth:`command` takes them).

        When the listing is posted where others read it (``shown_in``: that thread's id), only the
        research in that thread shows its question: a question asked in a personal chat or
        another conversation is not repeated to people who were not there.

        Raises:
            Exception: whatever the thread registry raises when it is unreachable.
        """
        researches = jobs.threads_of(user, settings=self.settings)
        language = self.language("status", user, thread_id=thread_id, locale=locale, researches=researches)
        active = [t for t in researches if t.status in STATUS_WORDS]
        if not active:
            return f"{SAY('status_none', language)} {self.start_hint(language)}".strip()
        lines = []
        for t in active:
            shown = shown_in is None or t.thread_id == shown_in
            question = markdown_literal(one_line(t.question, 200)) if shown else SAY("hidden_question", language)
            lines.append(SAY("status_line", language, status=SAY(STATUS_WORDS[t.status], language),
                             where=self.where(t.thread_id, language), question=question))
        return "\n".join([SAY("status_header", language), "", *lines])
