"""The fake OpenAI server driven by the real `openai` SDK and by `langchain_openai.ChatOpenAI`."""

from __future__ import annotations

import asyncio
import json

import openai
import pytest
from langchain_core.exceptions import ContextOverflowError
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, Field

from tests.fakes.openai_server import ChatRequest, FakeOpenAI, Reply, estimate_tokens

KEY = "test-key"


class Answer(BaseModel):
    """A structured answer used as a response schema."""

    title: str
    points: list[str] = Field(description="key points")


class WebSearch(BaseModel):
    """Search the web."""

    query: str


def chat(srv: FakeOpenAI, **kw) -> ChatOpenAI:
    return ChatOpenAI(model="gpt-4.1-mini", base_url=srv.base_url, api_key=KEY, use_responses_api=False,
                      max_retries=0, **kw)


def test_sdk_non_streaming_round_trip_and_auth_recorded():
    with FakeOpenAI(lambda r: Reply.text(f"echo {r.last_user_text}"), api_key=KEY) as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key=KEY, max_retries=0)
        res = client.chat.completions.create(
            model="m1", messages=[{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello"}])
        assert res.choices[0].message.content == "echo hello"
        assert res.choices[0].finish_reason == "stop"
        assert res.object == "chat.completion" and res.model == "m1" and res.id
        prompt = estimate_tokens("be brief") + estimate_tokens("hello")
        assert res.usage.prompt_tokens == prompt
        assert res.usage.total_tokens == prompt + res.usage.completion_tokens
        call = srv.calls[0]
        assert call.authorization == f"Bearer {KEY}"
        assert KEY not in repr(call)
        assert call.request.system_text == "be brief"
        assert call.end >= call.start and call.status == 200
        assert [m.id for m in client.models.list()] == srv.models


def test_sdk_wrong_key_is_authentication_error():
    with FakeOpenAI(api_key=KEY) as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key="other", max_retries=0)
        with pytest.raises(openai.AuthenticationError) as info:
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
        assert info.value.code == "invalid_api_key"
        assert "other" not in str(info.value)


def test_sdk_streaming_text_tool_calls_and_usage():
    replies = iter([Reply.text("a fairly long streamed answer, split into chunks"),
                    Reply.tools([("lookup", {"q": "x" * 70})])])
    with FakeOpenAI(lambda r: next(replies)) as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key=KEY, max_retries=0)
        chunks = list(client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "go"}], stream=True,
            stream_options={"include_usage": True}))
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        assert text == "a fairly long streamed answer, split into chunks"
        assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == estimate_tokens(text)
        assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"

        with client.chat.completions.stream(model="m", messages=[{"role": "user", "content": "go"}]) as stream:
            final = stream.get_final_completion()
        call = final.choices[0].message.tool_calls[0]
        assert call.function.name == "lookup" and json.loads(call.function.arguments) == {"q": "x" * 70}
        assert final.choices[0].finish_reason == "tool_calls"


def test_chat_openai_invoke_fills_usage_metadata():
    with FakeOpenAI(lambda r: "plain answer", api_key=KEY) as srv:
        msg = chat(srv).invoke([HumanMessage("what is up?")])
        assert msg.content == "plain answer"
        assert msg.usage_metadata["input_tokens"] == estimate_tokens("what is up?")
        assert msg.usage_metadata["output_tokens"] == estimate_tokens("plain answer")
        assert msg.response_metadata["finish_reason"] == "stop"
        assert srv.calls[0].body["stream"] is False


def test_chat_openai_bind_tools_round_trip():
    def handler(req: ChatRequest) -> Reply:
        if not req.tool_messages:
            assert req.tool_names == ["WebSearch"]
            return Reply.tools([("WebSearch", {"query": "fake servers"})])
        return Reply.text(f"found: {req.tool_messages[-1]['content']}")

    with FakeOpenAI(handler) as srv:
        llm = chat(srv).bind_tools([WebSearch])
        first = llm.invoke("search please")
        (tc,) = first.tool_calls
        assert tc["name"] == "WebSearch" and tc["args"] == {"query": "fake servers"} and tc["id"]
        assert first.response_metadata["finish_reason"] == "tool_calls"
        second = llm.invoke([HumanMessage("search please"), first, ToolMessage("3 pages", tool_call_id=tc["id"])])
        assert second.content == "found: 3 pages"
        sent = srv.calls[1].body["messages"]
        assert sent[1]["tool_calls"][0]["id"] == tc["id"] and sent[2]["role"] == "tool"


def test_chat_openai_streaming_tool_calls_and_usage():
    with FakeOpenAI(lambda r: Reply.tools([("WebSearch", {"query": "q" * 50})])) as srv:
        llm = chat(srv, stream_usage=True).bind_tools([WebSearch])
        total = None
        for chunk in llm.stream("go"):
            total = chunk if total is None else total + chunk
        assert total.tool_calls[0]["args"] == {"query": "q" * 50}
        assert total.usage_metadata["input_tokens"] == estimate_tokens("go")
        assert srv.calls[0].body["stream_options"] == {"include_usage": True}


