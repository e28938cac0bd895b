"""Research turns as jobs: enqueue from a chat surface, run on an RQ worker or in-process.

Public surface (what ``bots/`` uses):

``Turn``
    One step of a thread's conversation as plain data: ``turn_id`` (unique, e.g. the platform
    event id), ``thread_id`` (``slack:{team}:{channel}:{root_ts}``, ``teams:{tenant}:{conv}``,
    ``console:{uuid}``), ``kind`` (``start`` | ``resume`` | ``cancel``), ``text`` (the question
    or the answer), ``requester`` (platform user id), ``port`` (the chat port's
    :meth:`jobs.port.ChatPort.reference` dict).

``handle_message(thread_id, user, text, port_ref, turn_id, *, settings, explicit_start, attachments=()) -> Reply``
    The platform-neutral conversation rules: a new question starts a research; the
    requester's reply to a paused clarification resumes it; ``cancel`` cancels; a reply while
    research runs gets "still working"; replies from others to a paused thread are refused.
    Returns what the surface should answer at once (``Reply.text``, ``Reply.ephemeral``), or
    ``Reply.text is None`` when the job itself will speak in the thread.

``handle_press(thread_id, user, action, value, port_ref, press_id, *, settings) -> Reply``
    A button press (``cancel``, or ``follow_up`` with the question as ``value``) through the
    same rules; ``press_id`` is the same for every press of one button, so it runs once.

``enqueue(turn, *, settings) -> str``
    Queue one turn (RQ when ``REDIS_URL`` is set, else the in-process runner); returns
    ``queued`` or ``duplicate``.

``seen_before(key, *, settings, ttl=3600) -> bool``
    Event de-duplication that survives a restart (Redis, or SQLite in the embedded mode).

``thread_info(thread_id, *, settings)`` / ``threads_of(requester, *, settings)`` / ``thread_known(thread_id, *, settings)``
    The thread registry: status (``queued``, ``running``, ``paused``, ``done``, ``failed``,
    ``cancelled``), requester, question, report paths.

``waiting_for_answer(requester, prefix, *, settings)``
    The requester's research in one conversation (thread ids starting with ``prefix``) that waits
    for their answer to its clarifying question, the latest; None when none waits.
"""

from jobs.dedupe import seen_before
from jobs.dispatch import handle_message, handle_press
from jobs.queue import enqueue
from jobs.threads import (
    ThreadInfo,
    cancellable_in,
    thread_info,
    thread_known,
    thread_of_turn,
    threads_of,
    waiting_for_answer,
)
from jobs.turns import Reply, Turn

__all__ = [
    "Reply",
    "ThreadInfo",
    "Turn",
    "enqueue",
    "handle_message",
    "handle_press",
    "seen_before",
    "thread_info",
    "thread_known",
    "thread_of_turn",
    "cancellable_in",
    "threads_of",
    "waiting_for_answer",
]
