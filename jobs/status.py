"""The status message of a running turn: posted once, then edited in place, at most every 2 s."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence

from engine.progress import Progress
from jobs.phrases import WORDS
from jobs.port import Button, ChatPort, with_buttons, with_key

log = logging.getLogger(__name__)

#: Seconds between two edits of the status message (chat APIs rate-limit edits; Slack's
#: ``chat.update`` is Tier 3, about 50 a minute per workspace).
MIN_UPDATE_INTERVAL = 2.0


#: What :meth:`StatusMessage._if_allowed` returns when it sent nothing (``may_write()`` said no, or raised).
WITHHELD = object()


class StatusMessage:
    """Best-effort progress display: errors are logged, never raised into the research.

    ``post``/``update`` run in a worker thread (chat SDK calls block); edits are coalesced so
    the port sees at most one every :data:`MIN_UPDATE_INTERVAL` seconds, the latest text winning.
    ``buttons`` go with every post and edit (on a port that shows buttons) until
    :meth:`show` is given other ones: ``show(text, buttons=())`` removes them.

    ``may_write()`` (default: always) is asked in that worker thread just before each post and edit, never
    on the event loop, so it may ask a store that takes its retry window to answer: the turn's runner asks
    whether it still holds its thread's lock (:meth:`jobs.delivery.TurnDelivery.holds_lock`; once not, the
    message is another runner's). While it says no, or raises (logged), nothing is sent: an edit's text stays
    pending for the next flush, a post waits for the next :meth:`show`. Posts and edits go out one at a time,
    in the order asked.

    ``key`` (the turn's: ``"{turn_id}/status"``) goes with the post to a port that finds its posts
    (:func:`jobs.port.with_key`), which looks for it in the thread first when ``look_first`` (a re-run of
    the turn: an earlier attempt may have posted the message without keeping its id) and on every post
    after a first one that failed (it may have gone through): the thread shows one status message per turn.
    """

    def __init__(self, port: ChatPort, message_id: str | None = None,
                 min_interval: float = MIN_UPDATE_INTERVAL,
                 on_posted: Callable[[str], None] | None = None,
                 buttons: Sequence[Button] = (), may_write: Callable[[], bool] | None = None,
                 key: str = "", look_first: bool = False) -> None:
        self.port = port
        self.key = key
        self.look_first = look_first
        self.may_write = may_write
        self.message_id = message_id
        self.min_interval = min_interval
        self.on_posted = on_posted
        self.buttons = tuple(buttons)
        self._last_sent = 0.0
        self._pending: str | None = None
        self._sent_text: str | None = None
        self._sent_buttons: tuple[Button, ...] | None = None
        self._sending = asyncio.Lock()  # one post or edit (with its check) at a time: the last text wins

    @property
    def text(self) -> str | None:
        """The latest text given (sent or still pending), None before the first."""
        return self._pending if self._pending is not None else self._sent_text

    async def show(self, text: str, *, buttons: Sequence[Button] | None = None) -> None:
        """Post the status message, or edit it when it exists (respecting the interval); with
        ``buttons``, those replace the message's buttons from now on."""
        if buttons is not None:
            self.buttons = tuple(buttons)
        async with self._sending:
            if self.message_id is None:
                await self._post(text)
                return
        self._pending = text
        await self.flush(wait=True)

    async def _post(self, text: str) -> None:
        """Post the message with ``text`` (when ``may_write()`` allows); its id goes to ``on_posted``."""
        buttons = self.buttons
        keyed = with_key(self.port, self.key, look_first=self.look_first) if self.key else {}
        try:
            message_id = await asyncio.to_thread(self._if_allowed, self._post_keyed, text,
                                                 **with_buttons(self.port, buttons), **keyed)
            if message_id is WITHHELD:
                return
            self.message_id = message_id
            self._last_sent = time.monotonic()
            self._sent_text = text
            self._sent_buttons = buttons
            if self.on_posted and self.message_id:
                self.on_posted(self.message_id)
        except Exception as err:
            log.warning("event=status_post_failed error=%s", type(err).__name__)

    def _post_keyed(self, text: str, **kwargs: object) -> str:
        """``port.post`` (in the worker thread); any post after this one looks for the key first. A post
        that looked first may have found the message an earlier try posted, showing that try's text: it is
        edited to show ``text`` (and the buttons)."""
        looked = bool(kwargs.pop("look_first", False))
        self.look_first = True  # tried: a later post may find this one in the thread
        message_id = self.port.post(text, **kwargs, **({"look_first": True} if looked else {}))
        if looked and message_id:
            self.port.update(message_id, text, **({"buttons": kwargs["buttons"]} if "buttons" in kwargs else {}))
        return message_id

    def set(self, text: str) -> None:
        """Queue ``text`` for the next edit (called from the progress callback)."""
        self._pending = text

    async def flush(self, wait: bool = False) -> None:
        """Send the pending text if the interval allows (or after waiting for it when ``wait``)."""
        async with self._sending:
            if self._pending is None or self.message_id is None:
                return
            if self._pending == self._sent_text and self.buttons == self._sent_buttons:
                return
            gap = self.min_interval - (time.monotonic() - self._last_sent)
            if gap > 0:
                if not wait:
                    return
                await asyncio.sleep(gap)
            text, self._pending = self._pending, None
            buttons = self.buttons
            self._last_sent = time.monotonic()
            try:
                sent = await asyncio.to_thread(self._if_allowed, self.port.update, self.message_id, text,
                                               **with_buttons(self.port, buttons))
            except Exception as err:
                log.warning("event=status_update_failed error=%s", type(err).__name__)
                return
            if sent is WITHHELD:
                if self._pending is None:  # nothing newer was set meanwhile: try this text again later
                    self._pending = text
                return
            self._sent_text = text
            self._sent_buttons = buttons

    def _if_allowed(self, send: Callable[..., object], *args: object, **kwargs: object) -> object:
        """In the worker thread: ``send(*args, **kwargs)``'s result when ``may_write()`` allows, else
        :data:`WITHHELD` (also when it raises: logged). Errors of ``send`` itself are raised."""
        try:
            if self.may_write is not None and not self.may_write():
                return WITHHELD
        except Exception as err:  # the check could not tell (its store away): not now, the text stays pending
            log.warning("event=status_check_failed error=%s", type(err).__name__)
            return WITHHELD
        return send(*args, **kwargs)

    async def pump(self, stop: asyncio.Event, tick: float = 0.25) -> None:
        """Flush pending edits until ``stop`` is set (run as a task beside the research)."""
        while not stop.is_set():
            await self.flush()
            try:
                await asyncio.wait_for(stop.wait(), timeout=tick)
            except TimeoutError:
                pass


def progress_text(progress: Progress, *, resumed: bool = False, elapsed: float | None = None,
                  language: str = "en") -> str:
    """The status message for a progress snapshot; ``elapsed``: the seconds shown (the turn's
    attempt counts from when it began), default the graph turn's own (:attr:`Progress.elapsed`);
    ``language``: an ISO 639-1 code (:data:`jobs.phrases.WORDS`, English when it lacks one)."""
    head = WORDS("resumed_in_progress" if resumed else "in_progress", language)
    return f"{head}\n{progress.render(elapsed=elapsed, language=language)}"
