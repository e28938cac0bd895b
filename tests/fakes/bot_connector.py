"""A fake Bot Framework connector (Teams' serviceUrl) on 127.0.0.1, plus a fake OneDrive upload URL."""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

_ACTIVITIES = re.compile(r"^/v3/conversations/([^/]+)/activities(?:/([^/]+))?/?$")
_UPLOAD = re.compile(r"^/upload/([^/]+)$")
_RANGE = re.compile(r"^bytes (\d+)-(\d+)/(\d+)$")


@dataclass
class ConnectorCall:
    """One request the fake answered.

    Attributes:
        method: ``POST`` (send or reply) or ``PUT`` (update, upload).
        path: the raw request path.
        conversation_id: the decoded ``{conversationId}`` (channel reply chains keep ``;messageid=``).
        activity_id: the ``{activityId}`` of a reply (POST) or an update (PUT), else None.
        body: the JSON activity (dict), or the raw bytes of an upload.
        authorization: the ``Authorization`` header (None when the bot runs unauthenticated).
        status: the HTTP status answered; ``answer_id``: the id returned to the bot.
        at: ``time.monotonic()`` when the request was read.
    """

    method: str
    path: str
    conversation_id: str | None = None
    activity_id: str | None = None
    body: Any = None
    authorization: str | None = field(default=None, repr=False)
    status: int = 0
    answer_id: str | None = None
    at: float = 0.0

    @property
    def activity(self) -> dict:
        """The JSON activity sent (an empty dict for uploads)."""
        return self.body if isinstance(self.body, dict) else {}

    @property
    def text(self) -> str:
        """The activity's text ('' when none)."""
        return self.activity.get("text") or ""

    @property
    def type(self) -> str:
        """The activity's type (``message``, ``typing``...)."""
        return self.activity.get("type") or ""

    @property
    def attachments(self) -> list[dict]:
        """The activity's attachments (cards)."""
        return self.activity.get("attachments") or []


