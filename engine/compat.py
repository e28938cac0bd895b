"""What an OpenAI-compatible server supports, learned from its errors; reasoning text removed; JSON answers repaired.

Servers that speak the Chat Completions API differ in what they accept: llama-cpp-python's
server refuses ``response_format.type = "json_schema"`` (500, "Input should be 'text' or
'json_object'") and offers tool calls only in some chat formats; small models answer with
malformed JSON, with no tool call, or with ``<think>`` blocks first. This module keeps, per
server and model for the life of the process, which structured-output method and tool-call
mode still work, and the helpers that read a weak model's answer.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from typing import Any

import json_repair
from langchain_core.exceptions import OutputParserException
from pydantic import BaseModel, ValidationError

from engine.redact import quoted
from engine.settings import SettingsError

log = logging.getLogger(__name__)

#: The structured-output methods in the order ``auto`` tries them.
STRUCTURED_METHODS = ("json_schema", "json_mode", "function_calling", "prompt")
#: About this many characters make one token for the prompts' languages; lower than the usual
#: 4 so that an estimate errs on the side of a shorter prompt.
CHARS_PER_TOKEN = 3.0

_THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_OPEN_THINK = re.compile(r"<(think|thinking|reasoning)>.*\Z", re.DOTALL | re.IGNORECASE)
_CLOSE_ONLY = re.compile(r"\A.*?</(think|thinking|reasoning)>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


class ModelParameterRejected(SettingsError):
    """The model server rejected a request parameter that a setting controls.

    The message is one line naming the parameter, the server's words and the setting to change.
    """


def strip_reasoning(text: str) -> str:
    """``text`` without reasoning: ``<think>…</think>`` (and ``<thinking>``, ``<reasoning>``) blocks,
    a trailing block never closed (the answer was cut off while thinking), and everything up to a
    lone ``</think>`` (templates that put the opening tag into the prompt, as Qwen3's and
    DeepSeek-R1's do). Surrounding whitespace is removed."""
    if not text:
        return ""
    out = _THINK.sub("", text)
    if re.search(r"</(think|thinking|reasoning)>", out, re.IGNORECASE):
        out = _CLOSE_ONLY.sub("", out, count=1)
    out = _OPEN_THINK.sub("", out)
    return out.strip()


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate of ``text``'s tokens (:data:`CHARS_PER_TOKEN` characters each)."""
    return int(len(text) / CHARS_PER_TOKEN) + 1


def schema_instruction(schema: type[BaseModel]) -> str:
    """The prompt text asking for one JSON object that fits ``schema`` (its JSON schema inlined)."""
    return ("Answer with one JSON object and nothing else (no prose, no code fence) that fits this "
            f"JSON schema:\n{json.dumps(schema.model_json_schema(), ensure_ascii=False)}")


def loads_lenient(text: str) -> Any:
    """The JSON value in a model's answer, repaired by ``json_repair`` when malformed; None when
    the text holds no JSON object or array. Reasoning blocks and code fences are removed first."""
    text = strip_reasoning(text)
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1)
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start < 0:
        return None
    value = json_repair.loads(text[start:])
    return value if isinstance(value, (dict, list)) and value else None


def parse_structured(text: str, schema: type[BaseModel]) -> BaseModel:
    """``schema`` validated from a model's text answer (reasoning removed, JSON repaired).

    An object wrapped once (``{"ResearchQuestion": {...}}``, ``{"properties": {...}}``) or
    inside a list is unwrapped.

    Raises:
        langchain_core.exceptions.OutputParserException: no JSON object fitting ``schema``
            (a ``ValueError``, so the structured-output retry tries again).
    """
    value = loads_lenient(text)
    candidates = []
    if isinstance(value, list):
        candidates += [v for v in value if isinstance(v, dict)][:1]
    elif isinstance(value, dict):
        candidates.append(value)
        candidates += [v for v in value.values() if isinstance(v, dict)][:1] if len(value) == 1 else []
    last: Exception | None = None
    for candidate in candidates:
        try:
            return schema.model_validate(candidate)
        except ValidationError as err:
            last = err
    shown = strip_reasoning(text)[:200]
    raise OutputParserException(f"the answer is not a JSON object fitting {schema.__name__}: {last or shown!r}",
                                llm_output=text[:2000])


def _status(err: BaseException) -> int | None:
    return getattr(err, "status_code", None) or getattr(getattr(err, "response", None), "status_code", None)


def _error_text(err: BaseException) -> str:
    body = getattr(err, "body", None)
    return f"{err} {json.dumps(body, default=str) if body is not None else ''}".lower()


_UNSUPPORTED_WORDS = ("unsupported", "not supported", "does not support", "unrecognized", "unknown parameter",
                      "extra inputs are not permitted", "extra_forbidden", "not allowed")


def refused_feature(err: BaseException, feature: str) -> bool:
    """True when ``err`` is the server saying it does not support ``feature``.

    ``feature`` is ``"response_format"`` (structured output) or ``"tools"``. It must be an HTTP
    400, 404, 422, 500 or 501 whose text names the feature (``response_format``, ``json_schema``,
    ``json_object`` for the first; ``tools``, ``tool_choice``, ``function`` for the second), or
    says a parameter is unsupported. A network error or a rate limit is never a refusal.
    A :class:`ModelParameterRejected` is judged by the server's error it was made from.
    """
    if isinstance(err, ModelParameterRejected) and err.__cause__ is not None:
        err = err.__cause__
    if _status(err) not in (400, 404, 422, 500, 501):
        return False
    text = _error_text(err)
    words = {"response_format": ("response_format", "json_schema", "json_object", "structured output",
                                 "guided_json", "grammar"),
             "tools": ("tools", "tool_choice", "tool call", "function call", "functions", "tool_calls")}[feature]
    return any(w in text for w in words) or (
        any(w in text for w in _UNSUPPORTED_WORDS) and "messages" not in text)


