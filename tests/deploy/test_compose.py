"""docker-compose.yml: valid under the Compose Specification's JSON schema (what `docker compose config`
checks, without a Docker engine), and the deployment the README describes: PostgreSQL with a health
check and a volume, DATABASE_URL for every worker and bot, a stop grace above the product's own,
append-only Redis, and no .env needed on a fresh checkout."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from psycopg.conninfo import conninfo_to_dict

from engine.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
APP_SERVICES = ("worker", "slack", "teams")
# Go duration units, as Compose writes durations ("1m30s", "500ms")
_DURATION_UNIT = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
# `${NAME}`, `${NAME:-default}`, `${NAME-default}`: Compose interpolation with a default
_VARIABLE = re.compile(r"\$\{(?P<name>\w+)(?::?-(?P<default>[^}]*))?\}")


def validate(path: Path) -> dict:
    """Check ``path`` against the Compose Specification schema that check-jsonschema ships
    (``vendor.compose-spec``); returns its JSON report: ``status`` ("ok" or "fail") and
    ``errors`` (each with ``path`` such as ``$.services.postgres`` and ``message``)."""
    done = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec",
         "--output-format", "json", str(path)],
        capture_output=True, text=True, timeout=60, check=False)
    assert done.stdout, done.stderr
    return json.loads(done.stdout)


def seconds(duration: str) -> float:
    """Seconds in a Compose duration such as ``35s`` or ``1m30s``; ValueError if it is not one."""
    parts = re.findall(r"(\d+(?:\.\d+)?)(us|ms|s|m|h)", duration)
    if not parts or "".join(n + u for n, u in parts) != duration:
        raise ValueError(f"not a Compose duration: {duration!r}")
    return sum(float(n) * _DURATION_UNIT[u] for n, u in parts)


def with_defaults(text: str) -> str:
    """``text`` with every ``${NAME:-default}`` replaced by its default, as Compose does on a
    machine where NAME is unset; a variable without a default fails the test (it would be blank)."""
    def default(match: re.Match) -> str:
        assert match["default"] is not None, f"{match[0]} has no default"
        return match["default"]
    return _VARIABLE.sub(default, text)


@pytest.fixture(scope="module")
def compose() -> dict:
    """docker-compose.yml as Compose reads it (YAML anchors and ``<<`` merges resolved)."""
    return yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))


def test_compose_file_is_valid_under_the_compose_specification():
    report = validate(COMPOSE)
    assert report["status"] == "ok", report["errors"]


def test_the_validator_rejects_a_misspelt_key(tmp_path):
    broken = tmp_path / "docker-compose.yml"
    text = COMPOSE.read_text(encoding="utf-8")
    postgres_at = text.index("\n  postgres:")
    broken.write_text(text[:postgres_at] + text[postgres_at:].replace("healthcheck:", "healthchek:", 1),
                      encoding="utf-8")
    report = validate(broken)
    assert report["status"] == "fail"
    assert [(e["path"], "healthchek" in e["message"]) for e in report["errors"]] == [
        ("$.services.postgres", True)]


def test_a_fresh_checkout_needs_no_env_file(compose):
    for name in APP_SERVICES:
        assert compose["services"][name]["env_file"] == [{"path": ".env", "required": False}], name


def test_postgres_service_has_a_health_check_and_a_volume(compose):
    postgres = compose["services"]["postgres"]
    assert postgres["image"].startswith("postgres:")
    test = postgres["healthcheck"]["test"]
    assert test[0] == "CMD-SHELL" and test[1].startswith("pg_isready ")
    assert seconds(postgres["healthcheck"]["interval"]) > 0 and postgres["healthcheck"]["retries"] >= 1
    data = [v.split(":")[0] for v in postgres["volumes"] if v.endswith(":/var/lib/postgresql/data")]
    assert len(data) == 1 and data[0] in compose["volumes"], "the database lives in a named volume"


def test_workers_and_bots_reach_postgres_through_database_url(compose):
    db_env = compose["services"]["postgres"]["environment"]
    for name in APP_SERVICES:
        service = compose["services"][name]
        url = conninfo_to_dict(with_defaults(service["environment"]["DATABASE_URL"]))
        assert (url["host"], url["port"], url["user"], url["dbname"]) == (
            "postgres", "5432", db_env["POSTGRES_USER"], db_env["POSTGRES_DB"]), name
        assert url["password"] == with_defaults(db_env["POSTGRES_PASSWORD"]), name
        assert service["depends_on"]["postgres"] == {"condition": "service_healthy"}, name
        assert service["depends_on"]["redis"] == {"condition": "service_healthy"}, name
        assert service["environment"]["REDIS_URL"].startswith("redis://redis:6379/"), name


def test_stop_grace_period_exceeds_the_shutdown_grace(compose):
    grace = Settings.model_fields["shutdown_grace"].default
    for name in APP_SERVICES:
        # Docker sends SIGKILL after stop_grace_period (default 10 s); the process needs its whole
        # DEEPRESEARCH_SHUTDOWN_GRACE to hand running turns back, and a moment to exit after it
        assert seconds(compose["services"][name]["stop_grace_period"]) > grace, name


def test_redis_keeps_queued_turns_across_restarts(compose):
    redis = compose["services"]["redis"]
    command = redis["command"]
    assert command[0] == "redis-server"
    options = dict(zip(command[1::2], command[2::2], strict=True))
    assert options["--appendonly"] == "yes"
    assert options["--maxmemory-policy"] == "noeviction"
    assert any(v.split(":")[0] in compose["volumes"] and v.endswith(":/data") for v in redis["volumes"])


def test_every_reference_resolves(compose):
    """What `docker compose config` checks beyond the schema: named volumes and depends_on targets."""
    services = compose["services"]
    for name, service in services.items():
        for mount in service.get("volumes", []):
            source = mount.split(":")[0]
            if not source.startswith((".", "/", "~")):
                assert source in compose["volumes"], f"{name}: volume {source} is not declared"
        for needed in service.get("depends_on", {}):
            assert needed in services, f"{name} depends on unknown service {needed}"
