"""Settings from the environment (and `.env`), validated once at start-up."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from engine.env_files import EnvFileError, env_file_names, env_file_paths

ROLES = ("research", "summarization", "compression", "final_report", "review")

#: A role's ``max_tokens`` when neither its own setting nor ``DEEPRESEARCH_MAX_OUTPUT_TOKENS`` is
#: set but ``DEEPRESEARCH_CONTEXT_WINDOW`` is: this share of the window, at most the ceiling
#: (tokens). Tool-calling turns and page summaries are short; the compressed notes and the review
#: longer; the report longest. The ceilings stay under common servers' output limits (16k and more).
ROLE_OUTPUT_SHARE = {"research": (1 / 8, 2048), "summarization": (1 / 8, 2048), "compression": (1 / 4, 4096),
                     "final_report": (1 / 2, 8192), "review": (1 / 4, 4096)}


#: The API key sent to a server at ``OPENAI_BASE_URL`` when ``OPENAI_API_KEY`` is unset (the SDK
#: refuses an empty one): a placeholder, not a secret, so never masked in logs.
KEYLESS_API_KEY = "not-needed"

#: The model name the offline model (:class:`engine.offline.OfflineChatModel`) reports in usage
#: records; here, so that readers of those records (``deepresearch audit``) need not load it.
OFFLINE_MODEL_NAME = "offline-extractive"


class SettingsError(Exception):
    """A setting is missing or invalid; the message is one line naming the setting."""


def _blank(value: object) -> bool:
    """True for a value that says nothing: an empty string, spaces only, or such a secret."""
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    return isinstance(value, str) and not value.strip()


class BlankIsUnset(BaseSettings):
    """Settings (the engine's, Slack's, Teams') for which an empty or blank value is as if it were not
    there at all, in the environment, in ``.env`` or passed in: ``NAME=`` gives ``NAME``'s default
    (a number, a flag, a choice, a model name or a URL), or, with none, unset (no key, no server);
    never an empty string taken for a value.

    ``NAME=`` in the environment is left out by pydantic-settings' own ``env_ignore_empty``, so a value of
    ``NAME`` in ``.env`` applies; a value of spaces only is left out here, after the sources are
    merged, so it gives the default. No setting tells an empty value from an unset one: every
    empty list (``DEEPRESEARCH_ADMINS``, ``SLACK_ALLOWED_TEAMS``, ``MICROSOFT_ALLOWED_TENANTS``) is
    its default, and an empty key was "no key" already.
    """

    model_config = SettingsConfigDict(env_ignore_empty=True)

    @model_validator(mode="before")
    @classmethod
    def _blank_is_unset(cls, data: object) -> object:
        if isinstance(data, dict):
            return {name: value for name, value in data.items() if not _blank(value)}
        return data

    @model_validator(mode="after")
    def _secrets_are_masked(self) -> BlankIsUnset:
        """Every secret read (a key, a token, a password), from the environment or from ``.env``, is
        masked by value in every log line and error from now on (:func:`engine.redact.remember_secret`):
        :data:`engine.redact.SECRET_ENV` masks only those of the environment."""
        from engine.redact import remember_secret

        for name in type(self).model_fields:
            value = getattr(self, name)
            if isinstance(value, SecretStr):
                remember_secret(value.get_secret_value().strip())
        return self


class Settings(BlankIsUnset):
    """Every setting of the project.

    Third-party names are read as their SDKs spell them (``OPENAI_API_KEY``, ``TAVILY_API_KEY``,
    ...); the project's own carry the ``DEEPRESEARCH_`` prefix. Defaults for the research limits
    are open_deep_research's (``max_concurrent_research_units`` 5, ``max_researcher_iterations``
    6, ``max_react_tool_calls`` 10, ``max_structured_output_retries`` 3).
    """

    model_config = SettingsConfigDict(
        env_prefix="DEEPRESEARCH_", env_file=".env", env_file_encoding="utf-8", extra="ignore",
        populate_by_name=True,
    )

    # third-party names, read without the prefix
    openai_api_key: SecretStr | None = Field(default=None, validation_alias="OPENAI_API_KEY")
    openai_base_url: str | None = Field(default=None, validation_alias="OPENAI_BASE_URL")
    tavily_api_key: SecretStr | None = Field(default=None, validation_alias="TAVILY_API_KEY")
    redis_url: str | None = Field(default=None, validation_alias="REDIS_URL")
    #: PostgreSQL for checkpoints and report files, shared by every host (libpq URL); unset: the
    #: SQLite files under ``DEEPRESEARCH_DATA_DIR`` (one host)
    database_url: SecretStr | None = Field(default=None, validation_alias="DATABASE_URL")

    # the project's own
    data_dir: Path = Path("./data")
    #: where checkpoints and report files live: ``postgres`` (needs ``DATABASE_URL``) or
    #: ``sqlite`` (the files under ``data_dir``, even with ``DATABASE_URL`` set); unset: by ``DATABASE_URL``
    store: Literal["postgres", "sqlite"] | None = None
    llm: Literal["openai", "offline"] | None = None
    search: Literal["tavily", "corpus", "none"] | None = None
    tavily_url: str = "https://api.tavily.com"
    corpus_dir: Path | None = None
    research_model: str = "gpt-4.1"
    summarization_model: str = "gpt-4.1-mini"
    compression_model: str = "gpt-4.1"
    final_report_model: str = "gpt-4.1"
    review_model: str = "gpt-4.1"
    max_concurrent_research_units: int = Field(default=5, ge=1, le=50)
    max_researcher_iterations: int = Field(default=6, ge=1, le=50)
    max_react_tool_calls: int = Field(default=10, ge=1, le=100)
    max_structured_output_retries: int = Field(default=3, ge=1, le=10)
    #: how structured answers are asked for: ``auto`` starts with ``json_schema`` and falls back,
    #: for the rest of the process, as far as the server refuses (see engine/compat.py)
    structured_output: Literal["auto", "json_schema", "json_mode", "function_calling", "prompt"] = "auto"
    #: how the supervisor and researchers call tools: ``auto`` uses native tool calls and falls
    #: back to the prompted JSON action block when the server refuses ``tools``
    tool_calls: Literal["auto", "native", "prompt"] = "auto"
    #: ``max_tokens`` sent with every model call; None leaves it to the server
    max_output_tokens: int | None = Field(default=None, ge=16)
    #: ``max_tokens`` of one role's calls, over ``max_output_tokens`` (see :meth:`output_tokens`)
    research_max_output_tokens: int | None = Field(default=None, ge=16)
    summarization_max_output_tokens: int | None = Field(default=None, ge=16)
    compression_max_output_tokens: int | None = Field(default=None, ge=16)
    final_report_max_output_tokens: int | None = Field(default=None, ge=16)
    review_max_output_tokens: int | None = Field(default=None, ge=16)
    #: the model's context window in tokens; prompts are cut to fit before they are sent
    context_window: int | None = Field(default=None, ge=512)
    max_review_iterations: int = Field(default=2, ge=0, le=10)
    max_clarification_rounds: int = Field(default=1, ge=0, le=3)
    allow_clarification: bool = True
    review_use_web: bool = False
    search_max_results: int = Field(default=5, ge=1, le=20)
    summarization_timeout: float = Field(default=60.0, gt=0)
    #: tokens (prompt and answer, every role) one run may use; None: unlimited. A soft limit: once
    #: a run has used RESEARCH_SHARE of it, no new research topic starts (those under way finish),
    #: and the report, which names the topics left out, and the review are written with the rest
    max_run_tokens: int | None = Field(default=None, ge=1000)
    #: pages whose raw text is under this many tokens (estimated, 3 characters each) are used as
    #: they are, not summarised: the summary prompt and its answer (a summary of at most 300
    #: words and up to five excerpts) would cost more than the page; 0 summarises every page
    summary_min_tokens: int = Field(default=300, ge=0)
    model_timeout: float = Field(default=120.0, gt=0)
    model_max_retries: int = Field(default=3, ge=0, le=10)
    #: seconds one model or search step may wait in all, across the SDK's, the structured-output
    #: and the search retries (``model_timeout`` bounds each attempt); past it the run stops, resumable
    node_timeout: float = Field(default=300.0, gt=0)
    pdf_timeout: float = Field(default=120.0, gt=0)
    #: files shared in a thread (``ask --file``, Slack, Teams): the largest file read, in bytes ...
    file_max_bytes: int = Field(default=25 * 1024 * 1024, ge=1)
    #: ... all of one thread's files together, in bytes ...
    thread_files_max_bytes: int = Field(default=100 * 1024 * 1024, ge=1)
    #: ... the PDF pages and the characters kept of one file (the rest is cut, and said so) ...
    file_max_pages: int = Field(default=500, ge=1)
    file_max_chars: int = Field(default=1_000_000, ge=1000)
    #: ... and the seconds reading one file may take before it is skipped
    file_parse_timeout: float = Field(default=60.0, gt=0)
    public_url: str | None = None
    job_timeout: int = Field(default=3600, ge=60)
    #: seconds every Redis call waits out an outage before it raises (unset: 90,
    #: :data:`jobs.redisconn.REDIS_RETRY_WINDOW`)
    redis_retry_window: float | None = Field(default=None, gt=0)
    clarify_ttl: int = Field(default=86400, ge=60)
    #: Quotas (0: no limit). Researches one user (or one Slack workspace / Teams tenant) may have
    #: queued or running at once; researches started per rolling 24 hours; model tokens (input
    #: plus output) spent per rolling 24 hours. ``admins``: user ids (comma-separated) exempt.
    max_running_per_user: int = Field(default=2, ge=0)
    max_running_per_workspace: int = Field(default=0, ge=0)
    max_researches_per_user_per_day: int = Field(default=0, ge=0)
    max_researches_per_workspace_per_day: int = Field(default=0, ge=0)
    max_tokens_per_user_per_day: int = Field(default=0, ge=0)
    max_tokens_per_workspace_per_day: int = Field(default=0, ge=0)
    admins: str = ""
    #: Seconds a stopping process (SIGTERM/SIGINT) gives its running turns to hand themselves
    #: back (cancelled at their last checkpoint, re-queued) before it exits anyway.
    shutdown_grace: float = Field(default=20.0, gt=0, le=600)
    #: Seconds a chat event kept in the inbox (acknowledged, its work not yet done) stays with the
    #: process that took it; the process renews it while the work runs, and once it lapses (the
    #: process died) another process, or the next start, handles the event (:mod:`jobs.inbox`).
    inbox_lease: float = Field(default=60.0, gt=0, le=3600)

    @field_validator("redis_url", mode="before")
    @classmethod
    def _redis_scheme(cls, v: object) -> object:
        if isinstance(v, str) and not v.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("must start with redis://, rediss:// or unix://")
        return v

    @field_validator("database_url", mode="before")
    @classmethod
    def _postgres_scheme(cls, v: object) -> object:
        if isinstance(v, SecretStr):
            v = v.get_secret_value()
        if isinstance(v, str):
            v = v.strip()
            if not v.startswith(("postgresql://", "postgres://")):
                raise ValueError("must start with postgresql:// (or postgres://)")
            from urllib.parse import unquote, urlsplit

            from engine.redact import remember_secret

            try:  # the password is masked in every log line and error from now on
                remember_secret(unquote(urlsplit(v).password or ""))
            except ValueError as err:
                raise ValueError(f"not a URL: {err}") from None
        return v

    @model_validator(mode="after")
    def _store_choice(self) -> Settings:
        if self.store == "postgres" and self.database_url is None:
            raise ValueError("DEEPRESEARCH_STORE=postgres needs DATABASE_URL "
                             "(postgresql://user:password@host:5432/db)")
        if self.store == "sqlite":
            self.database_url = None  # the embedded store, whatever else the environment holds
        return self

    @field_validator("llm", "search", "store", "structured_output", "tool_calls", mode="before")
    @classmethod
    def _lower(cls, v: object) -> object:
        return v.strip().lower() if isinstance(v, str) else v

    # ---- derived -------------------------------------------------------------------------
    @property
    def admin_ids(self) -> frozenset[str]:
        """The user ids of ``DEEPRESEARCH_ADMINS`` (exempt from every quota)."""
        return id_set(self.admins)

    @property
    def llm_backend(self) -> Literal["openai", "offline"]:
        """The model back-end: explicit ``DEEPRESEARCH_LLM``, else openai when ``OPENAI_API_KEY`` or
        ``OPENAI_BASE_URL`` is set (a local server, llama.cpp, vLLM or Ollama, runs without a key),
        else offline."""
        if self.llm:
            return self.llm
        return "openai" if self.openai_api_key or self.openai_base_url else "offline"

    @property
    def openai_key(self) -> str:
        """The key the OpenAI SDK is given: ``OPENAI_API_KEY``, else :data:`KEYLESS_API_KEY` (the SDK
        needs a non-empty string; a server at ``OPENAI_BASE_URL`` that checks no key ignores it)."""
        key = self.openai_api_key.get_secret_value().strip() if self.openai_api_key else ""
        return key or KEYLESS_API_KEY

    @property
    def search_backend(self) -> Literal["tavily", "corpus", "none"]:
        """The search back-end: explicit ``DEEPRESEARCH_SEARCH``, else by what is configured."""
        if self.search:
            return self.search
        if self.corpus_dir:
            return "corpus"
        return "tavily" if self.tavily_api_key else "none"

    def model_name(self, role: str) -> str:
        """The model name configured for ``role`` (one of :data:`ROLES`)."""
        return getattr(self, f"{role}_model")

    def output_tokens(self, role: str) -> int | None:
        """``max_tokens`` for ``role``'s calls: ``DEEPRESEARCH_<ROLE>_MAX_OUTPUT_TOKENS``, else
        ``DEEPRESEARCH_MAX_OUTPUT_TOKENS``, else, with ``DEEPRESEARCH_CONTEXT_WINDOW`` set, the role's
        share of the window (:data:`ROLE_OUTPUT_SHARE`), else None (the server's own limit).
        Never more than half the window, so that a prompt still fits."""
        own = getattr(self, f"{role}_max_output_tokens") or self.max_output_tokens
        if not self.context_window:
            return own
        share, ceiling = ROLE_OUTPUT_SHARE[role]
        return min(own or min(int(self.context_window * share), ceiling), self.context_window // 2)

    @property
    def store_backend(self) -> Literal["postgres", "sqlite"]:
        """Where checkpoints and report files live: PostgreSQL with ``DATABASE_URL`` (unless
        ``DEEPRESEARCH_STORE=sqlite``), else SQLite files."""
        return "postgres" if self.database_url else "sqlite"

    @property
    def checkpoint_path(self) -> Path:
        """The SQLite checkpoint database of the research graphs."""
        return self.data_dir / "checkpoints.sqlite"

    @property
    def corpus_index_path(self) -> Path:
        """The SQLite FTS5 index of ``DEEPRESEARCH_CORPUS_DIR`` (:func:`corpus_index_for`).

        Raises:
            SettingsError: ``DEEPRESEARCH_CORPUS_DIR`` is not set (no folder, so no index to choose).
        """
        if self.corpus_dir is None:
            raise SettingsError("DEEPRESEARCH_SEARCH=corpus needs DEEPRESEARCH_CORPUS_DIR, the folder "
                                "indexed with `deepresearch index DIR`")
        return corpus_index_for(self.data_dir, self.corpus_dir)

    @property
    def artifacts_dir(self) -> Path:
        """Where each run's report files are written."""
        return self.data_dir / "artifacts"

    def require_model(self) -> None:
        """Raise :class:`SettingsError` when the openai back-end is chosen without a key.

        A local OpenAI-compatible server (vLLM, Ollama, llama.cpp) needs no key: with
        ``OPENAI_BASE_URL`` set and no key, :data:`KEYLESS_API_KEY` is sent (:attr:`openai_key`).
        """
        if self.llm_backend == "openai" and not self.openai_api_key and not self.openai_base_url:
            raise SettingsError(
                "no model configured: set OPENAI_API_KEY (or OPENAI_BASE_URL for a compatible "
                "server), or DEEPRESEARCH_LLM=offline for the offline extractive mode"
            )

    def require_search(self) -> None:
        """Raise :class:`SettingsError` when the chosen search back-end lacks its setting."""
        if self.search_backend == "corpus" and self.corpus_dir is None:
            raise SettingsError("DEEPRESEARCH_SEARCH=corpus needs DEEPRESEARCH_CORPUS_DIR, the folder "
                                "indexed with `deepresearch index DIR`")
        if self.search_backend == "tavily" and not self.tavily_api_key:
            raise SettingsError(
                "TAVILY_API_KEY is not set (or choose DEEPRESEARCH_SEARCH=corpus or none)"
            )


def _explain(err: ValidationError) -> str:
    first = err.errors()[0]
    if not first.get("loc"):  # a rule across settings: its message names them
        return str(first.get("msg", "invalid settings")).removeprefix("Value error, ")
    loc = first["loc"]
    name = str(loc[0])
    env = name.upper() if name.isupper() or name.upper() in _THIRD_PARTY else f"DEEPRESEARCH_{name.upper()}"
    value = first.get("input")
    from engine.redact import redact

    secret = "key" in name or "secret" in name or "password" in name or "token" in name or name == "DATABASE_URL"
    shown = "" if secret else f" (got {redact(repr(value))})"
    return f"invalid setting {env}: {first.get('msg', 'invalid value')}{shown}"


_THIRD_PARTY = {
    "OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY", "SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET",
    "SLACK_APP_TOKEN", "SLACK_API_URL", "REDIS_URL", "DATABASE_URL",
}


def corpus_index_for(data_dir: Path, folder: Path) -> Path:
    """The corpus index of ``folder``: ``{data_dir}/corpus/{key}.sqlite``, ``key`` the first 16 hex
    digits of the SHA-256 of the folder's resolved path (symlinks followed, ``~`` expanded).

    One index per folder, so indexing one folder (``deepresearch index``, ``ask --corpus``) never
    replaces another's that a running bot or worker searches.
    """
    import hashlib

    resolved = str(Path(folder).expanduser().resolve())
    key = hashlib.sha256(resolved.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return Path(data_dir) / "corpus" / f"{key}.sqlite"


def id_set(value: str | None) -> frozenset[str]:
    """The ids in a comma-separated setting (``"T1, T2"`` → ``{"T1", "T2"}``); blanks are dropped."""
    return frozenset(part.strip() for part in (value or "").replace(";", ",").split(",") if part.strip())


_S = TypeVar("_S", bound="BlankIsUnset")


def load_settings(**overrides: object) -> Settings:
    """Read and validate the settings; ``overrides`` (field names) win over the environment.

    Raises:
        SettingsError: one line naming the first invalid setting.
    """
    return load_settings_as(Settings, **overrides)


def load_settings_as(cls: type[_S], **overrides: object) -> _S:
    """:func:`load_settings` for ``cls``, a surface's settings (that extend :class:`Settings`, or
    :class:`BlankIsUnset` as Slack's do).

    A name with the ``DEEPRESEARCH_`` prefix that is not a setting (a misspelt one) is refused,
    whether it is in the environment or in a ``.env`` file pydantic-settings reads (``.env`` in the
    working folder, or ``overrides["_env_file"]``); the message names the file and line.

    Raises:
        SettingsError: one line naming the first unknown or invalid setting, or a ``.env`` file that
            cannot be read (not UTF-8, no permission, a folder, a named pipe), with why.
    """
    for var in sorted(os.environ):
        _check_known(var)
    env_files = overrides.get("_env_file", cls.model_config.get("env_file"))
    try:
        for path in env_file_paths(env_files):
            for var, line in env_file_names(path, cls.model_config.get("env_file_encoding") or "utf-8"):
                _check_known(var, f"{path}, line {line}")
    except EnvFileError as err:
        raise SettingsError(str(err)) from None
    try:
        return cls(**overrides)
    except ValidationError as err:
        raise SettingsError(_explain(err)) from None


#: The prefix of the project's own settings: a name with it that is not a setting is refused.
OWN_PREFIX = "DEEPRESEARCH_"


def _check_known(var: str, where: str = "") -> None:
    """Raise :class:`SettingsError` when ``var`` carries :data:`OWN_PREFIX` (in any case, as
    pydantic-settings reads names case-insensitively) and is not one of :class:`Settings`' fields.
    ``where`` (``"/srv/.env, line 3"``) says where the name was found; "" for the environment."""
    if not var.upper().startswith(OWN_PREFIX):
        return
    known = {f"{OWN_PREFIX}{name.upper()}" for name in Settings.model_fields}
    if var.upper() in known:
        return
    import difflib

    close = difflib.get_close_matches(var.upper(), sorted(known), n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    place = f" in {where}" if where else ""
    raise SettingsError(f"unknown setting {var}{place}: not one of the {OWN_PREFIX} settings{hint}")


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once."""
    return load_settings()
