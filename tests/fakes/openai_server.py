"""A fake OpenAI-compatible Chat Completions server on 127.0.0.1, scripted by a handler."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.loopback import CallRecord, HTTPAnswer, LoopbackServer


def estimate_tokens(text: str) -> int:
    """A deterministic token estimate: ``len(text) // 4 + 1`` (about 4 characters per token)."""
    return len(text) // 4 + 1


def text_of(message: dict) -> str:
    """The text of a Chat Completions message: a string content, or the text parts of a list."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


@dataclass
class ChatRequest:
    """A parsed ``POST /v1/chat/completions`` request as the handler sees it.

    ``body`` is the JSON body exactly as the client sent it; the properties read it.
    """

    body: dict
    seq: int = 0

    @property
    def model(self) -> str:
        """The requested model name."""
        return str(self.body.get("model", ""))

    @property
    def messages(self) -> list[dict]:
        """The ``messages`` list (dicts with ``role``, ``content``, maybe ``tool_calls``)."""
        return list(self.body.get("messages") or [])

    @property
    def system_text(self) -> str:
        """All ``system`` and ``developer`` message texts joined by blank lines."""
        return "\n\n".join(text_of(m) for m in self.messages if m.get("role") in ("system", "developer"))

    @property
    def last_user_text(self) -> str:
        """The text of the last ``user`` message, or ``""``."""
        for m in reversed(self.messages):
            if m.get("role") == "user":
                return text_of(m)
        return ""

    @property
    def tool_messages(self) -> list[dict]:
        """The ``tool`` role messages (tool results) in order."""
        return [m for m in self.messages if m.get("role") == "tool"]

    @property
    def tool_names(self) -> list[str]:
        """Names of the function tools offered in ``tools``."""
        return [t.get("function", {}).get("name", "") for t in self.body.get("tools") or []]

    @property
    def response_schema_name(self) -> str | None:
        """``response_format.json_schema.name`` when a JSON schema was requested, else None."""
        fmt = self.body.get("response_format") or {}
        if fmt.get("type") != "json_schema":
            return None
        return (fmt.get("json_schema") or {}).get("name")

    @property
    def response_schema(self) -> dict | None:
        """``response_format.json_schema.schema`` when a JSON schema was requested, else None."""
        fmt = self.body.get("response_format") or {}
        if fmt.get("type") != "json_schema":
            return None
        return (fmt.get("json_schema") or {}).get("schema")

    @property
    def stream(self) -> bool:
        """True when the client asked for server-sent events."""
        return bool(self.body.get("stream"))

    @property
    def include_usage(self) -> bool:
        """True when a streaming client asked for a final usage chunk."""
        return bool((self.body.get("stream_options") or {}).get("include_usage"))

    def prompt_tokens(self) -> int:
        """Estimated prompt tokens over every message's text and tool-call arguments."""
        total = 0
        for m in self.messages:
            total += estimate_tokens(text_of(m))
            for tc in m.get("tool_calls") or []:
                total += estimate_tokens(tc.get("function", {}).get("arguments", ""))
        return total


@dataclass(frozen=True)
class ToolCall:
    """A tool call the fake model makes: function ``name`` with ``args`` (a JSON object)."""

    name: str
    args: dict
    id: str | None = None


