"""Suite-wide settings: the per-test pytest-timeout follows ``TEST_TIMEOUT_SCALE``; no test leaves the process stopping;
the stores a test can run on (SQLite, a fresh PostgreSQL database, a private PostgreSQL server)."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings as hypothesis_settings

from tests.redis_db import redis_db  # noqa: F401  (a fixture for every test package)
from tests.waiting import scale

# the recording test port (tests.fakes.recording_port) and the test webhook surface are chat surfaces
# outside bots/: name their package for this process and every child it starts
os.environ.setdefault("CHAT_PORT_PACKAGES", "tests.fakes,tests.bots.webhook")

# Property tests (Hypothesis) draw the same examples on every run, Hypothesis's own "ci" profile
# (derandomize, no example database, no deadline unless a test sets one): a run's result depends on
# the code, not on the draw. HYPOTHESIS_PROFILE=default draws new examples each run, to look for more.
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config: pytest.Config) -> None:
    """Children started by the tests take Ctrl-C (SIGINT) as a terminal would deliver it.

    A shell without job control starts background commands with SIGINT ignored, and an ignored
    signal stays ignored across ``exec``: a suite launched that way (``bash scripts/test.sh &``)
    would start every ``deepresearch`` child deaf to the SIGINT that the Ctrl-C tests send.
    """
    import signal

    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Multiply the per-test timeout (``timeout`` in pyproject.toml, or ``--timeout``) by the scale.

    A test's own ``@pytest.mark.timeout`` is left as written.
    """
    factor = scale()
    base = getattr(config, "_env_timeout", None) or float(config.getini("timeout") or 0)
    if factor == 1 or not base:
        return
    for item in items:
        if item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(base * factor))


@pytest.fixture(autouse=True)
def _process_not_stopping():
    """A test that stops a bot in this process (SIGTERM, ``stop_process``) leaves the process-wide
    "stopping" flag set; clear it after each test so later in-process runners take turns again."""
    yield
    from jobs import stopping

    stopping.reset()


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request):
    """Run the test on each store: None (SQLite files in the data dir), then a fresh PostgreSQL
    database's URL (``tests.pg_db``; the test is skipped when no server answers)."""
    if request.param == "sqlite":
        yield None
        return
    from tests.pg_db import fresh_database

    with fresh_database() as url:
        yield url


@pytest.fixture
def pg_url():
    """The URL of a fresh PostgreSQL database of this test's own, dropped after it (``tests.pg_db``)."""
    from tests.pg_db import fresh_database

    with fresh_database() as url:
        yield url


@pytest.fixture
def private_pg():
    """A private PostgreSQL server whose user ``postgres`` needs the password ``s3cret-Pa55word``."""
    from tests.pg_server import PrivateServer

    server = PrivateServer("s3cret-Pa55word")
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(autouse=True)
def _audit_pending_in_tmp(tmp_path, monkeypatch: pytest.MonkeyPatch):
    """Audit records a test's trail could not take wait under its ``tmp_path``
    (:func:`jobs.audit_pending.spare_path`), never in the home folder."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
