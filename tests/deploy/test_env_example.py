""".env.example names every setting the product reads and every variable docker-compose.yml uses."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic_settings import BaseSettings

from bots.slack.settings import SlackSettings
from bots.teams.settings import TeamsSettings

ROOT = Path(__file__).resolve().parents[2]


def setting_names(cls: type[BaseSettings]) -> set[str]:
    """The environment names of ``cls``'s fields: the alias when it has one, else prefix + name."""
    prefix = cls.model_config.get("env_prefix", "")
    return {f.validation_alias if isinstance(f.validation_alias, str) else f"{prefix}{name}".upper()
            for name, f in cls.model_fields.items()}


def listed(text: str, name: str) -> bool:
    """True when ``name`` appears in ``text`` as a whole word (set or commented out)."""
    return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text) is not None


def test_every_setting_is_in_env_example():
    text = (ROOT / ".env.example").read_text(encoding="utf-8")
    names = setting_names(TeamsSettings) | setting_names(SlackSettings)  # TeamsSettings holds the engine's
    assert {"DATABASE_URL", "DEEPRESEARCH_STORE", "DEEPRESEARCH_SHUTDOWN_GRACE", "SLACK_BOT_TOKEN"} <= names
    assert sorted(n for n in names if not listed(text, n)) == []


def test_every_compose_variable_is_in_env_example():
    text = (ROOT / ".env.example").read_text(encoding="utf-8")
    variables = set(re.findall(r"\$\{(\w+)", (ROOT / "docker-compose.yml").read_text(encoding="utf-8")))
    assert "POSTGRES_PASSWORD" in variables
    assert sorted(v for v in variables if not listed(text, v)) == []


def test_every_setting_read_outside_the_settings_classes_is_in_env_example():
    """``LOG_LEVEL``, ``HEALTHCHECK_URLS``: read from the environment or ``.env`` by
    :func:`engine.env_files.env_or_dotenv`, so listed there as the others are."""
    text = (ROOT / ".env.example").read_text(encoding="utf-8")
    names = {name for path in [*ROOT.glob("bots/**/*.py"), *ROOT.glob("engine/**/*.py"), *ROOT.glob("jobs/**/*.py")]
             for name in re.findall(r'env_or_dotenv\("(\w+)"', path.read_text(encoding="utf-8"))}
    assert {"LOG_LEVEL", "HEALTHCHECK_URLS"} <= names
    assert sorted(n for n in names if not listed(text, n)) == []
