"""A fake Bot Framework connector (Teams' serviceUrl) on 127.0.0.1, plus a fake OneDrive upload URL."""

from __future__ import annotations

import itertools
import json
import re
import secrets
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from tests.fakes.loopback import CallRecord, HTTPAnswer, LoopbackServer
from tests.waiting import LONG

_ACTIVITIES = re.compile(r"^/v3/conversations/([^/]+)/activities(?:/([^/]+))?/?$")
_UPLOAD = re.compile(r"^/upload/([^/]+)$")
_DOWNLOAD = re.compile(r"^/download/([^/]+)/[^/]+$")
_RANGE = re.compile(r"^bytes (\d+)-(\d+)/(\d+)$")


@dataclass
class ConnectorCall(CallRecord):
    """One request the fake answered.

    Attributes (besides :class:`CallRecord`'s ``method``, ``path``, ``authorization``, ``status``...):
        conversation_id: the decoded ``{conversationId}`` (channel reply chains keep ``;messageid=``).
        activity_id: the ``{activityId}`` of a reply (POST) or an update (PUT), else None.
        body: the JSON activity (dict), or the raw bytes of an upload.
        answer_id: the id returned to the bot.
    """

    conversation_id: str | None = None
    activity_id: str | None = None
    answer_id: str | None = None

    @property
    def at(self) -> float:
        """``time.monotonic()`` when the request was read."""
        return self.start

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


