"""A fake Slack Socket Mode WebSocket endpoint on 127.0.0.1: sends envelopes, records the acks."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Self

from aiohttp import WSMsgType, web

from tests.waiting import LONG

LINK_PATH = "/link/"


@dataclass
class Ack:
    """One acknowledgement the client sent: ``{"envelope_id": ...[, "payload": ...]}``.

    ``at`` is ``time.monotonic()`` when it arrived; ``seconds`` how long after the envelope was
    sent; ``payload`` is None when the ack carried none.
    """

    envelope_id: str
    payload: dict[str, Any] | None
    at: float
    seconds: float
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class Connection:
    """One WebSocket the client opened: the ticket of its URL and when it opened and closed."""

    ticket: str
    opened: float
    closed: float | None = None
    ws: web.WebSocketResponse | None = field(default=None, repr=False)


class FakeSlackSocket:
    """Slack's Socket Mode endpoint, enough for slack_sdk's clients.

    :meth:`new_url` hands out a ``ws://127.0.0.1:PORT/link/?ticket=...`` URL (what
    ``apps.connections.open`` answers); each ticket opens one connection, as Slack's do, and an
    unknown or used one is refused with HTTP 401. A new connection first gets a ``hello``
    message. :meth:`slash_command`, :meth:`events_api` and :meth:`send_envelope` push envelopes
    on the newest open connection; the client's answers are kept in :attr:`acks`, anything else
    it sends in :attr:`other_messages`. :meth:`refresh` sends ``disconnect``
    (``refresh_requested``) the way Slack does before it recycles a connection.

    Use as a context manager, or :meth:`start` / :meth:`stop`.
    """

    def __init__(self, *, app_id: str = "A0APP") -> None:
        self.app_id = app_id
        self.acks: list[Ack] = []
        self.other_messages: list[Any] = []
        self.connections: list[Connection] = []
        self.refused: list[str] = []
        self._sent_at: dict[str, float] = {}
        self._tickets: set[str] = set()
        self._lock = threading.Condition()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server = None
        self._port = 0
        self._seq = itertools.count(1)

    # ---- lifecycle -----------------------------------------------------------------------
    def start(self) -> Self:
        """Listen on a free port of 127.0.0.1 from a daemon thread; returns self."""
        from bots.web_server import BackgroundServer

        application = web.Application()
        application.router.add_get(LINK_PATH, self._serve)
        application.on_shutdown.append(lambda _app: self._close_all())
        self._server = BackgroundServer(application, host="127.0.0.1", port=0).start()
        self._loop = self._server.loop
        self._port = self._server.port
        return self

    def stop(self) -> None:
        """Close every connection (code 1001) and stop listening."""
        if self._server is not None:
            self._server.stop()
            self._server = None
            self._loop = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound TCP port."""
        if not self._port:
            raise RuntimeError("server not started")
        return self._port

    def new_url(self) -> str:
        """A fresh single-use WebSocket URL, as ``apps.connections.open`` returns."""
        ticket = uuid.uuid4().hex
        with self._lock:
            self._tickets.add(ticket)
        return f"ws://127.0.0.1:{self.port}{LINK_PATH}?ticket={ticket}&app_id={self.app_id}"

    # ---- test controls -------------------------------------------------------------------
    def open_connections(self) -> list[Connection]:
        """The connections still open, oldest first."""
        with self._lock:
            return [c for c in self.connections if c.closed is None]

    def wait_connected(self, *, count: int = 1, sole: bool = False, timeout: float | None = None) -> Connection:
        """Wait until ``count`` connections were ever opened and one is open (with ``sole``, only
        one: the client has let go of the others); returns the newest open one."""
        def ready() -> Connection | None:
            with self._lock:
                open_now = [c for c in self.connections if c.closed is None]
                if len(self.connections) < count or not open_now or (sole and len(open_now) > 1):
                    return None
                return open_now[-1]

        return self._wait(ready, timeout, f"{count} Socket Mode connection(s)")

    def send_envelope(
        self, kind: str, payload: dict[str, Any], *, accepts_response_payload: bool,
        envelope_id: str | None = None, **extra: Any,
    ) -> str:
        """Send ``{"envelope_id", "type": kind, "payload", "accepts_response_payload", **extra}``
        on the newest open connection; returns the envelope id."""
        envelope_id = envelope_id or f"{uuid.uuid4()}"
        envelope = {"envelope_id": envelope_id, "type": kind, "payload": payload,
                    "accepts_response_payload": accepts_response_payload, **extra}
        with self._lock:
            self._sent_at[envelope_id] = time.monotonic()
        self._send(envelope)
        return envelope_id

    def slash_command(
        self, text: str, *, user: str, channel: str, team: str, response_url: str,
        command: str = "/research",
    ) -> str:
        """Send a ``slash_commands`` envelope for ``command text``; returns the envelope id."""
        payload = {
            "token": "legacy-verification-token", "team_id": team, "team_domain": "fake", "channel_id": channel,
            "channel_name": "research", "user_id": user, "user_name": user.lower(), "command": command,
            "text": text, "api_app_id": self.app_id, "is_enterprise_install": "false",
            "response_url": response_url, "trigger_id": f"{next(self._seq)}.1.{uuid.uuid4().hex}",
        }
        return self.send_envelope("slash_commands", payload, accepts_response_payload=True)

    def events_api(self, event: dict[str, Any], *, team: str, event_id: str | None = None,
                   retry_attempt: int = 0) -> str:
        """Send an ``events_api`` envelope carrying ``event`` as an ``event_callback``; returns the envelope id."""
        payload = {
            "token": "legacy-verification-token", "team_id": team, "api_app_id": self.app_id, "event": event,
            "type": "event_callback", "event_id": event_id or f"Ev{uuid.uuid4().hex[:10].upper()}",
            "event_time": int(time.time()), "is_ext_shared_channel": False,
        }
        return self.send_envelope("events_api", payload, accepts_response_payload=False,
                                  retry_attempt=retry_attempt, retry_reason="" if not retry_attempt else "timeout")

    def refresh(self) -> None:
        """Send ``{"type": "disconnect", "reason": "refresh_requested"}`` on the newest open connection."""
        self._send({"type": "disconnect", "reason": "refresh_requested", "debug_info": {"host": "fake"}})

    def ack_for(self, envelope_id: str) -> Ack | None:
        """The ack of ``envelope_id``, or None while there is none."""
        with self._lock:
            return next((a for a in self.acks if a.envelope_id == envelope_id), None)

    def wait_ack(self, envelope_id: str, *, timeout: float | None = None) -> Ack:
        """Wait for the ack of ``envelope_id``; returns it (its ``seconds`` say how late it came)."""
        return self._wait(lambda: self.ack_for(envelope_id), timeout, f"the ack of envelope {envelope_id}")

    # ---- the server ----------------------------------------------------------------------
    def _wait(self, predicate: Callable[[], Any], timeout: float | None, what: str) -> Any:
        """Wait for ``predicate`` (checked whenever the state changes); ``timeout`` defaults to
        :data:`tests.waiting.LONG`. Raises AssertionError naming ``what``."""
        timeout = LONG if timeout is None else timeout
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                value = predicate()
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out after {timeout}s waiting for {what}")
                self._lock.wait(min(left, 0.05))

    def _send(self, message: dict[str, Any]) -> None:
        connection = self.wait_connected()
        loop = self._loop
        if loop is None or connection.ws is None:
            raise RuntimeError("server not started")
        asyncio.run_coroutine_threadsafe(connection.ws.send_str(json.dumps(message)), loop).result(LONG)

    async def _serve(self, request: web.Request) -> web.StreamResponse:
        ticket = request.query.get("ticket", "")
        with self._lock:
            valid = ticket in self._tickets
            self._tickets.discard(ticket)
            if not valid:
                self.refused.append(ticket)
        if not valid:
            return web.json_response({"ok": False, "error": "invalid_ticket"}, status=401)
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        connection = Connection(ticket=ticket, opened=time.monotonic(), ws=ws)
        with self._lock:
            number = len(self.connections) + 1
            others = len([c for c in self.connections if c.closed is None])
        await ws.send_str(json.dumps({
            "type": "hello", "num_connections": others + 1,
            "debug_info": {"host": f"fake-applink-{number}", "build_number": 1, "approximate_connection_time": 3600},
            "connection_info": {"app_id": self.app_id},
        }))
        with self._lock:  # joins only after its hello, so no envelope overtakes it
            self.connections.append(connection)
            self._lock.notify_all()
        try:
            async for message in ws:
                if message.type == WSMsgType.TEXT:
                    self._received(message.data)
                elif message.type == WSMsgType.ERROR:
                    break
        finally:
            with self._lock:
                connection.closed = time.monotonic()
                self._lock.notify_all()
        return ws

    def _received(self, data: str) -> None:
        now = time.monotonic()
        try:
            message = json.loads(data)
        except ValueError:
            message = None
        with self._lock:
            if isinstance(message, dict) and isinstance(message.get("envelope_id"), str):
                envelope_id = message["envelope_id"]
                sent = self._sent_at.get(envelope_id, now)
                self.acks.append(Ack(envelope_id=envelope_id, payload=message.get("payload"), at=now,
                                     seconds=now - sent, raw=message))
            else:
                self.other_messages.append(message if message is not None else data)
            self._lock.notify_all()

    async def _close_all(self) -> None:
        for connection in list(self.connections):
            if connection.ws is not None and not connection.ws.closed:
                await connection.ws.close(code=1001, message=b"going away")
