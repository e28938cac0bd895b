"""Requests no HTTP client would send, written to a loopback server byte for byte."""

from __future__ import annotations

import logging
import socket
from urllib.parse import urlsplit

from tests.waiting import LONG, wait_for

#: Request lines and headers aiohttp's parser refuses: bytes that are not ASCII or are control
#: characters in the target, a target longer than its 8,190-byte line limit, a header without a colon.
BAD_REQUESTS = [
    b"GET /files/\xc3\xa9\xff HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /files/a\x01b HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nHost x\r\n\r\n",
]


def send_raw(base_url: str, request: bytes) -> bytes:
    """Send ``request`` as it is to the server at ``base_url``; return the status line it answers."""
    parts = urlsplit(base_url)
    with socket.create_connection((parts.hostname, parts.port), timeout=LONG) as sock:
        sock.sendall(request)
        answer = b""
        while b"\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    return answer.split(b"\r\n", 1)[0]


def assert_refused_once(base_url: str, request: bytes, caplog) -> None:
    """``request`` is answered 400 and logged as one warning line, with no error or traceback
    (:class:`bots.serving._UnparsedRequest`); ``caplog`` is pytest's fixture."""
    caplog.set_level(logging.INFO)
    assert send_raw(base_url, request).split(b" ")[1] == b"400"
    lines = wait_for(lambda: [r for r in caplog.records if "http_request_refused" in r.getMessage()],
                     what="the refusal's log line")
    assert len(lines) == 1 and lines[0].levelno == logging.WARNING and not lines[0].exc_info
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
