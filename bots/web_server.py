"""An aiohttp application served from a daemon thread: a health check beside a bot that needs no
web server of its own (Slack's Socket Mode), and the fakes and bots the tests serve."""

from __future__ import annotations

import asyncio
import threading

from aiohttp import web


class BackgroundServer:
    """An aiohttp application served from a daemon thread (tests, and /healthz beside Socket Mode)."""

    def __init__(self, application: web.Application, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.application = application
        self.host = host
        self.port = port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> BackgroundServer:
        """Start listening; ``port`` is the bound port afterwards (for ``port=0``).

        Raises:
            OSError: the port is taken.
        """
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                self._runner = web.AppRunner(self.application, access_log=None)
                loop.run_until_complete(self._runner.setup())
                site = web.TCPSite(self._runner, self.host, self.port)
                loop.run_until_complete(site.start())
                self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            except BaseException as err:  # reported to the starting thread
                failure.append(err)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self._runner.cleanup())
            loop.close()

        self._thread = threading.Thread(target=run, name="web-server", daemon=True)
        self._thread.start()
        ready.wait(10)
        if failure:
            raise failure[0]
        return self

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The event loop serving the application (to schedule work on it), None before start."""
        return self._loop

    def stop(self) -> None:
        """Stop listening and wait for the thread (up to 10 s)."""
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
            self._loop = None
