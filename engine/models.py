"""One chat model per role (research, summarization, compression, final report, review) and token accounting."""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.outputs import LLMResult

from engine.redact import quoted, redact, remember_secret
from engine.settings import KEYLESS_API_KEY, ROLES, Settings

log = logging.getLogger(__name__)


def build_model(role: str, settings: Settings) -> BaseChatModel:
    """The chat model for ``role`` (one of :data:`engine.settings.ROLES`).

    ``openai``: :class:`engine.openai_model.BoundedChatOpenAI` on the Chat Completions API
    (``use_responses_api=False``, which vLLM, Ollama and llama.cpp servers lack) with
    ``OPENAI_BASE_URL``, the role's model name, ``DEEPRESEARCH_MODEL_TIMEOUT`` per HTTP attempt,
    the SDK's bounded retries (``DEEPRESEARCH_MODEL_MAX_RETRIES``) and
    ``DEEPRESEARCH_NODE_TIMEOUT`` over all of them, the role's output limit
    (:meth:`engine.settings.Settings.output_tokens`) as ``max_tokens`` and prompts cut to ``DEEPRESEARCH_CONTEXT_WINDOW``; its errors carry redacted text. ``offline``:
    the deterministic extractive :class:`engine.offline.OfflineChatModel`.
    Every role and every call on one event loop share one pooled httpx client per (base URL,
    timeout) (:func:`engine.openai_model.loop_client`).
    Every model is tagged ``role:<role>`` so :class:`UsageRecorder` can attribute tokens.
    """
    if role not in ROLES:
        raise ValueError(f"unknown model role {role!r}")
    if settings.llm_backend == "offline":
        from engine.offline import OfflineChatModel

        return OfflineChatModel(role=role, tags=[f"role:{role}"], metadata={"role": role})
    return _openai_model(role, settings)


def provider_errors(*names: str) -> tuple[type[BaseException], ...]:
    """The OpenAI SDK's exception classes called ``names`` (``"APIError"``, ...), or ``()`` when it is not loaded.

    Only the ``openai`` back-end (:mod:`engine.openai_model`) imports the SDK, so an offline run never pays its
    start-up (about 0.8 s of imports) and can raise none of its errors; use the result in ``except`` clauses and
    ``isinstance`` checks. Raises ``AttributeError`` for a name the SDK does not define.
    """
    sdk = sys.modules.get("openai")
    return tuple(getattr(sdk, name) for name in names) if sdk is not None else ()


def model_server_problem(err: BaseException, settings: Settings) -> str | None:
    """The one line naming the setting behind a model server's error ``err``, or None for an error that is
    not the model server's (the OpenAI SDK's ``APIConnectionError``, ``AuthenticationError`` and other
    ``APIStatusError``): the server is named by its ``OPENAI_BASE_URL`` when one is set (password-free,
    :func:`engine.redact.redact`), a key it refused as ``OPENAI_API_KEY`` (never its value), and a key asked
    for by a server given none says so."""
    server = f"the model server at OPENAI_BASE_URL {redact(settings.openai_base_url)}" if settings.openai_base_url \
        else "the model server"
    if isinstance(err, provider_errors("APIConnectionError")):
        return f"{server} could not be reached ({type(err).__name__})"
    if isinstance(err, provider_errors("AuthenticationError")):
        if not settings.openai_api_key:
            return f"{server} asks for an API key: set OPENAI_API_KEY"
        return f"{server} rejected the API key (OPENAI_API_KEY)"
    if isinstance(err, provider_errors("APIStatusError")):
        return f"{server} answered {err.status_code}: {redact(str(err.message))[:300]}"
    return None


#: Seconds the start-up check of the model server waits for its models list.
MODEL_CHECK_TIMEOUT = 10.0


def check_model_server(settings: Settings) -> str | None:
    """Ask the ``openai`` back-end's server for its models list (``GET {OPENAI_BASE_URL}/models``, the
    OpenAI SDK's ``models.list``: no tokens spent), once and within :data:`MODEL_CHECK_TIMEOUT`: the line of
    :func:`model_server_problem` when it refuses the key or cannot be reached (or answers that it has no
    such path: a base URL that is not the API's), else None, also for the ``offline`` back-end and for a
    server that answers another error (one without a models list, say: its turns' calls will tell)."""
    if settings.llm_backend != "openai" or (not settings.openai_api_key and not settings.openai_base_url):
        return None
    import openai

    client = openai.OpenAI(api_key=settings.openai_key, base_url=settings.openai_base_url,
                           timeout=MODEL_CHECK_TIMEOUT, max_retries=0)
    try:
        client.models.list()
    except (openai.APIConnectionError, openai.AuthenticationError, openai.NotFoundError) as err:
        return model_server_problem(err, settings)
    except openai.APIError:
        return None
    finally:
        client.close()
    return None


def _openai_model(role: str, settings: Settings) -> BaseChatModel:
    from engine.openai_model import BoundedChatOpenAI, loop_client

    settings.require_model()
    key = settings.openai_key
    if key != KEYLESS_API_KEY:  # the placeholder is no secret: masking it would hide the word in every log
        remember_secret(key)
    return BoundedChatOpenAI(
        model=settings.model_name(role),
        api_key=key,
        base_url=settings.openai_base_url,
        use_responses_api=False,
        timeout=settings.model_timeout,
        max_retries=settings.model_max_retries,
        tags=[f"role:{role}"],
        metadata={"role": role},
        total_timeout=settings.node_timeout,
        max_tokens=settings.output_tokens(role),
        context_window=settings.context_window,
        http_async_client=loop_client(settings.openai_base_url, settings.model_timeout),
    )


