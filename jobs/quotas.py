"""Quotas: how many researches a person (and a workspace or tenant) may run at once, start per
rolling day, and how many model tokens they may spend per rolling day.

A turn that starts or resumes a research takes a *slot* (its turn id) in its requester's and its
workspace's running sets before it is queued, in one atomic step (a Lua script on Redis, one
``BEGIN IMMEDIATE`` transaction in SQLite); the slot is given back when the turn ends, fails or is
cancelled (:func:`release`, called by :func:`jobs.records.finish`). A slot also carries an expiry
(:func:`hold_seconds`: the job timeout plus the time a turn may wait in the queue), so a process
that dies without releasing cannot hold it for ever. Starts are counted per rolling 24 hours, and
so are the tokens a turn spent (:func:`add_tokens`, when the turn ends).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from engine.phrases import plural
from engine.settings import Settings
from jobs.phrases import WORDS, number
from jobs.quota_restore import restore_if_lost
from jobs.store import RedisStore, SqliteStore, Store

log = logging.getLogger(__name__)

#: Seconds of the rolling window for starts and tokens.
DAY = 24 * 3600
#: Extra seconds a slot is held beyond the job timeout: the turn may wait in the queue first
#: (RQ retries a failed attempt up to 3 times; :data:`jobs.queue.RETRY_INTERVALS`).
QUEUE_ALLOWANCE = 3600

_KINDS = ("run", "day", "tok")

# KEYS: run:user run:scope day:user day:scope tok:user tok:scope (sorted sets)
# ARGV: now hold turn start(0|1) then the six limits in KEYS' order (0: none)
_LUA = """
local now, hold, turn, start = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4] == '1'
local day = 86400
for i = 1, 2 do redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now) end
for i = 3, 6 do redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - day) end
if redis.call('ZSCORE', KEYS[1], turn) then return {'ok', '0'} end
for i = 1, 2 do
  local limit = tonumber(ARGV[4 + i])
  if limit > 0 and redis.call('ZCARD', KEYS[i]) >= limit then return {'running:' .. i, '0'} end
end
if start then
  for i = 3, 4 do
    local limit = tonumber(ARGV[4 + i])
    if limit > 0 and redis.call('ZCARD', KEYS[i]) >= limit then
      local nth = redis.call('ZRANGE', KEYS[i], -limit, -limit, 'WITHSCORES')
      return {'daily:' .. (i - 2), tostring(tonumber(nth[2]) + day)}
    end
  end
end
for i = 5, 6 do
  local limit = tonumber(ARGV[4 + i])
  if limit > 0 then
    local items = redis.call('ZRANGE', KEYS[i], 0, -1, 'WITHSCORES')
    local total = 0
    for j = 1, #items, 2 do total = total + tonumber(string.match(items[j], '|(%d+)$') or '0') end
    if total >= limit then
      for j = 1, #items, 2 do
        total = total - tonumber(string.match(items[j], '|(%d+)$') or '0')
        if total < limit then return {'tokens:' .. (i - 4), tostring(tonumber(items[j + 1]) + day)} end
      end
    end
  end
end
for i = 1, 2 do redis.call('ZADD', KEYS[i], now + hold, turn); redis.call('EXPIRE', KEYS[i], hold + day) end
if start then
  for i = 3, 4 do redis.call('ZADD', KEYS[i], now, turn); redis.call('EXPIRE', KEYS[i], day * 2) end
