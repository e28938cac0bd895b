"""The checkpointer for these settings: SQLite under the data dir, or PostgreSQL with ``DATABASE_URL``."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import sqlite3
import zlib
from collections.abc import AsyncIterator
from pathlib import Path

import aiosqlite
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde.encrypted import EncryptedSerializer
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.store.base import BaseStore

from engine.database import SCHEMA_LOCK, database_url, explain, require_database
from engine.redact import quoted
from engine.settings import Settings

log = logging.getLogger(__name__)
BUSY_TIMEOUT_MS = 30_000
#: Connections one process keeps open to PostgreSQL per open checkpointer. The saver runs one
#: statement at a time (it holds a lock), so a second connection only covers a reconnect.
POOL_MAX = 2
#: LangGraph's Postgres checkpoint tables (``AsyncPostgresSaver.setup``) that grow with the threads,
#: and the product's own (``engine.database.MIGRATIONS``).
PG_TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes", "deepresearch_artifacts", "deepresearch_usage",
             "deepresearch_thread_files", "deepresearch_passages")

#: Serialized values shorter than this are stored as they are: zlib's header and checksum would
#: outweigh what it saves.
COMPRESS_MIN_BYTES = 128


class ZlibCodec:
    """Compress checkpoint blobs and pending writes with zlib (level 6), a LangGraph ``CipherProtocol``.

    LangGraph's ``EncryptedSerializer`` appends the codec's name to each value's type
    (``msgpack+zlib``, or ``msgpack+raw`` for values under :data:`COMPRESS_MIN_BYTES`), so rows
    written before compression (plain ``msgpack``) still load. A checkpoint holds the state's text
    (notes, source records, messages) and its channel versions; they shrink to about a quarter.
    """

    def encrypt(self, plaintext: bytes) -> tuple[str, bytes]:
        """``("zlib", compressed)``, or ``("raw", plaintext)`` when it is short."""
        if len(plaintext) < COMPRESS_MIN_BYTES:
            return "raw", plaintext
        return "zlib", zlib.compress(plaintext, 6)

    def decrypt(self, ciphername: str, ciphertext: bytes) -> bytes:
        """The bytes :meth:`encrypt` was given.

        Raises:
            ValueError: an unknown codec name; zlib.error: corrupt data.
        """
        if ciphername == "zlib":
            return zlib.decompress(ciphertext)
        if ciphername == "raw":
            return ciphertext
        raise ValueError(f"unknown checkpoint codec {ciphername!r}")


#: LangGraph's ``writes`` table (``AsyncSqliteSaver.setup``, the same columns and key) made
#: ``WITHOUT ROWID``: its rows live in the primary key's B-tree, so the key (thread, namespace,
#: checkpoint and task ids, about 180 bytes a row) is not stored a second time in an index. A
#: pending write is a few hundred bytes, the size SQLite recommends this layout for
#: (https://www.sqlite.org/withoutrowid.html, section 4). Files made before keep their table.
WRITES_TABLE = """
CREATE TABLE IF NOT EXISTS writes (
    thread_id TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL DEFAULT '',
    checkpoint_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    task_path TEXT NOT NULL DEFAULT '',
    idx INTEGER NOT NULL,
    channel TEXT NOT NULL,
    type TEXT,
    value BLOB,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
) WITHOUT ROWID;
"""


def checkpoint_serde() -> EncryptedSerializer:
    """The serializer of both checkpointers: LangGraph's msgpack serializer, compressed (:class:`ZlibCodec`)."""
    return EncryptedSerializer(ZlibCodec(), JsonPlusSerializer())


@contextlib.asynccontextmanager
async def open_checkpointer(settings: Settings) -> AsyncIterator[BaseCheckpointSaver]:
    """The checkpointer for ``settings``, its tables created; every caller uses this one.

    Without ``DATABASE_URL``: an ``AsyncSqliteSaver`` on ``settings.checkpoint_path``. With it:
    an ``AsyncPostgresSaver`` on a ``psycopg_pool.AsyncConnectionPool``, after the product's own
    tables (:func:`engine.database.require_database`) and LangGraph's (``setup()``) exist.

    Raises:
        engine.database.DatabaseError: PostgreSQL cannot be reached or used (one line).
    """
    if settings.database_url is None:
        async with _open_sqlite(settings) as saver:
            yield saver
    else:
        async with _open_postgres(settings) as saver:
            yield saver


