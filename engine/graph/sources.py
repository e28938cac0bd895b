"""Page texts (summary, key excerpts) kept in LangGraph's store, out of the checkpointed state.

The state's source registry holds ``{id, url, title, topic, text_key}`` per source; the page's
summary and excerpts, written once when the page is found, go to the run's store namespace under
``text_key`` (the id and a digest of the texts, :func:`text_key`) and are read back by it (the
compressor, the review's ``read_source``). Every checkpoint would otherwise copy them again. A
context without a store (a graph run without one) keeps them in the record as before.
"""

from __future__ import annotations

import hashlib
import json

from langgraph.store.base import PutOp

from engine.graph.context import RunContext
from engine.settings import Settings

#: The store namespace's first label; the thread (hashed: labels may not hold ".") and run follow.
NAMESPACE = "source_texts"
TEXT_FIELDS = ("summary", "excerpts")


def namespace(thread_id: str, run_id: str) -> tuple[str, str, str]:
    """The store namespace of one run's page texts."""
    return NAMESPACE, thread_key(thread_id), run_id


def thread_key(thread_id: str) -> str:
    """The thread's label in store namespaces (SHA-256, hex, 32 characters)."""
    return hashlib.sha256(thread_id.encode("utf-8")).hexdigest()[:32]


async def keep_texts(ctx: RunContext, sources: dict) -> dict:
    """Put each record's summary and excerpts in the store; the records without them, each naming
    its texts' item (``text_key``, :func:`text_key`).

    Two researchers may find one page (one id) with different texts (a corpus search returns the
    passages that match each query): each item is keyed by the id and its texts, so neither
    overwrites the other, and what a researcher reads back does not depend on which one wrote
    last. Without a store in ``ctx`` the records are returned as they are.

    The items are written in the order of their keys, whatever the order of ``sources``: on
    PostgreSQL one batch is one ``INSERT ... ON CONFLICT DO UPDATE`` that locks its rows in that
    order, and two researchers keeping the same pages in opposite orders would each hold a row
    the other waits for (a deadlock, SQLSTATE 40P01; the PostgreSQL manual's "Explicit Locking:
    Deadlocks" gives one order for all as the remedy).
    """
    if ctx.store is None or not sources:
        return sources
    texts = {sid: {k: rec.get(k) for k in TEXT_FIELDS} for sid, rec in sources.items()}
    keys = {sid: text_key(sid, value) for sid, value in texts.items()}
    await ctx.store.abatch([PutOp(ctx.store_namespace, keys[sid], texts[sid]) for sid in sorted(keys, key=keys.get)])
    return {sid: {**{k: v for k, v in rec.items() if k not in TEXT_FIELDS}, "text_key": keys[sid]}
            for sid, rec in sources.items()}


def text_key(sid: str, texts: dict) -> str:
    """The store key of source ``sid``'s texts ``{"summary", "excerpts"}``: the id, ":" and the
    SHA-256 (hex, 16 characters) of the texts as canonical JSON."""
    digest = hashlib.sha256(json.dumps(texts, sort_keys=True, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    return f"{sid}:{digest.hexdigest()[:16]}"


async def read_texts(ctx: RunContext, sid: str, rec: dict) -> tuple[str, list[str]]:
    """``(summary, excerpts)`` of source ``sid``: from its record, else from the store item the record
    names (``text_key``; the id itself for a record kept before items were keyed by their texts),
    empty if neither has them."""
    if "summary" in rec or ctx.store is None:
        return rec.get("summary", ""), list(rec.get("excerpts") or [])
    item = await ctx.store.aget(ctx.store_namespace, rec.get("text_key") or sid)
    value = item.value if item is not None else {}
    return value.get("summary") or "", list(value.get("excerpts") or [])


async def delete_source_texts(settings: Settings, thread_id: str) -> int:
    """Delete every page text the thread's runs kept in the store; how many items went."""
    from engine.checkpoints import open_store

    prefix = (NAMESPACE, thread_key(thread_id))
    deleted = 0
    async with open_store(settings) as store:
        for ns in await store.alist_namespaces(prefix=prefix, limit=10_000):
            while items := await store.asearch(ns, limit=500):
                await store.abatch([PutOp(ns, item.key, None) for item in items])
                deleted += len(items)
    return deleted
