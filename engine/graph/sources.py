"""Page texts (summary, key excerpts) kept in LangGraph's store, out of the checkpointed state.

The state's source registry holds ``{id, url, title, topic}`` per source; the page's summary and
excerpts, written once when the page is found, go to the run's store namespace and are read back
by id (the review's ``read_source``). Every checkpoint would otherwise copy them again. A context
without a store (a graph run without one) keeps them in the record as before.
"""

from __future__ import annotations

import hashlib

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
    """Put each record's summary and excerpts in the store; the records without them.

    Without a store in ``ctx`` the records are returned as they are.
    """
    if ctx.store is None or not sources:
        return sources
    await ctx.store.abatch([PutOp(ctx.store_namespace, sid, {k: rec.get(k) for k in TEXT_FIELDS})
                            for sid, rec in sources.items()])
    return {sid: {k: v for k, v in rec.items() if k not in TEXT_FIELDS} for sid, rec in sources.items()}


async def read_texts(ctx: RunContext, sid: str, rec: dict) -> tuple[str, list[str]]:
    """``(summary, excerpts)`` of source ``sid``: from its record, else from the store (empty if neither has them)."""
    if "summary" in rec or ctx.store is None:
        return rec.get("summary", ""), list(rec.get("excerpts") or [])
    item = await ctx.store.aget(ctx.store_namespace, sid)
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