@contextlib.asynccontextmanager
async def _open_sqlite(settings: Settings) -> AsyncIterator[AsyncSqliteSaver]:
    """The SQLite checkpointer at ``settings.checkpoint_path``, in WAL mode with a busy timeout.

    WAL lets readers and one writer work at once; the busy timeout makes concurrent writers
    (bot, several workers) wait instead of failing with "database is locked".
    """
    settings.checkpoint_path.parent.mkdir(parents=True, exist_ok=True)
    conn = await _connect(settings.checkpoint_path)
    try:
        await conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        await conn.execute("PRAGMA journal_mode=WAL")
        await conn.execute("PRAGMA synchronous=NORMAL")
        await conn.executescript(WRITES_TABLE)
        await conn.commit()
        saver = AsyncSqliteSaver(conn, serde=checkpoint_serde())
        await saver.setup()
        yield saver
    finally:
        # shielded: a second cancel must not leave the connection (and the file's write lock) open
        await asyncio.shield(_release(conn))


async def _connect(path: Path, **options) -> aiosqlite.Connection:
    """``aiosqlite.connect(path)`` with the busy timeout, that a cancel (Ctrl-C) cannot cut in two.

    aiosqlite opens the file on a thread of its own; a cancel while it does leaves that thread to
    report to an event loop that ``asyncio.run`` may have closed by then ("RuntimeError: Event loop
    is closed" in ``_connection_worker_thread``). So the connect runs to its end, shielded, and the
    connection is closed before the cancel goes on.

    Raises:
        sqlite3.Error, OSError: the file cannot be opened.
    """
    opening = asyncio.ensure_future(_open(path, **options))
    try:
        return await asyncio.shield(opening)
    except asyncio.CancelledError:
        await asyncio.wait({opening})
        if not opening.cancelled() and opening.exception() is None:
            await asyncio.shield(opening.result().close())
        raise


async def _open(path: Path, **options) -> aiosqlite.Connection:
    return await aiosqlite.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, **options)


async def _release(conn: aiosqlite.Connection) -> None:
    """Make ``conn`` read-only, roll back whatever a cancel cut off, then close it.

    Both are queued on aiosqlite's connection thread behind any statement a cancelled task had
    already queued, so a write that started before is undone (checking ``in_transaction`` first
    would miss it). A write that a cancelled stream leaves behind and that only reaches the thread
    after this began (LangGraph's background checkpoint writes) fails on ``query_only`` instead of
    opening a transaction: SQLite keeps a closed connection alive while any cursor of it is
    (``sqlite3_close_v2``), so that transaction would hold the file's write lock, and every other
    writer would get "database is locked", for as long as the cancelled task's cursor lives.
    """
    try:
        for step in (functools.partial(conn.execute, "PRAGMA query_only = ON"), conn.rollback):
            try:
                await step()
            except sqlite3.Error as err:
                log.warning("event=checkpoint_release_step_failed error=%s", quoted(err))
    finally:
        await conn.close()


_pg_ready: set[str] = set()


@contextlib.asynccontextmanager
async def _open_postgres(settings: Settings) -> AsyncIterator[BaseCheckpointSaver]:
    """``AsyncPostgresSaver`` on a small pool of autocommit connections (as LangGraph requires).

    A cancelled turn leaves nothing half-written, as with SQLite: psycopg cancels a statement
    in flight on the server when its task is cancelled, and the pool rolls back (or, while a
    statement still runs, closes) every connection handed back inside a transaction. The pool is
    closed shielded from a second cancel. Connections are checked before each use, so a server
    restart between two statements costs a reconnect, not the turn.
    """
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

    url = database_url(settings)
    if url not in _pg_ready:  # one check per process gives the real error, not a pool timeout
        await asyncio.to_thread(require_database, settings)
    pool = _new_pool(url, "checkpoints")
    try:
        saver = AsyncPostgresSaver(pool, serde=checkpoint_serde())
        await _open_and_set_up(pool, url, saver.setup, _pg_ready)
        yield saver
    finally:
        await asyncio.shield(pool.close())


