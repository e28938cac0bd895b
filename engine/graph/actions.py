"""Tool calls that adapt to the server: native ``tools``, or a prompted JSON action block parsed in code.

The prompted protocol (used when ``DEEPRESEARCH_TOOL_CALLS=prompt``, or with ``auto`` once the
server has refused ``tools``): the tools are described at the end of the system prompt and the
model answers with one JSON object and nothing else::

    {"actions": [{"tool": "search", "args": {"queries": ["heat pump efficiency"]}}]}

``{"actions": []}`` means no tool. A single ``{"tool": ..., "args": ...}`` object, a list of
them, or the ``{"name": ..., "arguments": ...}`` form are read too, and malformed JSON is
repaired. A model that answers a native request with such a block in its text, instead of a tool
call, is read the same way. Earlier calls and their results are sent back as the model's JSON
and as user text, so a server without tool support never sees a tool message.
"""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from engine.compat import (
    SUPPORT,
    loads_lenient,
    refused_feature,
    refused_setting,
    role_of,
    server_key,
    strip_reasoning,
)
from engine.settings import Settings

log = logging.getLogger(__name__)

PROTOCOL = """<Tools>
You call tools by answering with one JSON object and nothing else (no prose, no code fence):
{{"actions": [{{"tool": "<tool name>", "args": {{<arguments>}}}}]}}
Several actions may go in the list. Answer {{"actions": []}} to call no tool.
The tools and their arguments (JSON schema):
{tools}
</Tools>"""


def _spec(tool: Any) -> dict:
    return convert_to_openai_tool(tool)["function"]


def protocol_text(tools: list) -> str:
    """The prompted protocol's description of ``tools`` (name, description, argument schema)."""
    lines = []
    for t in tools:
        spec = _spec(t)
        params = json.dumps((spec.get("parameters") or {}).get("properties") or {}, ensure_ascii=False)
        lines.append(f"- {spec['name']}: {spec.get('description', '').strip()} Arguments: {params}")
    return PROTOCOL.format(tools="\n".join(lines))


def parse_actions(text: str, tools: list) -> list[dict]:
    """The tool calls of an action block in ``text`` (LangChain's ``{"name", "args", "id", "type"}``
    form), only for tools in ``tools``; ``[]`` when the text holds none."""
    names = {_spec(t)["name"] for t in tools}
    value = loads_lenient(text)
    if isinstance(value, dict):
        value = value.get("actions", value.get("tool_calls", [value]))
    if not isinstance(value, list):
        return []
    calls = []
    for item in value:
        if not isinstance(item, dict):
            continue
        fn = item.get("function") if isinstance(item.get("function"), dict) else item
        name = fn.get("tool") or fn.get("name")
        args = fn.get("args", fn.get("arguments", fn.get("parameters", {})))
        if isinstance(args, str):
            args = loads_lenient(args) or {}
        if name in names and isinstance(args, dict):
            calls.append({"name": name, "args": args, "id": f"call_{uuid.uuid4().hex[:12]}", "type": "tool_call"})
    return calls


def prompted_messages(messages: list[BaseMessage], tools: list) -> list[BaseMessage]:
    """``messages`` for a server without tool calls: the protocol for ``tools`` added to the
    system message (none when ``tools`` is empty), earlier calls as the model's JSON, tool
    results as user text, consecutive user texts merged (some chat templates require
    alternating roles)."""
    out: list[BaseMessage] = []
    protocol = protocol_text(tools) if tools else ""
    for m in messages:
        if isinstance(m, SystemMessage) and protocol:
            m = SystemMessage(f"{m.text}\n\n{protocol}")
        elif isinstance(m, AIMessage) and m.tool_calls:
            m = AIMessage(json.dumps({"actions": [{"tool": c["name"], "args": c["args"]} for c in m.tool_calls]},
                                     ensure_ascii=False))
        elif isinstance(m, ToolMessage):
            m = HumanMessage(f"Result of {m.name or 'the tool'}:\n{m.text}")
        if out and isinstance(m, HumanMessage) and isinstance(out[-1], HumanMessage):
            out[-1] = HumanMessage(f"{out[-1].text}\n\n{m.text}")
        else:
            out.append(m)
    if protocol and not any(isinstance(m, SystemMessage) for m in out):
        out.insert(0, SystemMessage(protocol))
    return out


async def call_with_tools(model: BaseChatModel, tools: list, messages: list[BaseMessage],
                          settings: Settings) -> AIMessage:
    """The model's next step with ``tools``: an ``AIMessage`` whose ``tool_calls`` are native or
    read from a prompted action block (see the module docstring); no reasoning in its text.

    ``DEEPRESEARCH_TOOL_CALLS``: ``native`` only, ``prompt`` only, or ``auto`` (native until the
    server refuses ``tools``, then prompted for the rest of the process; logged once per role).
    Raises whatever the model call raises, except a refusal of ``tools`` under ``auto``.
    """
    key, role = server_key(model), role_of(model)
    offline = settings.llm_backend == "offline"
    if offline or SUPPORT.native_tools(key, settings.tool_calls):
        try:
            response = await model.bind_tools(tools).ainvoke(messages)
        except Exception as err:
            if offline or not refused_feature(err, "tools"):
                raise
            if settings.tool_calls != "auto":
                raise refused_setting(err, "DEEPRESEARCH_TOOL_CALLS", settings.tool_calls) from err
            SUPPORT.refuse_tools(key, err)
        else:
            SUPPORT.note(role, "tool_calls", "native")
            if response.tool_calls or offline:
                return response
            return _with_calls(response, parse_actions(response.text, tools))
    SUPPORT.note(role, "tool_calls", "prompted")
    response = await model.ainvoke(prompted_messages(messages, tools))
    return _with_calls(response, list(response.tool_calls) or parse_actions(response.text, tools))


def _with_calls(response: AIMessage, calls: list[dict]) -> AIMessage:
    text = strip_reasoning(response.text)
    return AIMessage(content="" if calls else text, tool_calls=calls, id=response.id,
                     response_metadata=response.response_metadata, usage_metadata=response.usage_metadata)
