"""A fake Slack Web API on 127.0.0.1 for tests and benchmarks: records calls and keeps the threads."""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from tests.fakes.loopback import CallRecord, HTTPAnswer, LoopbackServer
from tests.waiting import wait_for

# Limits the fake enforces as Slack does, so a test fails where Slack would refuse.
SECTION_TEXT_LIMIT = 3000  # https://docs.slack.dev/reference/block-kit/blocks/section-block
MAX_BLOCKS = 50  # https://docs.slack.dev/reference/block-kit/blocks
BLOCKS_TEXT_LIMIT = 13000  # msg_blocks_too_long, as observed (slackapi/bolt-js#2509)
# https://docs.slack.dev/reference/block-kit/blocks/actions-block and .../block-elements/button-element
MAX_ACTION_ELEMENTS = 25
BUTTON_TEXT_LIMIT = 75
BUTTON_VALUE_LIMIT = 2000
ACTION_ID_LIMIT = 255


@dataclass
class Call(CallRecord):
    """One request the fake received: ``method`` is the Web API method (``chat.postMessage``),
    ``upload`` for a file upload URL, ``response_url`` for a slash command's response URL;
    ``params`` merges the query string and the form-encoded or JSON body; ``body`` is the raw
    bytes; ``headers`` has lower-cased names."""

    params: dict[str, Any] = field(default_factory=dict)

    @property
    def at(self) -> float:
        """``time.monotonic()`` when the request was read."""
        return self.start


