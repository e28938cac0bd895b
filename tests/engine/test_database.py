"""DATABASE_URL: one-line errors without secrets, versioned migrations, the setting itself."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from engine.database import MIGRATIONS, DatabaseError, migrate, require_database
from engine.redact import redact
from engine.settings import SettingsError, load_settings
from tests.pg_db import database_url

ROOT = Path(__file__).resolve().parents[2]


def deepresearch(*args: str, env: dict) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DEEPRESEARCH_") and k != "DATABASE_URL"}
    return subprocess.run([sys.executable, "-m", "bots.cli", *args], cwd=ROOT, env={**clean, **env},
                          capture_output=True, text=True, timeout=120)


def test_wrong_password_is_one_clear_line_without_the_password(private_pg, tmp_path):
    wrong = "Wr0ng-Passw0rd-42"
    result = deepresearch("prune", env={"DATABASE_URL": private_pg.url(password=wrong),
                                        "DEEPRESEARCH_DATA_DIR": str(tmp_path)})
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0] == (f"deepresearch: DATABASE_URL postgresql://postgres:[redacted]@127.0.0.1:{private_pg.port}"
                        '/postgres: password authentication failed for user "postgres": check the user and password '
                        "in DATABASE_URL")
    assert wrong not in result.stdout + result.stderr
    # and the right password works: the tables are created at start-up
    ok = deepresearch("prune", "--dry-run", env={"DATABASE_URL": private_pg.url(), "DEEPRESEARCH_DATA_DIR": str(tmp_path)})
    assert ok.returncode == 0 and "would delete 0 thread(s)" in ok.stdout, ok.stderr


def test_missing_database_and_unreachable_server_are_one_line(clean_env, pg_url):
    missing = load_settings(database_url=database_url("no_such_database_here"))
    with pytest.raises(DatabaseError, match=r'database "no_such_database_here" does not exist: create it'):
        require_database(missing)
    closed = load_settings(database_url="postgresql://postgres:Secret-Word-9@127.0.0.1:9/x")
    with pytest.raises(DatabaseError) as info:
        require_database(closed)
    assert "\n" not in str(info.value) and "Secret-Word-9" not in str(info.value)
    assert "is the server running" in str(info.value)
    with pytest.raises(DatabaseError) as info:
        require_database(load_settings(database_url="postgresql://app:Port-Secret-1@127.0.0.1:abc/x"))
    assert str(info.value) == ('DATABASE_URL postgresql://app:[redacted]@127.0.0.1:abc/x: invalid integer value "abc" '
                               'for connection option "port"')


def test_a_user_without_the_right_to_create_tables_is_one_line(clean_env, pg_url):
    """PostgreSQL 15 gives PUBLIC no CREATE on schema ``public``: a plain login role cannot make the
    product's tables, and start-up says so in one line with what the user needs."""
    import secrets

    from psycopg import sql

    role = f"drtest_noperm_{secrets.token_hex(4)}"
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
        admin.execute(sql.SQL("REVOKE CREATE ON SCHEMA public FROM PUBLIC"))
    try:
        url = pg_url.replace("://postgres@", f"://{role}@", 1)
        assert url != pg_url
        with pytest.raises(DatabaseError) as info:
            require_database(load_settings(database_url=url))
        message = str(info.value)
        assert "\n" not in message and "permission denied" in message, message
        assert message.endswith("the user needs CREATE on the database (or its schema) for the product's tables")
    finally:
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(role)))
            admin.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))


def test_migrations_are_idempotent_and_versioned(pg_url):
    with psycopg.connect(pg_url) as conn:
        assert migrate(conn) == len(MIGRATIONS)
        assert migrate(conn) == len(MIGRATIONS)  # a second start changes nothing
        versions = [r[0] for r in conn.execute("SELECT version FROM deepresearch_schema_version ORDER BY 1")]
    assert versions == list(range(1, len(MIGRATIONS) + 1))


def test_database_url_setting_hides_its_password(clean_env, monkeypatch):
    with pytest.raises(SettingsError) as info:
        load_settings(database_url="mysql://user:Hidden-Pw-123@db/x")
    assert "DATABASE_URL" in str(info.value) and "Hidden-Pw-123" not in str(info.value)
    settings = load_settings(database_url="postgresql://app:An0ther-Secret@db.example:5432/research")
    assert settings.store_backend == "postgres" and "An0ther-Secret" not in repr(settings)
    # once read, the password is masked in every log line and stored error, whatever its form
    assert redact("login failed with An0ther-Secret") == "login failed with [redacted]"
    assert load_settings().store_backend == "sqlite"