def _new_pool(url: str, name: str):
    """A closed ``psycopg_pool.AsyncConnectionPool`` named ``name`` of 1 to :data:`POOL_MAX`
    autocommit connections with dict rows and no prepared statements (as LangGraph's Postgres
    classes require), each checked (``check_connection``) when it is taken, so one the server
    dropped is replaced instead of failing the statement."""
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool

    return AsyncConnectionPool(
        url, min_size=1, max_size=POOL_MAX, open=False, check=AsyncConnectionPool.check_connection,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}, name=name,
    )


async def _open_and_set_up(pool, url: str, setup, ready: set[str]) -> None:
    """Open ``pool`` (waiting 30 s at most for its first connection) and, once per process and
    ``url`` (recorded in ``ready``), run ``setup()`` holding the schema advisory lock
    (:data:`engine.database.SCHEMA_LOCK`) on a connection of its own, one process at a time.

    Raises:
        engine.database.DatabaseUnavailable: PostgreSQL cannot be reached right now (a pool
            timeout: it went away after the start-up check).
        engine.database.DatabaseError: PostgreSQL refuses the login or the setup (one line).
    """
    import psycopg
    from psycopg_pool import PoolTimeout

    try:
        await pool.open(wait=True, timeout=30)
        if url not in ready:
            async with pool.connection() as conn:
                await conn.execute("SELECT pg_advisory_lock(%s)", (SCHEMA_LOCK,))
                try:
                    await setup()
                finally:
                    await conn.execute("SELECT pg_advisory_unlock(%s)", (SCHEMA_LOCK,))
            ready.add(url)
    except (psycopg.Error, PoolTimeout) as err:
        raise explain(err, url) from None


async def checkpoint_thread_ids(saver: BaseCheckpointSaver) -> list[str]:
    """Every thread id that has a checkpoint in ``saver`` (either store)."""
    if isinstance(saver, AsyncSqliteSaver):
        async with saver.conn.execute("SELECT DISTINCT thread_id FROM checkpoints") as cur:
            return [row[0] for row in await cur.fetchall()]
    async with saver.conn.connection() as conn:
        cur = await conn.execute("SELECT DISTINCT thread_id FROM checkpoints")
        return [row["thread_id"] for row in await cur.fetchall()]


async def compact(saver: BaseCheckpointSaver) -> None:
    """Return the space of deleted checkpoints: ``VACUUM`` (SQLite: into the file; PostgreSQL:
    for reuse, the files shrinking only by their empty tail)."""
    if isinstance(saver, AsyncSqliteSaver):
        await saver.conn.commit()
        for statement in ("VACUUM", "PRAGMA wal_checkpoint(TRUNCATE)"):
            async with saver.conn.execute(statement) as cur:
                await cur.fetchall()
        return
    async with saver.conn.connection() as conn:  # autocommit: VACUUM cannot run in a transaction
        for table in PG_TABLES:
            await conn.execute(f"VACUUM {table}")


async def stored_bytes(settings: Settings, saver: BaseCheckpointSaver) -> int:
    """Bytes the threads take: the SQLite checkpoint file, or the Postgres tables :data:`PG_TABLES`
    (``pg_total_relation_size``: heap, TOAST and indexes)."""
    if isinstance(saver, AsyncSqliteSaver):
        path = settings.checkpoint_path
        return path.stat().st_size if path.exists() else 0
    async with saver.conn.connection() as conn:
        cur = await conn.execute(
            "SELECT coalesce(sum(pg_total_relation_size(to_regclass(t))), 0) AS n FROM unnest(%s::text[]) AS t",
            (list(PG_TABLES),))
        return int((await cur.fetchone())["n"])


@contextlib.asynccontextmanager
async def open_store(settings: Settings) -> AsyncIterator[BaseStore]:
    """LangGraph's key-value store beside the checkpoints, its tables created.

    Holds large write-once data of a run (the pages' summaries, :mod:`engine.graph.sources`) that
    would otherwise be copied into every checkpoint. Without ``DATABASE_URL``: an
    ``AsyncSqliteStore`` in the checkpoint file (its own connection, WAL and busy timeout as the
    checkpointer's). With it: an ``AsyncPostgresStore`` in the same database, so a run resumed on
    another host reads what this one wrote.

    Raises:
        engine.database.DatabaseError: PostgreSQL cannot be reached or used (one line).
    """
    if settings.database_url is None:
        from langgraph.store.sqlite.aio import AsyncSqliteStore

        settings.checkpoint_path.parent.mkdir(parents=True, exist_ok=True)
        conn = await _connect(settings.checkpoint_path, isolation_level=None)
        try:
            await conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            await conn.execute("PRAGMA journal_mode=WAL")
            store = AsyncSqliteStore(conn)
            async with _file_lock(settings.checkpoint_path.with_name("store-setup.lock")):
                await store.setup()
            try:
                yield store
            finally:
                await _stop_batching(store)
        finally:
            await asyncio.shield(conn.close())
        return
    async with _open_postgres_store(settings) as store:
        yield store