class FakeBotConnector:
    """The Bot Framework connector REST API as far as a bot uses it, on a free 127.0.0.1 port.

    Records ``POST /v3/conversations/{id}/activities``, ``POST .../activities/{replyToId}``
    and ``PUT .../activities/{activityId}`` and answers ``{"id": ...}``; accepts upload PUTs at
    :meth:`upload_url` (``Content-Range`` chunks are assembled in :attr:`uploads`). ``latency``
    (seconds, changeable at run time) is slept before every answer; :meth:`fail_next` makes
    the next calls answer an error status (e.g. 429). Thread-safe; use as a context manager.
    """

    def __init__(self, *, latency: float = 0.0) -> None:
        self.latency = latency
        self.calls: list[ConnectorCall] = []
        self.uploads: dict[str, bytes] = {}
        self._parts: dict[str, bytearray] = {}
        self._failures: list[int] = []
        self._ids = itertools.count(1)
        self._cond = threading.Condition()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle --------------------------------------------------------------------------
    def start(self) -> FakeBotConnector:
        """Bind a free port and serve on a daemon thread; returns self."""
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # answer at once, no delayed-ACK stall

            def do_POST(self) -> None:  # noqa: N802 (stdlib naming)
                owner._serve(self)

            def do_PUT(self) -> None:  # noqa: N802
                owner._serve(self)

            def do_GET(self) -> None:  # noqa: N802
                owner._serve(self)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                """Silence the per-request log."""

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        self._httpd = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeBotConnector:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """The ``serviceUrl`` to put in activities: ``http://127.0.0.1:PORT/``."""
        if self._httpd is None:
            raise RuntimeError("connector not started")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/"

    def upload_url(self, name: str) -> str:
        """A fake OneDrive upload-session URL for a file called ``name``."""
        return f"{self.url}upload/{name}"

    def fail_next(self, status: int, times: int = 1) -> None:
        """Answer the next ``times`` connector calls with HTTP ``status`` (uploads excluded)."""
        with self._cond:
            self._failures.extend([status] * times)

    # ---- queries ----------------------------------------------------------------------------
    def messages(self, conversation_id: str | None = None) -> list[ConnectorCall]:
        """Successful POSTed activities of type ``message`` (optionally in one conversation)."""
        with self._cond:
            return [
                c for c in self.calls
                if c.method == "POST" and c.status < 300 and c.type == "message"
                and (conversation_id is None or c.conversation_id == conversation_id)
            ]

    def typing(self) -> list[ConnectorCall]:
        """POSTed typing indicators."""
        with self._cond:
            return [c for c in self.calls if c.method == "POST" and c.type == "typing"]

    def updates(self, activity_id: str | None = None) -> list[ConnectorCall]:
        """Successful PUT updates of activities (optionally of one activity id)."""
        with self._cond:
            return [
                c for c in self.calls
                if c.method == "PUT" and c.conversation_id is not None and c.status < 300
                and (activity_id is None or c.activity_id == activity_id)
            ]

    def wait_for(self, predicate, timeout: float = 30.0, what: str = "connector calls") -> list[ConnectorCall]:
        """Wait until ``predicate(self)`` is truthy; return :attr:`calls`. Raises TimeoutError."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                if predicate(self):
                    return list(self.calls)
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [(c.method, c.type, c.text[:60]) for c in self.calls]
                    raise TimeoutError(f"timed out waiting for {what}; calls so far: {seen}")
                self._cond.wait(min(left, 0.1))

    # ---- serving ----------------------------------------------------------------------------
    def _serve(self, h: BaseHTTPRequestHandler) -> None:
        path = h.path.split("?", 1)[0]
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        call = ConnectorCall(h.command, path, authorization=h.headers.get("Authorization"), at=time.monotonic())
        status, answer = self._route(h, path, raw, call)
        if self.latency > 0:
            time.sleep(self.latency)
        call.status = status
        with self._cond:
            self.calls.append(call)
            self._cond.notify_all()
        data = json.dumps(answer).encode("utf-8")
        h.send_response(status)
        h.send_header("Content-Type", "application/json; charset=utf-8")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    def _route(self, h: BaseHTTPRequestHandler, path: str, raw: bytes, call: ConnectorCall) -> tuple[int, Any]:
        upload = _UPLOAD.match(path)
        if upload and h.command == "PUT":
            call.body = raw
            return self._upload(unquote(upload.group(1)), h.headers.get("Content-Range", ""), raw)
        match = _ACTIVITIES.match(path)
        if not match or h.command not in ("POST", "PUT"):
            return 404, {"error": {"code": "NotFound", "message": f"no route {h.command} {path}"}}
        call.conversation_id = unquote(match.group(1))
        call.activity_id = unquote(match.group(2)) if match.group(2) else None
        try:
            call.body = json.loads(raw) if raw else None
        except ValueError:
            return 400, {"error": {"code": "BadArgument", "message": "body is not JSON"}}
        if h.command == "PUT" and not call.activity_id:
            return 405, {"error": {"code": "BadArgument", "message": "PUT needs an activity id"}}
        with self._cond:
            failure = self._failures.pop(0) if self._failures else None
        if failure:
            return failure, {"error": {"code": "Throttled" if failure == 429 else "ServiceError", "message": "fake"}}
        call.answer_id = call.activity_id if h.command == "PUT" else f"activity-{next(self._ids)}"
        return (200 if h.command == "PUT" else 201), {"id": call.answer_id}

    def _upload(self, name: str, content_range: str, raw: bytes) -> tuple[int, Any]:
        match = _RANGE.match(content_range.strip())
        if not match:
            return 400, {"error": {"code": "invalidRange", "message": "Content-Range required"}}
        start, end, total = (int(g) for g in match.groups())
        if end - start + 1 != len(raw) or end >= total:
            return 400, {"error": {"code": "invalidRange", "message": "range does not match the body"}}
        with self._cond:
            buffer = self._parts.setdefault(name, bytearray())
            if start != len(buffer):
                return 416, {"error": {"code": "invalidRange", "message": "unexpected start"}}
            buffer.extend(raw)
            if len(buffer) == total:
                self.uploads[name] = bytes(buffer)
                del self._parts[name]
                return 201, {"id": f"item-{name}", "name": name, "size": total}
        return 202, {"nextExpectedRanges": [f"{end + 1}-"]}


def main() -> None:
    """Run the fake on a free port and print its ``serviceUrl`` (for manual runs and benchmarks)."""
    with FakeBotConnector() as fake:
        print(fake.url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