@dataclass(frozen=True)
class Reply:
    """What the fake model answers; build with the class-method helpers.

    Attributes:
        content: assistant text (for ``json``, the JSON string), or None.
        tool_calls: function calls to make.
        finish_reason: ``stop``, ``tool_calls`` or ``length``.
        status: HTTP status; not 200 means ``error_body`` is sent as ``{"error": ...}``.
        error_body: the OpenAI error object (``message``, ``type``, ``param``, ``code``).
        headers: extra response headers (e.g. ``retry-after-ms``).
        delay: extra seconds to sleep for this reply, on top of the server's latency.
        usage: overrides the estimated ``usage`` object when given.
        hang: the server stops answering from this request on (see :meth:`Reply.no_answer`).
    """

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str = "stop"
    status: int = 200
    error_body: dict | None = None
    headers: dict = field(default_factory=dict)
    delay: float = 0.0
    usage: dict | None = None
    hang: bool = False

    @classmethod
    def no_answer(cls) -> Reply:
        """The server goes silent: this request and every later one are read and never answered
        (the connection stays open) until ``FakeOpenAI.unstall()``; then this one gets the
        default answer, to a client that has usually left."""
        return cls(hang=True)

    @classmethod
    def text(cls, content: str, **kw: Any) -> Reply:
        """A plain assistant message."""
        return cls(content=content, **kw)

    @classmethod
    def tools(cls, calls: Iterable[ToolCall | tuple[str, dict] | dict], content: str | None = None,
              **kw: Any) -> Reply:
        """Tool calls, given as ``ToolCall``, ``(name, args)`` or ``{"name", "args"[, "id"]}``."""
        norm = []
        for c in calls:
            if isinstance(c, tuple):
                c = ToolCall(c[0], c[1])
            elif isinstance(c, dict):
                c = ToolCall(c["name"], c.get("args", {}), c.get("id"))
            norm.append(c)
        return cls(content=content, tool_calls=tuple(norm), finish_reason="tool_calls", **kw)

    @classmethod
    def json(cls, obj: Any, **kw: Any) -> Reply:
        """Structured output: ``obj`` (a dict, or a pydantic model) serialised as the content."""
        if hasattr(obj, "model_dump"):
            obj = obj.model_dump(mode="json")
        return cls(content=json.dumps(obj), **kw)

    @classmethod
    def truncated(cls, content: str, **kw: Any) -> Reply:
        """A reply cut off at the token limit (``finish_reason="length"``)."""
        return cls(content=content, finish_reason="length", **kw)

    @classmethod
    def error(cls, status: int, code: str | None, message: str, *, type: str | None = None,  # noqa: A002
              param: str | None = None, headers: dict | None = None) -> Reply:
        """An HTTP error with OpenAI's body ``{"error": {message, type, param, code}}``.

        ``type`` defaults from the status: 400 ``invalid_request_error``, 401
        ``authentication_error``, 429 ``rate_limit_exceeded`` (``requests``), 5xx ``server_error``.
        """
        default_type = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                        404: "invalid_request_error", 429: "requests"}.get(status, "server_error")
        err = {"message": message, "type": type or default_type, "param": param, "code": code}
        return cls(status=status, error_body=err, headers=dict(headers or {}))

    @classmethod
    def context_length_exceeded(cls, limit: int = 128000, asked: int = 200000) -> Reply:
        """OpenAI's 400 for a prompt over the context window."""
        msg = (f"This model's maximum context length is {limit} tokens. However, your messages resulted "
               f"in {asked} tokens. Please reduce the length of the messages.")
        return cls.error(400, "context_length_exceeded", msg, param="messages")


Handler = Callable[[ChatRequest], "Reply | str"]

#: llama-cpp-python's answer to ``response_format.type = "json_schema"`` (its request model
#: accepts only ``text`` and ``json_object``, the latter with an optional ``schema``).
LLAMA_CPP_JSON_SCHEMA_ERROR = "response_format.type: Input should be 'text' or 'json_object'"
TOOLS_REFUSED_ERROR = "tools is not supported by this server's chat format"
THOUGHT = "<think>Let me reason privately about this. SECRET-REASONING</think>\n"