end
return {'ok', '1'}
"""

@dataclass(frozen=True)
class Limits:
    """The six limits (0: none): running at once, starts per day and tokens per day, each for a
    user and for a workspace/tenant. Read from the ``DEEPRESEARCH_MAX_*`` settings."""

    running_user: int = 0
    running_scope: int = 0
    daily_user: int = 0
    daily_scope: int = 0
    tokens_user: int = 0
    tokens_scope: int = 0

    @classmethod
    def from_settings(cls, settings: Settings) -> Limits:
        """The limits these settings give."""
        return cls(settings.max_running_per_user, settings.max_running_per_workspace,
                   settings.max_researches_per_user_per_day, settings.max_researches_per_workspace_per_day,
                   settings.max_tokens_per_user_per_day, settings.max_tokens_per_workspace_per_day)

    def values(self) -> tuple[int, ...]:
        """The limits in the order of the quota keys (run, day, tok; user then scope)."""
        return (self.running_user, self.running_scope, self.daily_user, self.daily_scope,
                self.tokens_user, self.tokens_scope)


@dataclass(frozen=True)
class Verdict:
    """What :func:`acquire` decided.

    Attributes:
        allowed: the turn may be queued (it holds a slot, or it needs none).
        limit: when refused, which limit: ``running``, ``daily`` or ``tokens``.
        who: ``user`` or ``workspace``, whose limit it is.
        retry_at: Unix time (seconds) from which a new start fits the limit; None for ``running``
            (a slot frees when one of the researches ends).
        maximum: the limit's value.
        taken: True when this call took the slot (False: no slot needed, or the turn held it already).
    """

    allowed: bool
    limit: str | None = None
    who: str | None = None
    retry_at: float | None = None
    maximum: int = 0
    taken: bool = False


def scope_of(thread_id: str) -> str:
    """The workspace or tenant of a thread: ``slack:{team}``, ``teams:{tenant}``, else the
    surface's name (``console``, ``webhook``)."""
    parts = thread_id.split(":")
    return ":".join(parts[:2]) if parts[0] in ("slack", "teams") and len(parts) > 2 else parts[0]


def hold_seconds(settings: Settings) -> int:
    """Seconds a slot is held at most: ``DEEPRESEARCH_JOB_TIMEOUT`` plus :data:`QUEUE_ALLOWANCE`."""
    return int(settings.job_timeout) + QUEUE_ALLOWANCE


def counter_keys(user: str, scope: str) -> list[str]:
    """The six counters of ``user`` in ``scope`` (:func:`scope_of`), in the Lua script's ``KEYS``
    order: running (user, scope), started per day (user, scope), tokens per day (user, scope)."""
    return [f"quota:{kind}:{owner}" for kind in _KINDS for owner in (f"user:{scope}:{user}", f"scope:{scope}")]


def exempt(settings: Settings, user: str) -> bool:
    """True when ``user`` is listed in ``DEEPRESEARCH_ADMINS`` or no limit is set at all."""
    return user in settings.admin_ids or not any(Limits.from_settings(settings).values())


def acquire(store: Store, *, turn_id: str, user: str, thread_id: str, start: bool, settings: Settings,
            now: float | None = None) -> Verdict:
    """Take a running slot for ``turn_id`` of ``user`` (and count a start when ``start``), or
    refuse when a limit is reached. Idempotent per ``turn_id`` (a turn holding a slot is allowed).

    Raises:
        redis.exceptions.RedisError / sqlite3.Error: the store is unreachable.
    """
    if exempt(settings, user):
        return Verdict(True)
    now, keys = _counting(store, settings, user, thread_id, now)
    args = [now, hold_seconds(settings), turn_id, int(start), *Limits.from_settings(settings).values()]
    if isinstance(store, RedisStore):
        result = [str(x) for x in redis_script(store)(keys=[store._k(k) for k in keys], args=args)]
    else:
        result = _sqlite_acquire(_sqlite(store), keys, args)
    return _verdict(result, Limits.from_settings(settings))


def _counting(store: Store, settings: Settings, user: str, thread_id: str, now: float | None) -> tuple[float, list[str]]:
    """``(now, counter keys)`` of ``user``'s turn in ``thread_id``'s workspace, once a Redis that lost the
    daily counters has them again (:func:`jobs.quota_restore.restore_if_lost`, when a daily limit is set)."""
    now = time.time() if now is None else now
    if isinstance(store, RedisStore) and any(Limits.from_settings(settings).values()[2:]):
        restore_if_lost(store, settings, now=now)
    return now, counter_keys(user, scope_of(thread_id))


