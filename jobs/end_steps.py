"""A turn's end steps, each run whether or not the one before it could: the thread's status, the turn
record (its end, its delivery marks) and the attempt's audit record (the endings of :mod:`jobs.delivery`
and :mod:`jobs.endings`, the lost-turn notice of :mod:`jobs.worker`). A store that fails one step (a full disk, Redis or PostgreSQL
away) costs that step alone; its first error is raised once every step has run, for the queue's retry,
which posts nothing again (the ``delivered`` marks) and writes no second audit record (:func:`record_end_once`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from engine.redact import quoted
from engine.settings import Settings
from jobs import audit

log = logging.getLogger(__name__)

T = TypeVar("T")


class EndSteps:
    """The end steps of one attempt at turn ``turn_id``: :meth:`run` each (or :meth:`bookkeeping`), then
    :meth:`raise_first`. The steps a retry of the turn puts right are :meth:`run`: its thread's status
    (the retry of a turn that ended sets it from the turn's record: :func:`jobs.journal.settle_thread`)
    and its record's end (the retry ends it). The others (a ``delivered`` mark, the audit record) are
    :meth:`bookkeeping`: nothing a retry would do better, so their errors are only logged."""

    def __init__(self, turn_id: str) -> None:
        self.turn_id = turn_id
        self.errors: list[Exception] = []

    def run(self, name: str, step: Callable[..., T], *args: object, **kwargs: object) -> T | None:
        """``step(*args, **kwargs)``'s result; None when it raised (one ``event=turn_end_step_failed``
        error line naming ``name``; the error is kept for :meth:`raise_first`)."""
        try:
            return step(*args, **kwargs)
        except Exception as err:  # the other steps run all the same
            self.keep(name, err)
            return None

    def keep(self, name: str, err: Exception) -> None:
        """Note ``err``, met by the step ``name``, as :meth:`run` notes a step's error: one
        ``event=turn_end_step_failed`` error line, and the error kept for :meth:`raise_first`."""
        log.error("event=turn_end_step_failed step=%s turn=%s error=%s detail=%s", name, self.turn_id,
                  type(err).__name__, quoted(err))
        self.errors.append(err)

    def bookkeeping(self, name: str, step: Callable[..., T], *args: object, **kwargs: object) -> T | None:
        """:meth:`run`, its error logged alone (not raised by :meth:`raise_first`)."""
        before = len(self.errors)
        result = self.run(name, step, *args, **kwargs)
        del self.errors[before:]
        return result

    def raise_first(self, *, since: int = 0) -> None:
        """Raise the first error a step met (of the steps after the first ``since``: a count of
        :attr:`errors` taken before them); nothing when all went through. The errors are then forgotten."""
        mine, self.errors = self.errors[since:], []
        if mine:
            raise mine[0]


def record_end_once(settings: Settings, thread_id: str, status: str, *, turn_id: str, rerun: bool,
                    **fields: object) -> bool:
    """Write the audit record of turn ``turn_id``'s attempt ending with ``status`` (:func:`jobs.audit.record_end`,
    ``fields`` passed on), unless the trail already holds one of that turn: checked when ``rerun`` (an
    earlier attempt at the turn may have written it before a later end step failed), by
    :func:`jobs.audit_read.turn_recorded` from the attempt's ``attempt_started`` on. A trail that cannot be
    read is logged (``event=audit_trail_unread``) and the record written: a record twice is better than none.

    Returns True when a record was written now (or kept waiting), False when it was there already or
    could not be kept. Never raises (as :func:`jobs.audit.record_end`)."""
    if rerun:
        try:
            if audit.turn_recorded(settings, thread_id, turn_id, since=fields.get("attempt_started")):
                log.info("event=audit_record_known turn=%s status=%s", turn_id, status)
                return False
        except Exception as err:
            log.warning("event=audit_trail_unread thread=%s turn=%s error=%s", thread_id, turn_id, type(err).__name__)
    return audit.record_end(settings, thread_id, status, turn_id=turn_id, **fields)