#: Seconds the usage sink is left alone after it failed: while its database is unreachable each
#: try waits for the connect timeout, which would hold up every model call of the outage. The
#: records of the calls meanwhile are in ``usage.jsonl`` and reach the database when the run's
#: usage is gathered (:meth:`engine.artifact_store.ArtifactStore.gather_usage`).
USAGE_SINK_REST = 30.0
#: The clock of :data:`USAGE_SINK_REST` (monotonic seconds).
_now = time.monotonic


class UsageRecorder(BaseCallbackHandler):
    """Appends one JSON line per model call (role, model, input/output tokens, seconds) to a file.

    The file (``usage.jsonl`` in the run's folder) is appended as calls finish, so a run that is
    killed and resumed keeps the calls of both processes; :func:`summarize_usage` folds it into
    ``usage.json``. Token counts come from the message's ``usage_metadata``. ``sink`` (the artifact
    store's :meth:`~engine.artifact_store.ArtifactStore.add_usage`) also gets each record, so a run
    resumed on another host counts the calls made here; its failure is never raised and is logged
    once per outage: ``event=usage_record_failed`` (warning, with the first error) when the sink
    starts failing, ``event=usage_record_recovered not_counted=N`` (info) when it takes a record
    again, N being the records it missed meanwhile (they stay in ``usage.jsonl``, which
    :meth:`~engine.artifact_store.ArtifactStore.gather_usage` folds in later). After a failure
    the sink is not tried for :data:`USAGE_SINK_REST` seconds (those records are missed too).
    """

    def __init__(self, path: Path, turn: str, sink: Callable[[dict], None] | None = None) -> None:
        self.path = path
        self.turn = turn
        self.sink = sink
        self._runs: dict[UUID, tuple[str, str, float]] = {}
        self._lock = threading.Lock()
        self._sink_lock = threading.Lock()
        self._not_counted = 0  # records the sink refused (or was not given) since it last took one
        self._rest_until = 0.0  # _now() before which the sink is not tried (it failed)
        path.parent.mkdir(parents=True, exist_ok=True)

    def on_chat_model_start(self, serialized: dict, messages: list, *, run_id: UUID, tags=None, metadata=None, **kw: Any) -> None:
        role = next((t[5:] for t in (tags or []) if t.startswith("role:")), "unknown")
        params = kw.get("invocation_params") or {}
        model = params.get("model") or params.get("model_name") or (serialized or {}).get("name", "")
        self._runs[run_id] = (role, str(model), time.time())

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kw: Any) -> None:
        role, model, started = self._runs.pop(run_id, ("unknown", "", time.time()))
        usage: dict = {}
        try:
            message = response.generations[0][0].message  # type: ignore[attr-defined]
            usage = dict(message.usage_metadata or {})
            model = (message.response_metadata or {}).get("model_name") or model
        except (IndexError, AttributeError):
            pass
        record = {
            "turn": self.turn,
            "role": role,
            "model": model,
            "input_tokens": int(usage.get("input_tokens", 0)),
            "output_tokens": int(usage.get("output_tokens", 0)),
            "started": started,
            "seconds": round(time.time() - started, 4),
        }
        with self._lock, self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")
        if self.sink is not None:
            self._to_sink(record)

    def _to_sink(self, record: dict) -> None:
        """Hand ``record`` to the sink unless it rests; an outage is logged once as it starts and once as it ends."""
        with self._sink_lock:
            if _now() < self._rest_until:
                self._not_counted += 1
                return
        try:
            self.sink(record)  # type: ignore[misc]
        except Exception as err:  # the count is bookkeeping: the research goes on
            with self._sink_lock:
                self._not_counted += 1
                self._rest_until = _now() + USAGE_SINK_REST
                first = self._not_counted == 1
            if first:
                log.warning("event=usage_record_failed turn=%s error=%s", self.turn, quoted(err))
            return
        with self._sink_lock:
            missed, self._not_counted = self._not_counted, 0
        if missed:
            log.info("event=usage_record_recovered turn=%s not_counted=%d", self.turn, missed)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kw: Any) -> None:
        self._runs.pop(run_id, None)


def summarize_usage(jsonl: Path) -> dict:
    """Fold ``usage.jsonl`` into ``{"by_role": {role: {model, calls, input_tokens, output_tokens}},
    "total": {...}, "turns": [..], "largest_prompt_tokens": n}``."""
    by_role: dict[str, dict] = {}
    total = {"calls": 0, "input_tokens": 0, "output_tokens": 0}
    turns: list[str] = []
    largest = 0
    if jsonl.exists():
        for line in jsonl.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            slot = by_role.setdefault(
                rec["role"], {"models": [], "calls": 0, "input_tokens": 0, "output_tokens": 0}
            )
            if rec["model"] and rec["model"] not in slot["models"]:
                slot["models"].append(rec["model"])
            for key in ("input_tokens", "output_tokens"):
                slot[key] += rec[key]
                total[key] += rec[key]
            slot["calls"] += 1
            total["calls"] += 1
            largest = max(largest, rec["input_tokens"])
            if rec.get("turn") and rec["turn"] not in turns:
                turns.append(rec["turn"])
    return {"by_role": by_role, "total": total, "turns": turns, "largest_prompt_tokens": largest}