#: Request parameters a setting controls, and that setting.
_PARAMETER_SETTINGS = {
    "max_tokens": "DEEPRESEARCH_MAX_OUTPUT_TOKENS",
    "max_completion_tokens": "DEEPRESEARCH_MAX_OUTPUT_TOKENS",
    "response_format": "DEEPRESEARCH_STRUCTURED_OUTPUT",
    "tools": "DEEPRESEARCH_TOOL_CALLS",
    "tool_choice": "DEEPRESEARCH_TOOL_CALLS",
    "parallel_tool_calls": "DEEPRESEARCH_TOOL_CALLS",
    "model": "DEEPRESEARCH_<ROLE>_MODEL",
}


def rejected_parameter(err: BaseException, role: str = "") -> ModelParameterRejected | None:
    """The one-line :class:`ModelParameterRejected` for a 400/422 that names a parameter a
    setting controls (OpenAI's ``param`` field, or the parameter's name in the message); None
    for any other error, which is left as it is."""
    if _status(err) not in (400, 422):
        return None
    body = getattr(err, "body", None)
    param = str(body.get("param") or "") if isinstance(body, dict) else ""
    text = _error_text(err)
    if param.split(".")[0] not in _PARAMETER_SETTINGS:
        param = next((p for p in _PARAMETER_SETTINGS if p != "model" and p in text), "")
    if not param:
        return None
    setting = _PARAMETER_SETTINGS[param.split(".")[0]].replace("<ROLE>", role.upper() or "<ROLE>")
    message = str(body.get("message") if isinstance(body, dict) and body.get("message") else err)
    line = " ".join(message.split())[:240]
    return ModelParameterRejected(f"the model server rejected the request parameter {param!r} ({line}); "
                                  f"change {setting}")


def refused_setting(err: BaseException, setting: str, value: str) -> ModelParameterRejected:
    """The one line for a server that refuses what ``setting`` (set to ``value``) asks of it."""
    if isinstance(err, ModelParameterRejected) and err.__cause__ is not None:
        err = err.__cause__
    body = getattr(err, "body", None)
    message = str(body.get("message") if isinstance(body, dict) and body.get("message") else err)
    line = " ".join(message.split())[:240]
    return ModelParameterRejected(f"the model server refused {setting}={value} ({line}); "
                                  f"set {setting}=auto, or another method it supports")


class ServerSupport:
    """Per base URL the structured-output method, per (base URL, model name) the tool-call mode,
    that still work.

    Process-wide and thread-safe: once a server has refused ``json_schema`` or ``tools``, no
    later call in the process asks it again. Each role's method is logged once
    (``event=structured_output role=... method=...``).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._structured: dict[tuple, int] = {}
        self._no_tools: set[tuple] = set()
        self._logged: set[tuple] = set()

    def structured_method(self, key: tuple, setting: str) -> str:
        """The method to use now: the setting itself unless it is ``auto``.

        Structured output is a feature of the server (its request validation, its grammar
        engine), so it is learned per base URL, for every model it serves.
        """
        if setting != "auto":
            return setting
        with self._lock:
            return STRUCTURED_METHODS[self._structured.get(key[:1], 0)]

    def refuse_structured(self, key: tuple, method: str, err: BaseException) -> str | None:
        """Record that ``method`` failed on ``key``'s server; the next method, None after ``prompt``
        (a refusal of a method already left behind, by a call that was in flight, changes nothing)."""
        index = STRUCTURED_METHODS.index(method)
        if index + 1 >= len(STRUCTURED_METHODS):
            return None
        with self._lock:
            if self._structured.get(key[:1], 0) > index:
                return STRUCTURED_METHODS[self._structured[key[:1]]]
        with self._lock:
            self._structured[key[:1]] = max(self._structured.get(key[:1], 0), index + 1)
            following = STRUCTURED_METHODS[self._structured[key[:1]]]
        log.warning("event=structured_output_fallback server=%s model=%s refused=%s next=%s error=%s",
                    key[0], key[1], method, following, quoted(err))
        return following

    def native_tools(self, key: tuple, setting: str) -> bool:
        """True while native tool calls are to be used for ``key``'s server."""
        if setting != "auto":
            return setting == "native"
        with self._lock:
            return key not in self._no_tools

    def refuse_tools(self, key: tuple, err: BaseException) -> None:
        """Record that ``key``'s server refuses ``tools``: the prompted protocol from now on."""
        with self._lock:
            self._no_tools.add(key)
        log.warning("event=tool_calls_fallback server=%s model=%s next=prompted error=%s",
                    key[0], key[1], quoted(err))

    def note(self, role: str, what: str, value: str) -> None:
        """Log ``event=<what> role=<role> method=<value>`` the first time this role uses it."""
        with self._lock:
            if (role, what, value) in self._logged:
                return
            self._logged.add((role, what, value))
        log.info("event=%s role=%s method=%s", what, role, value)

    def reset(self) -> None:
        """Forget everything learned (tests start from a fresh server)."""
        with self._lock:
            self._structured.clear()
            self._no_tools.clear()
            self._logged.clear()


SUPPORT = ServerSupport()


def server_key(model: Any) -> tuple:
    """``(base URL, model name)`` of a chat model; ``("offline", role)`` for others."""
    base = getattr(model, "openai_api_base", None)
    name = getattr(model, "model_name", None)
    if name is None:
        return ("offline", role_of(model))
    return (str(base or "https://api.openai.com/v1"), str(name))


def role_of(model: Any) -> str:
    """The role a model was built for (its ``role`` metadata), or ``"unknown"``."""
    return str((getattr(model, "metadata", None) or {}).get("role", "unknown"))
