"""A chat surface's process, the same for every platform: the checks before it takes events, the
turns a previous run left, a health check, and handing the running turns back when it stops."""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
from collections.abc import Callable, Coroutine

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from engine.redact import quoted
from engine.settings import Settings

log = logging.getLogger(__name__)
HEALTH_PATH = "/healthz"
#: Bytes of one request's body a surface reads at most: a Slack event or command and a Bot
#: Framework activity are a few KiB; anything far larger is not from the platform.
MAX_BODY = 1024 * 1024
#: Seconds a stopping server waits for the turns it acknowledged (a turn is a few store calls and
#: connector calls, each retried for about 6 s at most, :data:`bots.teams.port.RETRY_DELAYS`).
DRAIN_SECONDS = 30.0


def prepare(settings: Settings) -> None:
    """Check the stores the process needs before it takes events: Redis (with ``REDIS_URL``) and
    PostgreSQL (with ``DATABASE_URL``), once what needs only this machine is checked
    (:func:`jobs.startup.check_local`); then load the language identifier the bot answers a
    question's language with (:func:`engine.language.load_language_model`: milliseconds once the
    machine's cache holds the model, about 0.6 s on an idle core and several seconds on a busy one
    when it is unpacked first), so the first slash command is not acknowledged after
    Slack's 3-second limit (https://docs.slack.dev/interactivity/implementing-slash-commands).

    Raises:
        engine.settings.SettingsError: a store is unreachable or misconfigured (one line).
    """
    from engine.database import require_database
    from engine.language import load_language_model
    from jobs.queue import check_redis

    check_redis(settings)
    require_database(settings)
    load_language_model()


def recover_turns(settings: Settings, surface: str) -> None:
    """Without ``REDIS_URL`` research runs in this process: pick up the turns a previous run of it
    left unfinished (one ``event={surface}_recovered`` line). With Redis the workers do it."""
    if not settings.redis_url:
        from jobs.embedded import recover

        log.info("event=%s_recovered turns=%d", surface, recover(settings))


def stop(settings: Settings, surface: str, mode: str) -> None:
    """The process was asked to stop: hand its running turns back within
    ``DEEPRESEARCH_SHUTDOWN_GRACE`` seconds (the next start runs each once).

    The stop itself is logged at info level: an operator's stop needs no attention; what could not be
    handed back is said by :func:`jobs.embedded.stop_process` as a warning or an error.
    """
    from jobs.embedded import stop_process

    log.info("event=%s_stopping mode=%s", surface, mode)
    stop_process(settings)


class _UnparsedRequest(logging.Filter):
    """aiohttp answers a request it cannot parse (a request line or header that is malformed, not
    ASCII or over its 8,190-byte limit) with 400, then logs it as an error with a traceback; anyone
    on the network can send one. Such a record becomes one warning line without the traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, HttpProcessingError):
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.msg, record.args = "event=http_request_refused status=400 error=%s", (type(error).__name__,)
            record.exc_info = record.exc_text = None
        return True


def web_app(health: dict) -> web.Application:
    """An aiohttp application answering ``GET /healthz`` with ``health`` as JSON (``{"ok": true, ...}``)
    and refusing request bodies over :data:`MAX_BODY` (413); the surface adds its own routes. A
    request aiohttp cannot parse is logged as one warning line (:class:`_UnparsedRequest`)."""
    server_log = logging.getLogger("aiohttp.server")
    if not any(isinstance(f, _UnparsedRequest) for f in server_log.filters):
        server_log.addFilter(_UnparsedRequest())

    async def healthz(_: web.Request) -> web.Response:
        return web.json_response(health)

    app = web.Application(client_max_size=MAX_BODY)
    app.router.add_get(HEALTH_PATH, healthz)
    return app


def serve(app: web.Application, *, host: str, port: int, settings: Settings, surface: str,
          listening: Callable[[str], None] | None = None) -> None:
    """Serve ``app`` on ``host:port`` until SIGTERM/SIGINT (aiohttp stops the server gracefully),
    then :func:`stop`.

    ``listening`` is called with the address bound (``http://127.0.0.1:3978``; for port 0 the port
    the system chose) once the socket listens, never before: a port that cannot be had raises first.

    Raises:
        OSError: the address cannot be bound (in use, not this machine's, no permission).
    """
    def bound(line: str) -> None:
        # aiohttp's own line, once every site listens: "======== Running on URL[, URL] ========\n(Press ...)",
        # each URL its site's name, with the port bound
        if listening is not None:
            names = line.split("Running on ", 1)[-1].split(" ====", 1)[0]
            listening(names.split(", ")[0])

    web.run_app(app, host=host, port=port, print=bound, access_log=None)
    stop(settings, surface, "http")


class Tasks:
    """Work a server runs after it has answered the request (a chat turn after its acknowledgement),
    kept until done: an error is logged like a failed request's (:func:`bots.chat_common.log_failure`),
    and :meth:`drain` waits for what is still running when the server stops, so nothing acknowledged
    is dropped."""

    def __init__(self, log: logging.Logger, surface: str, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.log, self.surface, self.loop = log, surface, loop
        self.running: set[asyncio.Future] = set()

    def start(self, work: Coroutine) -> asyncio.Future:
        """Run ``work`` after the caller's answer, on ``loop`` (another thread's, so that the work
        does not slow the server's own loop down) or, without one, the current loop; returns its
        future, on the current loop."""
        if self.loop is None:
            task = asyncio.ensure_future(work)
        else:
            task = asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, self.loop))
        self.running.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Future) -> None:
        self.running.discard(task)
        if not task.cancelled() and task.exception() is not None:
            from bots.chat_common import log_failure

            log_failure(self.log, self.surface, "after_ack", task.exception())

    async def drain(self, timeout: float = DRAIN_SECONDS) -> None:
        """Wait up to ``timeout`` seconds for the work still running (at shutdown, in tests)."""
        if self.running:
            self.log.info("event=%s_draining tasks=%d", self.surface, len(self.running))
            await asyncio.wait(set(self.running), timeout=timeout)


def hold(connect: Callable[[], Callable[[], None]], *, health: dict, host: str, port: int, settings: Settings,
         surface: str, mode: str) -> None:
    """Run a surface that holds a connection of its own (a WebSocket, say) until SIGTERM/SIGINT,
    then :func:`stop`: ``connect()`` opens it and returns what closes it.

    ``GET /healthz`` answers ``health`` on ``host:port`` beside it, so a container check works
    as for a web surface; that is a convenience: when the port cannot be had, one warning line
    and the surface runs without it.
    """
    from bots.web_server import BackgroundServer

    app = web_app(health)
    server: BackgroundServer | None = BackgroundServer(app, host=host, port=port)
    try:
        server.start()
    except OSError as err:
        log.warning("event=%s_health_unavailable port=%s error=%s", surface, port, quoted(err.strerror or type(err).__name__))
        server = None
    log.info("event=%s_start mode=%s health_port=%s", surface, mode, server.port if server else "-")
    stopping = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stopping.set())
    try:
        close = connect()
        stopping.wait()
        close()
    finally:
        if server is not None:
            server.stop()
    stop(settings, surface, mode)