class FakeSlackAPI(LoopbackServer):
    """A loopback HTTP server speaking enough of the Slack Web API for the bot.

    Methods: ``auth.test``, ``chat.postMessage``, ``chat.postEphemeral``, ``chat.update``,
    ``chat.getPermalink``, ``users.info`` (people in :attr:`users`), ``files.info``, ``reactions.add``,
    ``conversations.replies``, ``conversations.history``, the files people shared (:meth:`share_file`, downloaded from
    ``url_private_download`` with the bot token only), ``files.getUploadURLExternal``, the upload URL
    it hands out (``/upload/{file_id}``), ``files.completeUploadExternal``, slash-command
    response URLs (``/response/{id}``), and ``apps.connections.open`` (app-level token only)
    once :meth:`enable_socket_mode` was called. Parameters are read from the query string,
    form-encoded and JSON bodies alike. ``latency`` (seconds) delays every answer;
    :meth:`rate_limit` makes the next calls of a method answer HTTP 429 with ``Retry-After``;
    :meth:`hold` keeps the next call of a method waiting for its answer. A call joins :attr:`calls`
    once it is answered.

    Use as a context manager, or :meth:`start` / :meth:`stop`; ``base_url`` is what
    ``SLACK_API_URL`` should be.
    """

    api_prefix = "/api/"
    json_body = False
    content_type = "application/json; charset=utf-8"
    record_type = Call
    record_on_arrival = False
    calls: list[Call]

    def __init__(
        self,
        *,
        token: str = "xoxb-fake-bot-token",
        team_id: str = "T0TEAM",
        bot_user_id: str = "U0BOT",
        bot_id: str = "B0BOT",
        latency: float = 0.0,
    ) -> None:
        super().__init__(latency=latency)
        self.token = token
        self.team_id = team_id
        self.bot_user_id = bot_user_id
        self.bot_id = bot_id
        self.missing_channels: set[str] = set()
        self.uploads: dict[str, dict[str, Any]] = {}
        self._messages: list[dict[str, Any]] = []
        self._limits: dict[str, list[int]] = {}
        self._failures: dict[str, list[Any]] = {}
        self._holds: dict[str, Held] = {}  # by method, until its call arrives
        self._held: list[Held] = []  # every hold made, released when the fake stops
        self._seq = itertools.count(1)
        self._last_ts = 0.0
        self.app_token: str | None = None
        self.socket_url: str | Callable[[], str] | None = None
        #: files people shared: id -> {"data", "name", ...}; served at ``/files-pri/{team}-{id}/download/{name}``
        self.files: dict[str, dict[str, Any]] = {}
        #: people ``users.info`` knows: id -> display name
        self.users: dict[str, str] = {}

    # ---- test controls -------------------------------------------------------------------
    def enable_socket_mode(self, url: str | Callable[[], str], *, app_token: str) -> None:
        """Answer ``apps.connections.open`` called with ``app_token`` with ``url`` (or a fresh
        ``url()`` per call), as Slack hands out Socket Mode WebSocket URLs."""
        self.socket_url = url
        self.app_token = app_token

    def rate_limit(self, method: str, *, times: int = 1, retry_after: int = 0) -> None:
        """Answer the next ``times`` calls of ``method`` with HTTP 429 and ``Retry-After``."""
        with self._lock:
            self._limits[method] = [times, retry_after]

    def hold(self, method: str) -> Held:
        """Keep the next call of ``method`` unanswered until the returned :class:`Held` is released
        (or the fake stops); its ``arrived`` event is set once that call is read. Later calls are
        answered as usual."""
        held = Held()
        with self._lock:
            self._holds[method] = held
            self._held.append(held)
        return held

    def stop(self) -> None:
        """Release every held call, then stop serving."""
        with self._lock:
            holds = list(self._held)
        for held in holds:
            held.release()
        super().stop()

    def fail(self, method: str, error: str, *, times: int = 1, status: int = 200, applied: bool = False,
             match: Callable[[dict], bool] | None = None) -> None:
        """Answer the next ``times`` calls of ``method`` with ``{"ok": false, "error": error}`` and
        HTTP ``status`` (Slack's own errors come with 200; a 5xx is a server or gateway fault).
        ``applied``: each call takes effect first (a message is posted), as Slack documents that part
        of a call failing with ``internal_error`` may have succeeded. ``match``: only calls whose
        parameters it accepts fail (and count)."""
        with self._lock:
            self._failures[method] = [times, error, status, applied, match]

    def add_message(self, channel: str, text: str, *, user: str, thread_ts: str | None = None) -> str:
        """Record a message a person wrote (so ``conversations.replies`` sees it); returns its ts."""
        return self._store({"channel": channel, "text": text, "user": user, "thread_ts": thread_ts})["ts"]

    def share_file(self, channel: str, name: str, data: bytes, *, user: str, thread_ts: str | None = None,
                   text: str = "", ts: str | None = None, shared_in: str | None = None) -> dict[str, Any]:
        """Record a ``file_share`` message of ``user`` carrying one file (as Slack's events and
        ``conversations.replies`` show it: ``url_private_download`` on this server, ``channels``
        the file is shared in, ``shared_in`` when it is another conversation); returns the message."""
        file_id = f"F{next(self._seq):08d}"
        url = f"http://127.0.0.1:{self.port}/files-pri/{self.team_id}-{file_id}/download/{name}"
        item = {"id": file_id, "name": name, "title": name, "size": len(data), "mode": "hosted",
                "filetype": name.rsplit(".", 1)[-1], "user": user, "url_private": url,
                "url_private_download": url, "channels": [shared_in or channel]}
        with self._lock:
            self.files[file_id] = {**item, "data": data}
        message = {"channel": channel, "text": text, "user": user, "thread_ts": thread_ts,
                   "subtype": "file_share", "files": [item]}
        if ts:
            with self._lock:
                self._messages.append({**message, "ts": ts})
            return {**message, "ts": ts}
        return self._store(message)

    def calls_to(self, method: str) -> list[Call]:
        """The calls of one method, oldest first."""
        with self._lock:
            return [c for c in self.calls if c.method == method]

    def messages(self, channel: str | None = None) -> list[dict[str, Any]]:
        """Stored messages (bot posts, file shares, :meth:`add_message`), oldest first."""
        with self._lock:
            return [dict(m) for m in self._messages if channel is None or m["channel"] == channel]

    def thread(self, channel: str, ts: str) -> list[dict[str, Any]]:
        """The root message ``ts`` of ``channel`` (if stored) and every reply, oldest first."""
        return [m for m in self.messages(channel) if m["ts"] == ts or m.get("thread_ts") == ts]

    def wait_for(self, predicate: Callable[[], Any], *, timeout: float | None = None, what: str = "condition") -> Any:
        """Poll ``predicate`` until it returns a truthy value (returned); see :func:`tests.waiting.wait_for`.

        ``timeout``: a safety bound in seconds, :data:`tests.waiting.LONG` by default.

        Raises:
            AssertionError: naming ``what`` and the API methods called so far.
        """
        def methods() -> str:
            with self._lock:
                return f"calls so far: {[c.method for c in self.calls]}"

        return wait_for(predicate, what=what, timeout=timeout, every=0.02, diag=methods)

    # ---- the server ----------------------------------------------------------------------
    def _store(self, message: dict[str, Any]) -> dict[str, Any]:
        # a ts is the Unix time the message was stored, as Slack's are, one microsecond after the last at least
        with self._lock:
            self._last_ts = max(round(time.time(), 6), round(self._last_ts + 1e-6, 6))
            message = {**message, "ts": f"{self._last_ts:.6f}"}
            self._messages.append(message)
        return message

    def route(self, method: str, path: str, body: bytes, record: Call) -> HTTPAnswer:
        """Name the Web API method of the request, gather its parameters and answer it."""
        is_upload = path.startswith("/upload/")
        if path.startswith("/files-pri/"):
            record.method = "file_download"
            return self._download(path, record.headers)
        if path.startswith("/api/"):
            api_method = path[len("/api/"):]
        elif is_upload:
            api_method = "upload"
        elif path.startswith("/response/"):
            api_method = "response_url"
        else:
            api_method = path
        record.method = api_method
        # an upload URL takes the file's raw bytes, whatever Content-Type the client claims
        params = _params(record.query, b"" if is_upload else body, record.headers.get("content-type", ""))
        if is_upload:
            params["file_id"] = path[len("/upload/"):]
        record.params = params
        return self._answer(api_method, params, record.headers, body)

    def crashed(self, exc: Exception, record: CallRecord) -> HTTPAnswer:
        """A fake's bug shows as a failed call, not a hung client."""
        return HTTPAnswer(500, {"ok": False, "error": f"fake_error: {exc!r}"})

    def _answer(self, method: str, params: dict, headers: dict, body: bytes) -> HTTPAnswer:
        with self._lock:
            held = self._holds.pop(method, None)
        if held is not None:
            held.arrived.set()
            held.released.wait()
        with self._lock:
            limit = self._limits.get(method)
            if limit and limit[0] > 0:
                limit[0] -= 1
                return HTTPAnswer(429, {"ok": False, "error": "ratelimited"}, {"Retry-After": str(limit[1])})
            failure = self._failures.get(method)
            failing = bool(failure and failure[0] > 0 and (failure[4] is None or failure[4](params)))
            if failing:
                failure[0] -= 1
                if not failure[3]:
                    return HTTPAnswer(failure[2], {"ok": False, "error": failure[1]})
        answer = self._answer_call(method, params, headers, body)
        return HTTPAnswer(failure[2], {"ok": False, "error": failure[1]}) if failing else answer

    def _answer_call(self, method: str, params: dict, headers: dict, body: bytes) -> HTTPAnswer:
        if method == "upload":
            return self._upload(params["file_id"], body)
        if method == "response_url":
            return HTTPAnswer(200, b"ok")
        token = headers.get("authorization", "").removeprefix("Bearer ").strip() or params.get("token", "")
        if method == "apps.connections.open" and self.socket_url is not None:
            return HTTPAnswer(200, self._apps_connections_open(token))
        if token != self.token:
            return HTTPAnswer(200, {"ok": False, "error": "invalid_auth" if token else "not_authed"})
        handler = getattr(self, "_m_" + method.replace(".", "_"), None)
        if handler is None:
            return HTTPAnswer(200, {"ok": False, "error": "unknown_method"})
        channel = params.get("channel") or params.get("channel_id")
        if channel and channel in self.missing_channels:
            return HTTPAnswer(200, {"ok": False, "error": "channel_not_found"})
        return HTTPAnswer(200, handler(params))

    def _download(self, path: str, headers: dict) -> HTTPAnswer:
        """A file's bytes, only with the bot token (``Authorization: Bearer``), as Slack serves
        ``url_private_download``; without it Slack answers with its sign-in page, here a 403."""
        token = headers.get("authorization", "").removeprefix("Bearer ").strip()
        if token != self.token:
            return HTTPAnswer(403, b"<html>sign in</html>")
        file_id = path.split("/")[2].split("-", 1)[-1]
        with self._lock:
            entry = self.files.get(file_id)
        if entry is None:
            return HTTPAnswer(404, b"not found")
        return HTTPAnswer(200, entry["data"])

    def _upload(self, file_id: str, body: bytes) -> HTTPAnswer:
        with self._lock:
            entry = self.uploads.get(file_id)
            if entry is None:
                return HTTPAnswer(404, b"unknown upload url")
            entry["data"] = body
        return HTTPAnswer(200, f"OK - {len(body)}".encode())

    # ---- methods -------------------------------------------------------------------------
    def _apps_connections_open(self, token: str) -> dict:
        # only the app-level token opens a connection; Slack refuses a bot token for this method
        if not token:
            return {"ok": False, "error": "not_authed"}
        if not token.startswith("xapp-"):
            return {"ok": False, "error": "not_allowed_token_type"}
        if token != self.app_token:
            return {"ok": False, "error": "invalid_auth"}
        url = self.socket_url() if callable(self.socket_url) else self.socket_url
        return {"ok": True, "url": url}

    def _m_auth_test(self, p: dict) -> dict:
        return {
            "ok": True, "url": "https://fake-team.slack.com/", "team": "Fake Team", "user": "deepresearch",
            "team_id": self.team_id, "user_id": self.bot_user_id, "bot_id": self.bot_id,
            "is_enterprise_install": False,
        }

    def _m_chat_postMessage(self, p: dict) -> dict:  # noqa: N802
        blocks = _json_field(p.get("blocks")) or []
        problem = _check_message(p.get("text"), blocks)
        if problem:
            return {"ok": False, "error": problem}
        metadata = _json_field(p.get("metadata"))
        if metadata is not None and not (isinstance(metadata, dict) and metadata.get("event_type")
                                         and isinstance(metadata.get("event_payload"), dict)):
            return {"ok": False, "error": "invalid_metadata_format"}
        message = self._store({
            "channel": p["channel"], "text": p.get("text", ""), "blocks": blocks, "user": self.bot_user_id,
            "bot_id": self.bot_id, "thread_ts": p.get("thread_ts"), **({"metadata": metadata} if metadata else {}),
        })
        return {"ok": True, "channel": p["channel"], "ts": message["ts"], "message": message}

    def _m_chat_postEphemeral(self, p: dict) -> dict:  # noqa: N802
        if not p.get("user"):
            return {"ok": False, "error": "user_not_in_channel"}
        return {"ok": True, "message_ts": f"{time.time():.6f}"}

    def _m_chat_update(self, p: dict) -> dict:
        blocks = _json_field(p.get("blocks")) or []
        problem = _check_message(p.get("text"), blocks)
        if problem:
            return {"ok": False, "error": problem}
        with self._lock:
            for message in self._messages:
                if message["channel"] == p.get("channel") and message["ts"] == p.get("ts"):
                    message.update(text=p.get("text", ""), blocks=blocks, edited=True)
                    return {"ok": True, "channel": p["channel"], "ts": p["ts"], "text": message["text"]}
        return {"ok": False, "error": "message_not_found"}

    def _m_reactions_add(self, p: dict) -> dict:
        if not (p.get("channel") and p.get("timestamp") and p.get("name")):
            return {"ok": False, "error": "invalid_arguments"}
        return {"ok": True}

    def _m_conversations_replies(self, p: dict) -> dict:
        # cursor pagination as Slack pages it: ``limit`` messages a page, the next page's cursor in
        # ``response_metadata.next_cursor`` while ``has_more`` (https://docs.slack.dev/apis/web-api/pagination)
        # a message's metadata only with ``include_all_metadata``
        messages = self.thread(p.get("channel", ""), p.get("ts", ""))
        if str(p.get("include_all_metadata", "")).lower() not in ("1", "true"):
            messages = [{k: v for k, v in m.items() if k != "metadata"} for m in messages]
        limit = max(1, min(int(p.get("limit") or 1000), 1000))
        start = int(p.get("cursor") or 0)
        page, rest = messages[start:start + limit], messages[start + limit:]
        return {"ok": True, "messages": page, "has_more": bool(rest),
                "response_metadata": {"next_cursor": str(start + limit) if rest else ""}}

    def _m_conversations_history(self, p: dict) -> dict:
        # the channel's own messages (no thread's replies), newest first, ``limit`` of them a page, their
        # metadata only with ``include_all_metadata`` (https://docs.slack.dev/reference/methods/conversations.history)
        # ``oldest``: only messages after that Unix time (``inclusive`` takes one at that time too)
        oldest = float(p.get("oldest") or 0)
        inclusive = str(p.get("inclusive", "")).lower() in ("1", "true")
        messages = [m for m in reversed(self.messages(p.get("channel", "")))
                    if (not m.get("thread_ts") or m["thread_ts"] == m["ts"])
                    and (float(m["ts"]) > oldest or inclusive and float(m["ts"]) == oldest)]
        if str(p.get("include_all_metadata", "")).lower() not in ("1", "true"):
            messages = [{k: v for k, v in m.items() if k != "metadata"} for m in messages]
        limit = max(1, min(int(p.get("limit") or 100), 999))
        start = int(p.get("cursor") or 0)
        page, rest = messages[start:start + limit], messages[start + limit:]
        return {"ok": True, "messages": page, "has_more": bool(rest),
                "response_metadata": {"next_cursor": str(start + limit) if rest else ""}}

    def _m_chat_getPermalink(self, p: dict) -> dict:  # noqa: N802
        channel, ts = p.get("channel", ""), p.get("message_ts", "")
        if not any(m["ts"] == ts for m in self.messages(channel)):
            return {"ok": False, "error": "message_not_found"}
        return {"ok": True, "channel": channel,
                "permalink": f"https://fake-team.slack.com/archives/{channel}/p{ts.replace('.', '')}"}

    def _m_files_info(self, p: dict) -> dict:
        with self._lock:
            entry = self.files.get(p.get("file", ""))
        if entry is None:
            return {"ok": False, "error": "file_not_found"}
        return {"ok": True, "file": {k: v for k, v in entry.items() if k != "data"}}

    def _m_users_info(self, p: dict) -> dict:
        name = self.users.get(p.get("user", ""))
        if name is None:
            return {"ok": False, "error": "user_not_found"}
        return {"ok": True, "user": {"id": p["user"], "name": name.lower(), "real_name": name,
                                     "profile": {"display_name": name, "real_name": name}}}

    def _m_files_getUploadURLExternal(self, p: dict) -> dict:  # noqa: N802
        if not p.get("filename") or not str(p.get("length", "")).isdigit():
            return {"ok": False, "error": "invalid_arguments"}
        file_id = f"F{next(self._seq):08d}"
        with self._lock:
            self.uploads[file_id] = {"filename": p["filename"], "length": int(p["length"]), "data": None}
        return {"ok": True, "upload_url": f"http://127.0.0.1:{self.port}/upload/{file_id}", "file_id": file_id}

    def _m_files_completeUploadExternal(self, p: dict) -> dict:  # noqa: N802
        files = _json_field(p.get("files")) or []
        shared = []
        with self._lock:
            for item in files:
                entry = self.uploads.get(item.get("id", ""))
                if entry is None or entry["data"] is None:
                    return {"ok": False, "error": "file_not_found"}
                shared.append({
                    "id": item["id"], "name": entry["filename"], "title": item.get("title") or entry["filename"],
                    "size": len(entry["data"]),
                })
        if p.get("channel_id"):
            self._store({
                "channel": p["channel_id"], "text": p.get("initial_comment", ""), "user": self.bot_user_id,
                "bot_id": self.bot_id, "thread_ts": p.get("thread_ts"), "files": shared,
            })
        return {"ok": True, "files": shared}