class FakeBotConnector(LoopbackServer):
    """The Bot Framework connector REST API as far as a bot uses it, on a free 127.0.0.1 port.

    Records ``POST /v3/conversations/{id}/activities``, ``POST .../activities/{replyToId}``
    and ``PUT .../activities/{activityId}`` and answers ``{"id": ...}``; accepts upload PUTs at
    :meth:`upload_url` (``Content-Range`` chunks are assembled in :attr:`uploads`). ``latency``
    (seconds, changeable at run time) is slept before every answer; :meth:`fail_next` makes
    the next calls answer an error status (e.g. 429). A call joins :attr:`calls` once it is
    answered. Thread-safe; use as a context manager.
    """

    http_methods = ("GET", "POST", "PUT")
    json_body = False
    content_type = "application/json; charset=utf-8"
    record_type = ConnectorCall
    record_on_arrival = False
    calls: list[ConnectorCall]

    def __init__(self, *, latency: float = 0.0) -> None:
        super().__init__(latency=latency)
        self.uploads: dict[str, bytes] = {}
        self._parts: dict[str, bytearray] = {}
        self._failures: list[int] = []
        self._ids = itertools.count(1)
        self._accept_token: Callable[[str], bool] | None = None
        self._shared: dict[str, bytes] = {}

    @property
    def url(self) -> str:
        """The ``serviceUrl`` to put in activities: ``http://127.0.0.1:PORT/``."""
        return f"http://127.0.0.1:{self.port}/"

    def upload_url(self, name: str) -> str:
        """A fake OneDrive upload-session URL for a file called ``name``."""
        return f"{self.url}upload/{name}"

    def file_attachment(self, name: str, data: bytes) -> dict:
        """A ``file.download.info`` attachment as Teams puts on a personal-chat message carrying a
        file: ``contentUrl`` the file in OneDrive, ``content.downloadUrl`` a pre-authenticated URL
        on this server (GET, no Authorization; the secret path is the credential)."""
        key = secrets.token_urlsafe(16)
        with self._lock:
            self._shared[key] = data
        return {
            "contentType": "application/vnd.microsoft.teams.file.download.info",
            "contentUrl": f"https://contoso-my.sharepoint.com/personal/alice/Documents/Microsoft Teams Chat Files/{name}",
            "name": name,
            "content": {"downloadUrl": f"{self.url}download/{key}/{name}", "uniqueId": key,
                        "fileType": name.rsplit(".", 1)[-1]},
        }

    def fail_next(self, status: int, times: int = 1) -> None:
        """Answer the next ``times`` connector calls with HTTP ``status`` (uploads excluded)."""
        with self._lock:
            self._failures.extend([status] * times)

    def require_token(self, accept: Callable[[str], bool] | None) -> None:
        """From now on answer 401 to connector calls (uploads excluded) without ``Authorization:
        Bearer <token>`` or whose token ``accept`` refuses; None accepts any call (the default)."""
        with self._lock:
            self._accept_token = accept

    # ---- queries ----------------------------------------------------------------------------
    def messages(self, conversation_id: str | None = None) -> list[ConnectorCall]:
        """Successful POSTed activities of type ``message`` (optionally in one conversation)."""
        with self._lock:
            return [
                c for c in self.calls
                if c.method == "POST" and c.status < 300 and c.type == "message"
                and (conversation_id is None or c.conversation_id == conversation_id)
            ]

    def typing(self) -> list[ConnectorCall]:
        """POSTed typing indicators."""
        with self._lock:
            return [c for c in self.calls if c.method == "POST" and c.type == "typing"]

    def updates(self, activity_id: str | None = None) -> list[ConnectorCall]:
        """Successful PUT updates of activities (optionally of one activity id)."""
        with self._lock:
            return [
                c for c in self.calls
                if c.method == "PUT" and c.conversation_id is not None and c.status < 300
                and (activity_id is None or c.activity_id == activity_id)
            ]

    def wait_for(self, predicate: Callable[[FakeBotConnector], Any], timeout: float | None = None,
                 what: str = "connector calls") -> Any:
        """Wait until ``predicate(self)`` is truthy (checked whenever a call arrives); return that value.

        The value, not every call so far: a reply posted elsewhere meanwhile is not the last item of
        what a test waited for.

        ``timeout``: a safety bound in seconds, :data:`tests.waiting.LONG` by default.

        Raises:
            TimeoutError: naming ``what`` and the calls so far.
        """
        timeout = LONG if timeout is None else timeout
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                if found := predicate(self):
                    return found
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [(c.method, c.type, c.text[:60]) for c in self.calls]
                    raise TimeoutError(f"timed out waiting for {what}; calls so far: {seen}")
                self._lock.wait(min(left, 0.1))

    # ---- serving ----------------------------------------------------------------------------
    def route(self, method: str, path: str, body: bytes, record: ConnectorCall) -> HTTPAnswer:
        """Answer an upload chunk or a connector call (send, reply, update)."""
        raw, record.body = body, None
        download = _DOWNLOAD.match(path)
        if download and method == "GET":
            with self._lock:
                data = self._shared.get(download.group(1))
            return HTTPAnswer(200, data) if data is not None else _error(404, "itemNotFound", "no such file")
        upload = _UPLOAD.match(path)
        if upload and method == "PUT":
            record.body = raw
            return self._upload(unquote(upload.group(1)), record.headers.get("content-range", ""), raw)
        match = _ACTIVITIES.match(path)
        if not match or method not in ("POST", "PUT"):
            return _error(404, "NotFound", f"no route {method} {path}")
        record.conversation_id = unquote(match.group(1))
        record.activity_id = unquote(match.group(2)) if match.group(2) else None
        try:
            record.body = json.loads(raw) if raw else None
        except ValueError:
            return _error(400, "BadArgument", "body is not JSON")
        if method == "PUT" and not record.activity_id:
            return _error(405, "BadArgument", "PUT needs an activity id")
        with self._lock:
            accept = self._accept_token
        scheme, _, token = (record.authorization or "").partition(" ")
        if accept is not None and (scheme != "Bearer" or not token or not accept(token)):
            return _error(401, "Unauthorized", "Authorization has been denied for this request.")
        with self._lock:
            failure = self._failures.pop(0) if self._failures else None
        if failure:
            return _error(failure, "Throttled" if failure == 429 else "ServiceError", "fake")
        record.answer_id = record.activity_id if method == "PUT" else f"activity-{next(self._ids)}"
        return HTTPAnswer(200 if method == "PUT" else 201, {"id": record.answer_id})

    def _upload(self, name: str, content_range: str, raw: bytes) -> HTTPAnswer:
        match = _RANGE.match(content_range.strip())
        if not match:
            return _error(400, "invalidRange", "Content-Range required")
        start, end, total = (int(g) for g in match.groups())
        if end - start + 1 != len(raw) or end >= total:
            return _error(400, "invalidRange", "range does not match the body")
        with self._lock:
            buffer = self._parts.setdefault(name, bytearray())
            if start != len(buffer):
                return _error(416, "invalidRange", "unexpected start")
            buffer.extend(raw)
            if len(buffer) == total:
                self.uploads[name] = bytes(buffer)
                del self._parts[name]
                return HTTPAnswer(201, {"id": f"item-{name}", "name": name, "size": total})
        return HTTPAnswer(202, {"nextExpectedRanges": [f"{end + 1}-"]})


def _error(status: int, code: str, message: str) -> HTTPAnswer:
    return HTTPAnswer(status, {"error": {"code": code, "message": message}})


def main() -> None:
    """Run the fake on a free port and print its ``serviceUrl`` (for manual runs and benchmarks)."""
    with FakeBotConnector() as fake:
        print(fake.url, flush=True)
        try:
            signal.pause()  # until Ctrl-C or SIGTERM
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