_pg_store_ready: set[str] = set()


@contextlib.asynccontextmanager
async def _file_lock(path) -> AsyncIterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created if missing) across processes of this host.

    ``AsyncSqliteStore.setup`` reads its schema version and then applies the migrations after it
    in separate statements (``executescript`` commits on its own), so two processes setting up
    the same fresh file at once would both apply migration 0 and one would fail on
    ``store_migrations``'s primary key; they take turns instead.
    """
    import fcntl

    fh = await asyncio.to_thread(open, path, "a")
    try:
        await asyncio.to_thread(fcntl.flock, fh, fcntl.LOCK_EX)
        yield
    finally:
        fh.close()  # closing the file releases the lock


async def _stop_batching(store: BaseStore) -> None:
    """Stop the task that batches the store's operations (LangGraph's ``AsyncBatchedBaseStore``
    leaves it running until the store is garbage-collected)."""
    task = getattr(store, "_task", None)
    if task is not None and not task.done():
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@contextlib.asynccontextmanager
async def _open_postgres_store(settings: Settings) -> AsyncIterator[BaseStore]:
    """``AsyncPostgresStore`` on a small pool of autocommit connections, checked on checkout.

    The pool is the checkpointer's kind (:func:`_open_postgres`): a connection the server dropped
    (a restart, ``pg_terminate_backend``, a network cut) is found by the check when it is next
    taken and replaced, so the store works again as soon as PostgreSQL answers; a single
    connection would stay closed for the rest of the run. Only opening the pool and the first
    ``setup()`` are turned into one-line errors: whatever the research raises inside the block
    passes through unchanged (a lost connection there stays psycopg's ``OperationalError``, a
    pool timeout ``PoolTimeout``, both retried by :func:`jobs.errors.is_transient`).

    Raises:
        engine.database.DatabaseUnavailable: PostgreSQL cannot be reached right now (on opening).
        engine.database.DatabaseError: PostgreSQL refuses the login or the setup (on opening).
    """
    from langgraph.store.postgres.aio import AsyncPostgresStore

    url = database_url(settings)
    pool = _new_pool(url, "store")
    try:
        store = AsyncPostgresStore(pool)
        await _open_and_set_up(pool, url, store.setup, _pg_store_ready)
        try:
            yield store
        finally:
            await _stop_batching(store)
    finally:
        await asyncio.shield(pool.close())


@contextlib.asynccontextmanager
async def read_checkpointer(settings: Settings) -> AsyncIterator[BaseCheckpointSaver | None]:
    """The checkpointer for ``settings``, opened to read only: what a status reads, changing nothing.

    Without ``DATABASE_URL``: an ``AsyncSqliteSaver`` on ``settings.checkpoint_path`` opened read-only
    (``mode=ro``, ``query_only``) without LangGraph's ``setup()`` (its ``PRAGMA journal_mode`` and
    ``CREATE TABLE`` statements are writes), or None when that file does not exist (no folder or file
    is made). SQLite itself may make the empty ``-wal`` and ``-shm`` files a reader of a WAL database
    maps beside it; they hold no data. With it: :func:`open_checkpointer` (its tables exist once any research ran; making
    them again is a no-op).

    Raises:
        sqlite3.Error, OSError: the file cannot be read; engine.database.DatabaseError: PostgreSQL
        cannot be reached or used (one line).
    """
    if settings.database_url is not None:
        async with open_checkpointer(settings) as saver:
            yield saver
        return
    path = settings.checkpoint_path
    if not path.exists():
        yield None
        return
    conn = await _connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)  # type: ignore[arg-type]
    try:
        await conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        await conn.execute("PRAGMA query_only = ON")
        saver = AsyncSqliteSaver(conn, serde=checkpoint_serde())
        saver.is_setup = True  # the tables are there (a run made them): setup() would write
        yield saver
    finally:
        await asyncio.shield(conn.close())