@dataclass
class Held:
    """A call :meth:`FakeSlackAPI.hold` keeps waiting: ``arrived`` is set once it is read; it is
    answered after :meth:`release`."""

    arrived: threading.Event = field(default_factory=threading.Event)
    released: threading.Event = field(default_factory=threading.Event)

    def release(self) -> None:
        """Answer the held call (its client may be gone)."""
        self.released.set()


def _params(query: str, body: bytes, content_type: str) -> dict[str, Any]:
    params: dict[str, Any] = dict(parse_qsl(query, keep_blank_values=True))
    if not body:
        return params
    if "application/json" in content_type:
        loaded = json.loads(body.decode("utf-8"))
        if isinstance(loaded, dict):
            params.update(loaded)
    elif "application/x-www-form-urlencoded" in content_type:
        params.update(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
    return params


def _json_field(value: Any) -> Any:
    if isinstance(value, str):
        return json.loads(value) if value.strip() else None
    return value


def _check_message(text: Any, blocks: list) -> str | None:
    if not text and not blocks:
        return "no_text"
    if len(blocks) > MAX_BLOCKS:
        return "invalid_blocks"
    total = 0
    for block in blocks:
        if block.get("type") == "section":
            section_text = (block.get("text") or {}).get("text", "")
            if not section_text or len(section_text) > SECTION_TEXT_LIMIT:
                return "invalid_blocks"
            total += len(section_text)
        elif block.get("type") == "actions" and not _valid_actions(block):
            return "invalid_blocks"
    return "msg_blocks_too_long" if total > BLOCKS_TEXT_LIMIT else None


def _valid_actions(block: dict) -> bool:
    elements = block.get("elements") or []
    if not 0 < len(elements) <= MAX_ACTION_ELEMENTS:
        return False
    ids = [e.get("action_id") for e in elements]
    for element in elements:
        text = (element.get("text") or {}).get("text", "")
        if element.get("type") != "button" or not text or len(text) > BUTTON_TEXT_LIMIT:
            return False
        if len(element.get("value", "")) > BUTTON_VALUE_LIMIT or len(element.get("action_id") or "") > ACTION_ID_LIMIT:
            return False
    return len(set(ids)) == len(ids)