@dataclass
class Quirks:
    """How the fake behaves like a real compatible server or a weak model, on top of the handler.

    Attributes:
        refuse_json_schema: a request with ``response_format.type = "json_schema"`` gets
            llama-cpp-python's 500 (:data:`LLAMA_CPP_JSON_SCHEMA_ERROR`).
        refuse_response_format: a request with any ``response_format`` gets a 400 naming it (a
            server with no structured output at all).
        refuse_tools: a request with ``tools`` gets a 400 (:data:`TOOLS_REFUSED_ERROR`), as a
            server whose chat format has no tool calls answers; the model then writes the
            handler's tool calls as an action block (see ``calls_as_text``).
        calls_as_text: tool calls the handler makes come back as a prompted action block in the
            text (``{"actions": [...]}``) instead of native calls; with ``refuse_tools`` always so
            for a request without ``tools`` (a model following the prompted protocol).
        no_tool_calls: tool calls the handler makes come back as prose only (a model that
            neither calls a tool nor writes an action block).
        broken_json: JSON text answers are sent malformed (closing brace dropped, a trailing comma).
        think: every text answer starts with a ``<think>`` block (:data:`THOUGHT`) and the message
            carries a ``reasoning_content`` field (DeepSeek-R1, Qwen3 served by vLLM).
        empty: requests for which this is true get empty content and no tool calls.
        truncate: requests for which this is true get half the content and ``finish_reason="length"``.
    """

    refuse_json_schema: bool = False
    refuse_response_format: bool = False
    refuse_tools: bool = False
    calls_as_text: bool = False
    no_tool_calls: bool = False
    broken_json: bool = False
    think: bool = False
    empty: Callable[[ChatRequest], bool] | None = None
    truncate: Callable[[ChatRequest], bool] | None = None

    def refusal(self, request: ChatRequest) -> Reply | None:
        """The error this server gives ``request`` before any model runs, or None."""
        fmt = request.body.get("response_format") or {}
        if self.refuse_json_schema and fmt.get("type") == "json_schema":
            return Reply.error(500, None, LLAMA_CPP_JSON_SCHEMA_ERROR, type="internal_server_error")
        if self.refuse_response_format and fmt:
            return Reply.error(400, None, "response_format is not supported by this server", param="response_format")
        if self.refuse_tools and request.body.get("tools"):
            return Reply.error(400, None, TOOLS_REFUSED_ERROR, param="tools")
        return None

    def apply(self, request: ChatRequest, reply: Reply) -> Reply:
        """``reply`` as this server and model would send it."""
        if reply.status != 200:
            return reply
        content, calls, finish = reply.content, reply.tool_calls, reply.finish_reason
        if calls and self.no_tool_calls:
            content, calls, finish = "I will look into this topic carefully.", (), "stop"
        elif calls and (self.calls_as_text or (self.refuse_tools and not request.body.get("tools"))):
            content = json.dumps({"actions": [{"tool": c.name, "args": c.args} for c in calls]})
            calls, finish = (), "stop"
        if self.broken_json and content and content.lstrip().startswith("{"):
            content = content.rstrip().rstrip("}") + ","
        if self.empty is not None and self.empty(request):
            content, calls, finish = "", (), "stop"
        elif self.truncate is not None and self.truncate(request):
            content, calls, finish = (content or "")[: len(content or "") // 2], (), "length"
        if self.think:
            content = THOUGHT + (content or "")
        return Reply(**{**reply.__dict__, "content": content, "tool_calls": calls, "finish_reason": finish})


def example_from_schema(schema: dict, root: dict | None = None) -> Any:
    """A minimal instance of a JSON schema (first enum value, "", 0, false, [], nested objects)."""
    root = root or schema
    if "$ref" in schema:
        node: Any = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        return example_from_schema(node, root)
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            options = [s for s in schema[key] if s.get("type") != "null"] or schema[key]
            return example_from_schema(options[0], root)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        return {k: example_from_schema(v, root) for k, v in (schema.get("properties") or {}).items()}
    return {"array": [], "string": "", "integer": 0, "number": 0, "boolean": False}.get(kind)


def default_handler(request: ChatRequest) -> Reply:
    """Schema requested: a minimal valid instance; otherwise a short text echoing the question."""
    if request.response_schema is not None:
        return Reply.json(example_from_schema(request.response_schema))
    return Reply.text(f"Fake answer to: {request.last_user_text[:200]}")


class FakeOpenAI(LoopbackServer):
    """A fake OpenAI Chat Completions API: ``POST /v1/chat/completions`` and ``GET /v1/models``.

    ``handler(request: ChatRequest) -> Reply | str`` scripts every completion (a ``str`` is a
    text reply); ``quirks`` (:class:`Quirks`, settable at any time) make it behave like a
    given kind of server and model. ``base_url`` is ``http://127.0.0.1:PORT/v1``. With ``api_key`` set, a request
    without ``Authorization: Bearer <api_key>`` gets OpenAI's 401 ``invalid_api_key``.
    """

    api_prefix = "/v1"

    def __init__(self, handler: Handler | None = None, *, latency: float = 0.0, api_key: str | None = None,
                 models: Iterable[str] = ("gpt-4.1-mini",), quirks: Quirks | None = None) -> None:
        """See the class docstring; ``models`` are listed by ``GET /v1/models``."""
        super().__init__(latency=latency, api_key=api_key)
        self.handler: Handler = handler or default_handler
        self.quirks = quirks or Quirks()
        self.models = list(models)
        self._seq = itertools.count(1)

    @property
    def chat_calls(self) -> list[CallRecord]:
        """Recorded ``/chat/completions`` calls only."""
        return [c for c in self.calls if c.path.endswith("/chat/completions")]

    def unauthorized(self) -> HTTPAnswer:
        """OpenAI's answer to a missing or wrong key (the key is never echoed)."""
        return HTTPAnswer(401, {"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error",
                                          "param": None, "code": "invalid_api_key"}})

    def route(self, method: str, path: str, body: Any, record: CallRecord) -> HTTPAnswer:
        """Dispatch to the models list or the chat completion handler; anything else is a 404."""
        if method == "GET" and path == "/v1/models":
            return HTTPAnswer(200, {"object": "list", "data": [
                {"id": m, "object": "model", "created": 1700000000, "owned_by": "fake"} for m in self.models]})
        if method == "POST" and path == "/v1/chat/completions" and isinstance(body, dict):
            return self._complete(body, record)
        return HTTPAnswer(404, {"error": {"message": f"Invalid URL ({method} {path})", "type": "invalid_request_error",
                                          "param": None, "code": None}})

    def _complete(self, body: dict, record: CallRecord) -> HTTPAnswer:
        request = ChatRequest(body, next(self._seq))
        record.request = request
        reply = self.quirks.refusal(request) or self.handler(request)
        if isinstance(reply, str):
            reply = Reply.text(reply)
        reply = self.quirks.apply(request, reply)
        if reply.hang:
            self.stall()
            self._answering.wait()
            reply = default_handler(request)
        record.reply = reply
        headers = {"x-request-id": f"req_fake_{request.seq}", **reply.headers}
        if reply.status != 200:
            return HTTPAnswer(reply.status, {"error": reply.error_body}, headers=headers)
        calls = [{"id": tc.id or f"call_{request.seq}_{i}", "type": "function",
                  "function": {"name": tc.name, "arguments": json.dumps(tc.args)}}
                 for i, tc in enumerate(reply.tool_calls)]
        completion = estimate_tokens(reply.content or "") if reply.content or not calls else 0
        completion += sum(estimate_tokens(c["function"]["arguments"]) for c in calls)
        prompt = request.prompt_tokens()
        usage = reply.usage or {
            "prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                          "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
        }
        head = {"id": f"chatcmpl-fake{request.seq}", "created": int(time.time()),
                "model": request.model or "fake-model", "system_fingerprint": "fp_fake", "service_tier": "default"}
        if request.stream:
            chunks = _sse_chunks(head, reply, calls, usage if request.include_usage else None)
            return HTTPAnswer(200, headers=headers, chunks=chunks)
        message: dict[str, Any] = {"role": "assistant", "content": reply.content, "refusal": None,
                                   "annotations": []}
        if self.quirks.think:
            message["reasoning_content"] = "SECRET-REASONING in a separate field."
        if calls:
            message["tool_calls"] = calls
        return HTTPAnswer(200, {**head, "object": "chat.completion", "choices": [
            {"index": 0, "message": message, "logprobs": None, "finish_reason": reply.finish_reason}],
            "usage": usage}, headers=headers)


