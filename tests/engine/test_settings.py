"""Settings: defaults, one-line errors naming the setting, no secret in messages."""

from __future__ import annotations

import pytest

from engine.settings import SettingsError, load_settings
from tests.bots.console_helpers import set_settings, unreadable_file


def test_open_deep_research_defaults(clean_env):
    s = load_settings()
    assert (s.max_concurrent_research_units, s.max_researcher_iterations, s.max_react_tool_calls,
            s.max_structured_output_retries, s.max_review_iterations) == (5, 6, 10, 3, 2)
    assert s.llm_backend == "offline" and s.search_backend == "none"


def test_invalid_value_names_the_setting(clean_env, monkeypatch):
    monkeypatch.setenv("DEEPRESEARCH_MAX_CONCURRENT_RESEARCH_UNITS", "zero")
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert str(err.value).startswith("invalid setting DEEPRESEARCH_MAX_CONCURRENT_RESEARCH_UNITS")
    assert "\n" not in str(err.value)


def test_unknown_setting_is_refused(clean_env, monkeypatch):
    monkeypatch.setenv("DEEPRESEARCH_LMM", "offline")
    with pytest.raises(SettingsError, match="unknown setting DEEPRESEARCH_LMM"):
        load_settings()


def test_a_misspelt_setting_in_the_env_file_is_refused_with_its_file_and_line(clean_env, tmp_path, monkeypatch):
    """The same rule as the environment's, for the ``.env`` file pydantic-settings reads: any case,
    ``export`` lines and comments included; the message names the file, the line and the closest name."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("# the model\nDEEPRESEARCH_LLM=offline\n\nexport DEEPRESEARCH_MAX_REVEIW_ITERATIONS=1\n")
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert str(err.value) == (f"unknown setting DEEPRESEARCH_MAX_REVEIW_ITERATIONS in {tmp_path / '.env'}, line 4: "
                              "not one of the DEEPRESEARCH_ settings (did you mean DEEPRESEARCH_MAX_REVIEW_ITERATIONS?)")
    (tmp_path / ".env").write_text("deepresearch_lmm=offline\n")  # read case-insensitively, so checked so too
    with pytest.raises(SettingsError, match=r"unknown setting deepresearch_lmm in .*\.env, line 1"):
        load_settings()
    (tmp_path / ".env").write_text("DEEPRESEARCH_MAX_REVIEW_ITERATIONS=1\nSLACK_BOT_TOKEN=xoxb-1\nOTHER_TOOL=1\n")
    assert load_settings().max_review_iterations == 1
    assert load_settings(_env_file=None).max_review_iterations == 2  # a caller that reads no file checks none


def test_a_misspelt_setting_in_the_environment_names_the_closest_setting(clean_env, monkeypatch):
    monkeypatch.setenv("deepresearch_max_reveiw_iterations", "1")  # pydantic-settings would read this case too
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert str(err.value) == ("unknown setting deepresearch_max_reveiw_iterations: not one of the DEEPRESEARCH_ "
                              "settings (did you mean DEEPRESEARCH_MAX_REVIEW_ITERATIONS?)")


def test_bad_choice(clean_env, monkeypatch):
    monkeypatch.setenv("DEEPRESEARCH_LLM", "gpt")
    with pytest.raises(SettingsError, match="DEEPRESEARCH_LLM"):
        load_settings()


def test_missing_model_names_both_ways_out(clean_env, monkeypatch):
    s = load_settings(llm="openai")
    with pytest.raises(SettingsError) as err:
        s.require_model()
    assert "OPENAI_API_KEY" in str(err.value) and "DEEPRESEARCH_LLM=offline" in str(err.value)


def test_secret_value_never_in_error(clean_env, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "")
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-secret-value")
    monkeypatch.setenv("DEEPRESEARCH_JOB_TIMEOUT", "5")
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert "xapp-secret-value" not in str(err.value) and "DEEPRESEARCH_JOB_TIMEOUT" in str(err.value)


def test_caller_overrides_win_over_environment(clean_env, monkeypatch):
    monkeypatch.setenv("DEEPRESEARCH_LLM", "openai")
    assert load_settings(llm="offline").llm_backend == "offline"


def test_the_store_is_chosen_by_one_setting(clean_env, monkeypatch):
    url = "postgresql://deepresearch:pw-store-secret@db.example.internal:5432/deepresearch"
    assert load_settings().store_backend == "sqlite"
    monkeypatch.setenv("DATABASE_URL", url)
    assert load_settings().store_backend == "postgres"
    monkeypatch.setenv("DEEPRESEARCH_STORE", "Postgres")
    assert load_settings().store_backend == "postgres"
    # the embedded store on purpose: the URL is left unused everywhere
    monkeypatch.setenv("DEEPRESEARCH_STORE", "sqlite")
    chosen = load_settings()
    assert chosen.store_backend == "sqlite" and chosen.database_url is None
    monkeypatch.delenv("DATABASE_URL")
    monkeypatch.setenv("DEEPRESEARCH_STORE", "postgres")
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert str(err.value).startswith("DEEPRESEARCH_STORE=postgres needs DATABASE_URL")
    monkeypatch.setenv("DEEPRESEARCH_STORE", "mysql")
    with pytest.raises(SettingsError, match="^invalid setting DEEPRESEARCH_STORE"):
        load_settings()



@pytest.mark.parametrize("problem", ["not UTF-8", "unreadable"])
def test_an_env_file_that_cannot_be_read_is_named_in_one_line(clean_env, tmp_path, monkeypatch, problem):
    """Not a traceback (UnicodeDecodeError, PermissionError), nor an error blamed on another file."""
    monkeypatch.chdir(tmp_path)
    env_file = tmp_path / ".env"
    if problem == "not UTF-8":
        env_file.write_bytes(b"DEEPRESEARCH_DATA_DIR=/tmp/x\n# Gr\xfc\xdfe\n")
        expected = f"cannot read the settings file {env_file}: line 2 is not UTF-8 text (byte 0xfc)"
    else:
        unreadable_file(env_file, "DEEPRESEARCH_LLM=offline\n")
        expected = f"cannot read the settings file {env_file}: Permission denied"
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert str(err.value) == expected


@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_path_setting_is_as_unset(clean_env, tmp_path, monkeypatch, value):
    """An empty ``DEEPRESEARCH_DATA_DIR`` is the default ``./data``, never the working folder itself;
    an empty ``DEEPRESEARCH_CORPUS_DIR`` is no corpus, as other empty settings are unset."""
    from pathlib import Path

    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", value)
    monkeypatch.setenv("DEEPRESEARCH_CORPUS_DIR", value)
    settings = load_settings()
    assert settings.data_dir == Path("data") and settings.checkpoint_path == Path("data/checkpoints.sqlite")
    assert settings.corpus_dir is None and settings.search_backend == "none"
    monkeypatch.delenv("DEEPRESEARCH_DATA_DIR")
    monkeypatch.delenv("DEEPRESEARCH_CORPUS_DIR")
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text(f"DEEPRESEARCH_DATA_DIR={value}\nDEEPRESEARCH_CORPUS_DIR='{value}'\n")
    settings = load_settings()
    assert settings.data_dir == Path("data") and settings.corpus_dir is None


#: Settings of every kind with the value a blank one must give: its default (text, number, choice,
#: flag, URL) or, with no default, unset ("no key", no server).
BLANK_IS_DEFAULT = {
    "DEEPRESEARCH_TAVILY_URL": ("tavily_url", "https://api.tavily.com"),
    "DEEPRESEARCH_RESEARCH_MODEL": ("research_model", "gpt-4.1"),
    "DEEPRESEARCH_SUMMARIZATION_MODEL": ("summarization_model", "gpt-4.1-mini"),
    "DEEPRESEARCH_MAX_REVIEW_ITERATIONS": ("max_review_iterations", 2),
    "DEEPRESEARCH_SUMMARIZATION_TIMEOUT": ("summarization_timeout", 60.0),
    "DEEPRESEARCH_ALLOW_CLARIFICATION": ("allow_clarification", True),
    "DEEPRESEARCH_STRUCTURED_OUTPUT": ("structured_output", "auto"),
    "DEEPRESEARCH_REDIS_RETRY_WINDOW": ("redis_retry_window", None),
    "DEEPRESEARCH_PUBLIC_URL": ("public_url", None),
    "OPENAI_API_KEY": ("openai_api_key", None),
    "TAVILY_API_KEY": ("tavily_api_key", None),
    "DATABASE_URL": ("database_url", None),
}


@pytest.mark.parametrize("value", ["", "   "])
@pytest.mark.parametrize("where", ["environment", ".env"])
def test_a_blank_setting_is_as_unset(clean_env, tmp_path, monkeypatch, value, where):
    """One rule for every setting: an empty (or blank) value is its default, never an invalid
    number, an empty URL or model name, nor an empty key taken for a key."""
    monkeypatch.chdir(tmp_path)
    set_settings(monkeypatch, tmp_path, BLANK_IS_DEFAULT, value, where)
    settings = load_settings()
    assert {var: getattr(settings, name) for var, (name, _) in BLANK_IS_DEFAULT.items()} == {
        var: default for var, (_, default) in BLANK_IS_DEFAULT.items()}
    assert settings.llm_backend == "offline" and settings.search_backend == "none"
    assert settings.model_name("research") == "gpt-4.1" and settings.openai_key == "not-needed"


def test_an_empty_value_in_the_environment_leaves_the_env_files_value(clean_env, tmp_path, monkeypatch):
    """``NAME=`` in the environment is as if ``NAME`` were not there: ``.env``'s value applies."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("DEEPRESEARCH_RESEARCH_MODEL=qwen2.5:32b\nDEEPRESEARCH_MAX_REVIEW_ITERATIONS=1\n")
    monkeypatch.setenv("DEEPRESEARCH_RESEARCH_MODEL", "")
    monkeypatch.setenv("DEEPRESEARCH_MAX_REVIEW_ITERATIONS", "")
    settings = load_settings()
    assert (settings.research_model, settings.max_review_iterations) == ("qwen2.5:32b", 1)


@pytest.mark.parametrize("kind", ["folder", "named pipe", "link to a folder"])
def test_an_env_file_that_is_not_a_file_is_named_in_one_line(clean_env, tmp_path, monkeypatch, kind):
    """A ``.env`` folder is named, not passed over in silence; a named pipe is refused without
    being opened (opening it would wait for a writer for ever)."""
    import os

    monkeypatch.chdir(tmp_path)
    env_file = tmp_path / ".env"
    if kind == "folder":
        env_file.mkdir()
        why = "Is a directory"
    elif kind == "named pipe":
        os.mkfifo(env_file)
        why = "a named pipe (FIFO), not a file"
    else:
        (tmp_path / "settings").mkdir()
        env_file.symlink_to(tmp_path / "settings")
        why = "Is a directory"
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert str(err.value) == f"cannot read the settings file {env_file}: {why}"
