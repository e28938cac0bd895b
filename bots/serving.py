"""A chat surface's process, the same for every platform: the checks before it takes events, the
turns a previous run left, a health check, and handing the running turns back when it stops."""

from __future__ import annotations

import logging

from aiohttp import web

from engine.settings import Settings

log = logging.getLogger(__name__)
HEALTH_PATH = "/healthz"


def prepare(settings: Settings) -> None:
    """Check the stores the process needs before it takes events: Redis (with ``REDIS_URL``) and
    PostgreSQL (with ``DATABASE_URL``).

    Raises:
        engine.settings.SettingsError: a store is unreachable or misconfigured (one line).
    """
    from engine.database import require_database
    from jobs.queue import check_redis

    check_redis(settings)
    require_database(settings)


def recover_turns(settings: Settings, surface: str) -> None:
    """Without ``REDIS_URL`` research runs in this process: pick up the turns a previous run of it
    left unfinished (one ``event={surface}_recovered`` line). With Redis the workers do it."""
    if not settings.redis_url:
        from jobs.embedded import recover

        log.info("event=%s_recovered turns=%d", surface, recover(settings))


def stop(settings: Settings, surface: str, mode: str) -> None:
    """The process was asked to stop: hand its running turns back within
    ``DEEPRESEARCH_SHUTDOWN_GRACE`` seconds (the next start runs each once)."""
    from jobs.embedded import stop_process

    log.warning("event=%s_stopping mode=%s", surface, mode)
    stop_process(settings)


def health_handler(body: dict):
    """An aiohttp handler of ``GET /healthz`` answering ``body`` as JSON (``{"ok": true, ...}``)."""

    async def health(_: web.Request) -> web.Response:
        return web.json_response(body)

    return health


def serve(app: web.Application, *, host: str, port: int, settings: Settings, surface: str) -> None:
    """Serve ``app`` on ``host:port`` until SIGTERM/SIGINT (aiohttp stops the server gracefully),
    then :func:`stop`."""
    web.run_app(app, host=host, port=port, print=None, access_log=None)
    stop(settings, surface, "http")