def check(store: Store, *, user: str, thread_id: str, start: bool, settings: Settings,
          now: float | None = None) -> Verdict:
    """What :func:`acquire` would answer a new turn of ``user`` in ``thread_id``'s workspace now, taking
    nothing: for a surface that must know before it says anything (a slash command, whose thread is
    not posted yet). :func:`acquire` stays the one that decides: a slot may be taken meanwhile.

    Raises:
        redis.exceptions.RedisError / sqlite3.Error: the store is unreachable.
    """
    if exempt(settings, user):
        return Verdict(True)
    now, keys = _counting(store, settings, user, thread_id, now)
    limits = Limits.from_settings(settings)
    floors = [now if i < 2 else now - DAY for i in range(len(keys))]
    if isinstance(store, RedisStore):
        pipe = store.redis.pipeline(transaction=True)
        for key, floor in zip(keys, floors, strict=True):
            pipe.zrangebyscore(store._k(key), f"({floor}", "+inf", withscores=True)
        rows = {key: [(m.decode() if isinstance(m, bytes) else str(m), float(score)) for m, score in found]
                for key, found in zip(keys, pipe.execute(), strict=True)}
    else:
        with _sqlite(store)._conn() as conn:
            rows = {key: conn.execute("SELECT member, score FROM quota WHERE key = ? AND score > ? ORDER BY score",
                                      (key, floor)).fetchall() for key, floor in zip(keys, floors, strict=True)}
    return _verdict(_refusal(rows, keys, list(limits.values()), start) or ["ok", "0"], limits)


def release(store: Store, turn_id: str, *, user: str, thread_id: str) -> None:
    """Give back ``turn_id``'s running slot (no-op when it holds none); its start stays counted."""
    keys = counter_keys(user, scope_of(thread_id))[:2]
    if isinstance(store, RedisStore):
        pipe = store.redis.pipeline(transaction=False)
        for key in keys:
            pipe.zrem(store._k(key), turn_id)
        pipe.execute()
    elif isinstance(store, SqliteStore):
        with _sqlite(store)._conn(write=True) as conn:
            conn.executemany("DELETE FROM quota WHERE key = ? AND member = ?", [(k, turn_id) for k in keys])


def holding(store: Store, *, user: str, thread_id: str, now: float | None = None) -> list[str]:
    """The turn ids holding a running slot of ``user`` (in ``thread_id``'s workspace), expired ones left out.

    Raises:
        redis.exceptions.RedisError / sqlite3.Error: the store is unreachable.
    """
    key = counter_keys(user, scope_of(thread_id))[0]
    now = time.time() if now is None else now
    if isinstance(store, RedisStore):
        return [m.decode() if isinstance(m, bytes) else str(m)
                for m in store.redis.zrangebyscore(store._k(key), f"({now}", "+inf")]
    if isinstance(store, SqliteStore):
        with _sqlite(store)._conn() as conn:
            return [row[0] for row in conn.execute("SELECT member FROM quota WHERE key = ? AND score > ?", (key, now))]
    return []


def touch(store: Store, turn_id: str, *, user: str, thread_id: str, settings: Settings) -> None:
    """Extend the expiry of ``turn_id``'s slot (if it holds one) to :func:`hold_seconds` from now:
    called when the turn starts running, however long it waited in the queue."""
    keys = counter_keys(user, scope_of(thread_id))[:2]
    until = time.time() + hold_seconds(settings)
    if isinstance(store, RedisStore):
        pipe = store.redis.pipeline(transaction=False)
        for key in keys:
            pipe.zadd(store._k(key), {turn_id: until}, xx=True)
        pipe.execute()
    elif isinstance(store, SqliteStore):
        with _sqlite(store)._conn(write=True) as conn:
            conn.executemany("UPDATE quota SET score = ? WHERE key = ? AND member = ?",
                             [(until, k, turn_id) for k in keys])


def add_tokens(store: Store, turn_id: str, tokens: int, *, user: str, thread_id: str,
               now: float | None = None) -> None:
    """Count ``tokens`` (model input plus output) that ``turn_id`` spent, for the daily budget."""
    if tokens <= 0:
        return
    now = time.time() if now is None else now
    keys = counter_keys(user, scope_of(thread_id))[4:]
    member = f"{turn_id}|{int(tokens)}"
    if isinstance(store, RedisStore):
        pipe = store.redis.pipeline(transaction=True)
        for key in keys:
            pipe.zadd(store._k(key), {member: now})
            pipe.expire(store._k(key), DAY * 2)
        pipe.execute()
    elif isinstance(store, SqliteStore):
        with _sqlite(store)._conn(write=True) as conn:
            conn.executemany("INSERT OR REPLACE INTO quota (key, member, score) VALUES (?, ?, ?)",
                             [(k, member, now) for k in keys])