def _sse_chunks(head: dict, reply: Reply, calls: list[dict], usage: dict | None) -> Iterator[bytes]:
    """The ``chat.completion.chunk`` events of one reply, ending with ``data: [DONE]``."""
    extra = {"usage": None} if usage is not None else {}

    def event(delta: dict, finish: str | None = None) -> bytes:
        chunk = {**head, "object": "chat.completion.chunk",
                 "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}], **extra}
        return f"data: {json.dumps(chunk)}\n\n".encode()

    yield event({"role": "assistant", "content": "" if not calls else None, "refusal": None})
    text = reply.content or ""
    for i in range(0, len(text), 16):
        yield event({"content": text[i:i + 16]})
    for i, c in enumerate(calls):
        yield event({"tool_calls": [{"index": i, "id": c["id"], "type": "function",
                                     "function": {"name": c["function"]["name"], "arguments": ""}}]})
        args = c["function"]["arguments"]
        for j in range(0, len(args), 32):
            yield event({"tool_calls": [{"index": i, "function": {"arguments": args[j:j + 32]}}]})
    yield event({}, reply.finish_reason)
    if usage is not None:
        final = {**head, "object": "chat.completion.chunk", "choices": [], "usage": usage}
        yield f"data: {json.dumps(final)}\n\n".encode()
    yield b"data: [DONE]\n\n"