def test_chat_openai_structured_output_json_schema():
    def handler(req: ChatRequest) -> Reply:
        assert req.response_schema_name == "Answer"
        return Reply.json({"title": "T", "points": ["a", "b"]})

    with FakeOpenAI(handler) as srv:
        out = chat(srv).with_structured_output(Answer).invoke("summarise")
        assert out == Answer(title="T", points=["a", "b"])
        fmt = srv.calls[0].body["response_format"]
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
        assert fmt["json_schema"]["schema"]["additionalProperties"] is False
        assert "stream" in srv.calls[0].body and srv.calls[0].body["stream"] is False


def test_default_handler_satisfies_any_schema():
    with FakeOpenAI() as srv:
        out = chat(srv).with_structured_output(Answer).invoke("x")
        assert out == Answer(title="", points=[])


def test_structured_output_truncated_raises_length_error():
    with FakeOpenAI(lambda r: Reply.truncated('{"title": "cut')) as srv:
        with pytest.raises(openai.LengthFinishReasonError):
            chat(srv).with_structured_output(Answer).invoke("x")
        msg = chat(srv).invoke("x")
        assert msg.response_metadata["finish_reason"] == "length"


def test_context_length_error_is_bad_request():
    with FakeOpenAI(lambda r: Reply.context_length_exceeded()) as srv:
        with pytest.raises(openai.BadRequestError) as info:
            chat(srv).invoke("a very long prompt")
        assert info.value.code == "context_length_exceeded"
        assert info.value.body["code"] == "context_length_exceeded"
        assert "maximum context length" in info.value.message
        assert len(srv.calls) == 1


def test_context_overflow_classification_by_langchain():
    """langchain-openai looks for ``context_length_exceeded`` in ``str(error)``, which openai 3.x
    no longer includes (only the message is); OpenAI's newer wording is still recognised."""
    newer = Reply.error(400, "context_length_exceeded",
                        "Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in "
                        "300000 tokens. Please reduce the length of the messages.", param="messages")
    with FakeOpenAI(lambda r: newer) as srv:
        with pytest.raises(ContextOverflowError) as info:
            chat(srv).invoke("x")
        assert isinstance(info.value, openai.BadRequestError)


def test_transient_errors_are_retried_by_the_sdk():
    replies = iter([Reply.error(503, None, "overloaded", headers={"retry-after-ms": "10"}),
                    Reply.error(429, "rate_limit_exceeded", "slow down", headers={"retry-after-ms": "10"}),
                    Reply.text("finally")])
    with FakeOpenAI(lambda r: next(replies)) as srv:
        llm = ChatOpenAI(model="m", base_url=srv.base_url, api_key=KEY, use_responses_api=False, max_retries=2)
        assert llm.invoke("x").content == "finally"
        assert [c.status for c in srv.calls] == [503, 429, 200]


def test_rate_limit_without_retries_is_rate_limit_error():
    with FakeOpenAI(lambda r: Reply.error(429, "rate_limit_exceeded", "slow down")) as srv:
        with pytest.raises(openai.RateLimitError):
            chat(srv).invoke("x")


def test_handler_exception_is_a_500_not_retried():
    def broken(req: ChatRequest) -> Reply:
        raise KeyError("oops")

    with FakeOpenAI(broken) as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key=KEY, max_retries=2)
        with pytest.raises(openai.InternalServerError):
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
        assert len(srv.calls) == 1 and "KeyError" in srv.calls[0].error


async def test_parallel_requests_overlap_and_latency_is_live():
    with FakeOpenAI(latency=0.3) as srv:
        llm = chat(srv)
        msgs = await asyncio.gather(*(llm.ainvoke(f"q{i}") for i in range(8)))
        assert [m.content for m in msgs] == [f"Fake answer to: q{i}" for i in range(8)]
        latest_start = max(c.start for c in srv.calls)
        assert all(c.end > latest_start for c in srv.calls)  # every call was in flight at once
        assert all(c.end - c.start >= 0.3 for c in srv.calls)
        srv.latency = 0.0
        await llm.ainvoke("quick")
        assert srv.calls[-1].end - srv.calls[-1].start < 0.3  # the new latency applies at once


def test_quirks_play_a_llama_cpp_server_and_a_reasoning_model():
    from tests.fakes.openai_server import LLAMA_CPP_JSON_SCHEMA_ERROR, THOUGHT, Quirks

    quirks = Quirks(refuse_json_schema=True, refuse_tools=True, think=True, broken_json=True)
    with FakeOpenAI(lambda r: Reply.json({"title": "t", "points": []}), api_key=KEY, quirks=quirks) as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key=KEY, max_retries=0)
        msgs = [{"role": "user", "content": "x"}]
        schema = {"type": "json_schema", "json_schema": {"name": "Answer", "schema": Answer.model_json_schema()}}
        with pytest.raises(openai.InternalServerError) as info:
            client.chat.completions.create(model="m", messages=msgs, response_format=schema)
        assert LLAMA_CPP_JSON_SCHEMA_ERROR in str(info.value)
        with pytest.raises(openai.BadRequestError):
            client.chat.completions.create(model="m", messages=msgs, tools=[
                {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}])
        res = client.chat.completions.create(model="m", messages=msgs, response_format={"type": "json_object"})
        content = res.choices[0].message.content
        assert content.startswith(THOUGHT) and content.endswith(",")  # reasoning first, then broken JSON
        assert res.choices[0].message.model_extra["reasoning_content"]
