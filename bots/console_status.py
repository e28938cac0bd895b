"""``deepresearch status [THREAD]``: the chats' ``status`` reply in the terminal.

The words are the chats' (:data:`bots.chat_common.STATUS_WORDS` and the ``status_*`` entries of
:data:`bots.chat_phrases.SAY`, in English), read from the thread registry (:mod:`jobs.threads`: Redis
with ``REDIS_URL``, else the data folder's ``jobs.sqlite``). The registry holds the researches sent to
the workers (``ask --queue``) and the chats'; a terminal run without ``--queue`` is not in it.
"""

from __future__ import annotations

from pathlib import Path

from bots.chat_common import STATUS_WORDS
from bots.chat_phrases import SAY
from engine.settings import Settings
from engine.text import clean_text, one_line
from jobs.threads import ThreadInfo

#: The language the terminal's status is said in (the chats say it in the thread's).
LANGUAGE = "en"


class UnknownThread(LookupError):
    """The registry has no record of the thread asked about; the message is one line for the user."""


def status_line(info: ThreadInfo) -> str:
    """One research as the chats list it, without Markdown: ``- running (THREAD): QUESTION``. An open
    status is said in the chats' words (``waiting for your answer`` for ``paused``); a finished one
    (``done``, ``failed``, ``cancelled``), which the chats' list leaves out, by its name."""
    key = STATUS_WORDS.get(info.status)
    word = SAY(key, LANGUAGE) if key else info.status
    line = SAY("status_line", LANGUAGE, status=word, where=f" ({clean_text(info.thread_id)})",
               question=one_line(clean_text(info.question), 200))
    return line.replace(f"**{word}**", word, 1)


def status_lines(settings: Settings, requester: str, thread: str | None = None) -> list[str]:
    """The lines ``deepresearch status`` prints: for ``thread``, its :func:`status_line`; else the chats'
    listing of ``requester``'s open researches (queued, running, waiting for an answer, posting its
    report; the 20 latest, newest first) under ``Your researches:``, or the line saying there is none.

    Without ``REDIS_URL`` and without a data folder nothing is known, and no folder is made.

    Raises:
        UnknownThread: ``thread`` is given and the registry has no record of it.
        the store's errors (``redis.exceptions.RedisError``, ``sqlite3.Error``).
    """
    from jobs.threads import thread_info, threads_of

    known = bool(settings.redis_url) or Path(settings.data_dir).is_dir()
    if thread is not None:
        info = thread_info(thread, settings=settings) if known else None
        if info is None:
            raise UnknownThread(f"no research with thread id {clean_text(thread)} is known (an unknown thread id, "
                                "one `deepresearch prune` deleted, or one run in a terminal without --queue)")
        return [status_line(info)]
    active = [t for t in (threads_of(requester, settings=settings) if known else []) if t.status in STATUS_WORDS]
    if not active:
        return [SAY("status_none", LANGUAGE)]
    return [SAY("status_header", LANGUAGE), "", *(status_line(t) for t in active)]
