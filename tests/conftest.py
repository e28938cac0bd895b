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


TEX_CACHE_BIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools", "texcache")


@pytest.fixture(scope="session", autouse=True)
def _tex_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """One PDF build per distinct report.tex in a run: ``tests/tools/texcache/latexmk`` goes first on
    PATH (for this process and every child it starts) and keeps the PDF and log of each build that
    succeeded in a folder every xdist worker of the run shares, under pytest's base temp (so a run
    never reads another's). The build code is the product's own, latexmk's result copied when the
    same input was built before. A test that stops, times or counts builds uses :func:`no_tex_cache`."""
    import shutil

    real = shutil.which("latexmk")
    if real is None or os.path.dirname(real) == TEX_CACHE_BIN:
        return
    base = tmp_path_factory.getbasetemp()
    cache = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "tex-cache"
    cache.mkdir(exist_ok=True)
    os.environ.update(TEST_TEX_CACHE=str(cache), TEST_REAL_LATEXMK=real,
                      PATH=TEX_CACHE_BIN + os.pathsep + os.environ.get("PATH", ""))


@pytest.fixture
def no_tex_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every PDF build of the test (in this process or a child started meanwhile) runs latexmk: for a
    test that stops a build under way, times it out or counts its passes."""
    monkeypatch.delenv("TEST_TEX_CACHE", raising=False)


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