def refused_text(verdict: Verdict, now: float | None = None, language: str = "en") -> str:
    """The one reply that tells the requester which limit they reached and when to try again, in
    ``language`` (an ISO 639-1 code of :data:`jobs.phrases.WORDS`; English when it lacks one)."""
    if verdict.limit == "running":
        key = plural(f"quota_running_{verdict.who}", verdict.maximum, language)
        return WORDS(key, language, maximum=verdict.maximum)
    return WORDS(f"quota_{verdict.limit}_{verdict.who}", language, maximum=number(verdict.maximum, language),
                 when=_when(verdict.retry_at, now, language))


def _when(retry_at: float | None, now: float | None, language: str) -> str:
    if retry_at is None:
        return WORDS("when_later", language)
    now = time.time() if now is None else now
    minutes = max(1, int((retry_at - now + 59) // 60))
    stamp = time.strftime("%H:%M UTC", time.gmtime(retry_at))
    span = (WORDS("span_minutes", language, minutes=minutes) if minutes < 60
            else WORDS("span_hours", language, hours=minutes // 60, minutes=minutes % 60))
    return WORDS("when_at", language, stamp=stamp, span=span)


def _verdict(result: list[str], limits: Limits) -> Verdict:
    code, value = result[0], result[1]
    if code == "ok":
        return Verdict(True, taken=value == "1")
    limit, _, index = code.partition(":")
    who = "user" if index == "1" else "workspace"
    offset = {"running": 0, "daily": 2, "tokens": 4}[limit]
    maximum = limits.values()[offset + (0 if who == "user" else 1)]
    return Verdict(False, limit=limit, who=who, retry_at=float(value) if limit != "running" else None,
                   maximum=maximum)


_scripts: dict[tuple[int, str], object] = {}


def redis_script(store: RedisStore, lua: str = _LUA):
    """``lua`` registered with ``store``'s Redis client (once per client): a callable
    ``(keys=[...], args=[...])`` that runs it by its SHA-1 (EVALSHA, loading it again if Redis lost it)."""
    key = (id(store.redis), lua)
    script = _scripts.get(key)
    if script is None:
        script = _scripts[key] = store.redis.register_script(lua)
    return script


def _sqlite(store: Store) -> SqliteStore:
    """The store as a :class:`SqliteStore` (its ``quota`` table is part of the store's schema)."""
    if not isinstance(store, SqliteStore):
        raise TypeError(f"no quota support in {type(store).__name__}")
    return store


def _sqlite_acquire(store: SqliteStore, keys: list[str], args: list) -> list[str]:
    """The Lua script's steps, in one SQLite write transaction."""
    now, hold, turn, start, *limits = args
    with store._conn(write=True) as conn:
        for i, key in enumerate(keys):
            floor = now if i < 2 else now - DAY
            conn.execute("DELETE FROM quota WHERE key = ? AND score <= ?", (key, floor))
        rows = {key: conn.execute("SELECT member, score FROM quota WHERE key = ? ORDER BY score", (key,)).fetchall()
                for key in keys}
        if any(member == turn for member, _ in rows[keys[0]]):
            return ["ok", "0"]
        refused = _refusal(rows, keys, limits, bool(start))
        if refused:
            return refused
        held = [(keys[i], turn, now + hold) for i in (0, 1)] + ([(keys[i], turn, now) for i in (2, 3)] if start else [])
        conn.executemany("INSERT OR REPLACE INTO quota (key, member, score) VALUES (?, ?, ?)", held)
    return ["ok", "1"]


def _refusal(rows: dict, keys: list[str], limits: list[int], start: bool) -> list[str] | None:
    """The Lua script's refusal (``[code, retry_at]``) from the counters' live ``(member, score)`` rows, by score; None: allowed."""
    for i in (0, 1):
        if limits[i] and len(rows[keys[i]]) >= limits[i]:
            return [f"running:{i + 1}", "0"]
    for i in (2, 3) if start else ():
        if limits[i] and len(rows[keys[i]]) >= limits[i]:
            return [f"daily:{i - 1}", str(rows[keys[i]][-limits[i]][1] + DAY)]
    for i in (4, 5):
        if not limits[i]:
            continue
        spent = [(int(member.rpartition("|")[2] or 0), score) for member, score in rows[keys[i]]]
        total = sum(tokens for tokens, _ in spent)
        for tokens, score in spent if total >= limits[i] else ():
            total -= tokens
            if total < limits[i]:
                return [f"tokens:{i - 3}", str(score + DAY)]
    return None
