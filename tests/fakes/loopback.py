"""A threaded HTTP server on 127.0.0.1 that records every call: the base of the fake API servers."""

from __future__ import annotations

import json
import ssl
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


@dataclass
class CallRecord:
    """One request the fake answered.

    Attributes:
        method, path: the HTTP request line (path without the query string).
        body: the parsed JSON body, or None (GET, or not JSON); the raw bytes when the server
            does not parse JSON (``json_body = False``).
        start, end: ``time.monotonic()`` when the request was read and when the answer was sent.
        status: the HTTP status sent.
        reply: what the handler produced (a ``Reply`` for OpenAI, a result list or error for Tavily).
        request: the parsed request object passed to the handler, when there was one.
        client_port: the client's TCP port, so tests can see connection reuse.
        authorization: the ``Authorization`` header as received (kept out of ``repr``).
        error: text of an exception the handler raised, else None.
        query: the query string (without ``?``).
        headers: the request headers, names lower-cased.
    """

    method: str
    path: str
    body: Any
    start: float
    end: float = 0.0
    status: int = 0
    reply: Any = None
    request: Any = None
    client_port: int = 0
    authorization: str | None = field(default=None, repr=False)
    error: str | None = None
    query: str = ""
    headers: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def duration(self) -> float:
        """Seconds between reading the request and sending the answer."""
        return self.end - self.start


@dataclass
class HTTPAnswer:
    """What a route returns: a JSON body (``bytes`` are sent as they are), or ``chunks`` sent as a
    chunked SSE stream."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    chunks: Iterable[bytes] | None = None


class _Server(ThreadingHTTPServer):
    """A thread per connection; a listen backlog deep enough for bursts of parallel clients."""

    daemon_threads = True
    request_queue_size = 256  # the stdlib default of 5 drops SYNs when many clients connect at once
    owner: LoopbackServer

    def handle_error(self, request, client_address) -> None:
        """A client that hung up (a test ending, an SDK closing its pool) is not an error, over TLS too
        (``ssl.SSLEOFError``: the peer closed without TLS's close_notify)."""
        if isinstance(sys.exc_info()[1], ConnectionError | ssl.SSLEOFError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # answer at once, no delayed-ACK stall
    server: _Server

    def _dispatch(self) -> None:
        if self.command in self.server.owner.http_methods:
            self.server.owner._serve(self)
        else:  # what the stdlib answers a verb without a do_ method
            self.send_error(501, f"Unsupported method ({self.command!r})")

    do_GET = do_POST = do_PUT = _dispatch

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Silence the per-request stderr log."""


class LoopbackServer:
    """A threaded HTTP server on 127.0.0.1 (free port) run in a background thread.

    Subclasses implement ``route(method, path, body, record) -> HTTPAnswer``. Every request is
    appended to ``calls`` (as a ``record_type``); ``latency`` (seconds, changeable at run time) is
    slept before each answer; connections are kept alive (HTTP/1.1) and each one is served by its
    own thread, so concurrent callers overlap in time. Use as a context manager or call
    ``start``/``stop``.

    Class attributes a subclass may change: ``api_prefix`` (appended to ``url`` in ``base_url``),
    ``http_methods`` (the verbs served; others get 501), ``json_body`` (parse the body as JSON
    and answer 400 when it is not; when False ``route`` gets the raw bytes), ``content_type`` (of
    non-streamed answers), ``record_type`` and ``record_on_arrival`` (when False a call joins
    ``calls`` only once its status is known, just before the answer is written), ``ssl_context``
    (serve HTTPS with it; ``url`` stays the subclass's to spell).

    ``stall()`` makes the server a peer that accepts connections, reads each request (recorded
    in ``calls``) and never answers, until ``unstall()`` or ``stop()``.
    """

    api_prefix = ""
    http_methods: tuple[str, ...] = ("GET", "POST")
    json_body = True
    content_type = "application/json"
    record_type: type[CallRecord] = CallRecord
    record_on_arrival = True
    ssl_context: ssl.SSLContext | None = None

    def __init__(self, *, latency: float = 0.0, api_key: str | None = None) -> None:
        """``api_key``: when set, requests must carry ``Authorization: Bearer <api_key>``."""
        self.latency = latency
        self.api_key = api_key
        self.calls: list[Any] = []
        self._lock = threading.Condition()  # guards ``calls``; notified whenever a call joins it
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self._answering = threading.Event()
        self._answering.set()

    # lifecycle ---------------------------------------------------------------------------------
    def start(self) -> Self:
        """Bind a free port on 127.0.0.1 and serve in a daemon thread; returns self."""
        httpd = _Server(("127.0.0.1", 0), _Handler)
        httpd.owner = self
        if self.ssl_context is not None:  # TLS on every accepted connection
            httpd.socket = self.ssl_context.wrap_socket(httpd.socket, server_side=True)
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stall(self) -> None:
        """From now on accept and read requests but send nothing back (a hung service)."""
        self._answering.clear()

    def unstall(self) -> None:
        """Answer again; requests held by :meth:`stall` get their answer (their clients may be gone)."""
        self._answering.set()

    def stop(self) -> None:
        """Stop serving and close the listening socket."""
        self._answering.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound TCP port."""
        if self._httpd is None:
            raise RuntimeError("server not started")
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (no trailing slash)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The URL a client SDK is configured with (root plus the API prefix)."""
        return self.url + self.api_prefix

    def reset(self) -> None:
        """Forget the recorded calls."""
        with self._lock:
            self.calls.clear()

    # request plumbing --------------------------------------------------------------------------
    def route(self, method: str, path: str, body: Any, record: CallRecord) -> HTTPAnswer:
        """Answer one request; subclasses override."""
        raise NotImplementedError

    def unauthorized(self) -> HTTPAnswer:
        """The answer to a request without the expected bearer key; subclasses override."""
        return HTTPAnswer(401, {"error": "unauthorized"})

    def crashed(self, exc: Exception, record: CallRecord) -> HTTPAnswer:
        """The answer when ``route`` raised (``record.error`` already says what); subclasses override."""
        return HTTPAnswer(500, {"error": {"message": f"fake handler raised {record.error}",
                                          "type": "server_error", "param": None, "code": None}},
                          headers={"x-should-retry": "false"})

    def _publish(self, record: CallRecord) -> None:
        with self._lock:
            self.calls.append(record)
            self._lock.notify_all()

    def _serve(self, h: BaseHTTPRequestHandler) -> None:
        start = time.monotonic()
        path, _, query = h.path.partition("?")
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        body: Any = raw
        if self.json_body:
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
        record = self.record_type(h.command, path, body, start, client_port=h.client_address[1],
                                  authorization=h.headers.get("Authorization"), query=query,
                                  headers={k.lower(): v for k, v in h.headers.items()})
        if self.record_on_arrival:
            self._publish(record)
        self._answering.wait()
        if self.api_key is not None and record.authorization != f"Bearer {self.api_key}":
            answer = self.unauthorized()
        elif self.json_body and raw and body is None:
            answer = HTTPAnswer(400, {"error": {"message": "We could not parse the JSON body of your request.",
                                                "type": "invalid_request_error", "param": None, "code": None}})
        else:
            try:
                answer = self.route(h.command, path, body, record)
            except Exception as exc:  # a broken test handler: answer 500 and keep the reason
                record.error = f"{type(exc).__name__}: {exc}"
                answer = self.crashed(exc, record)
        delay = self.latency + float(getattr(record.reply, "delay", 0.0) or 0.0)
        if delay > 0:
            time.sleep(delay)
        record.status = answer.status
        if answer.chunks is None:  # recorded before the client can read the answer
            record.end = time.monotonic()
        if not self.record_on_arrival:
            self._publish(record)
        try:
            self._write(h, answer)
        except (BrokenPipeError, ConnectionResetError):
            h.close_connection = True
        if answer.chunks is not None:
            record.end = time.monotonic()

    def _write(self, h: BaseHTTPRequestHandler, answer: HTTPAnswer) -> None:
        h.send_response(answer.status)
        for name, value in answer.headers.items():
            h.send_header(name, value)
        if answer.chunks is None:
            body = answer.body
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            h.send_header("Content-Type", self.content_type)
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data)
            return
        h.send_header("Content-Type", "text/event-stream; charset=utf-8")
        h.send_header("Cache-Control", "no-cache")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        for chunk in answer.chunks:
            h.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            h.wfile.flush()
        h.wfile.write(b"0\r\n\r\n")
