"""The daily quota counters written again from the audit trail when Redis has lost them.

The counters of :mod:`jobs.quotas` (researches started and model tokens spent per rolling day, per
requester and per workspace) live in Redis. A Redis that keeps nothing on disk (no RDB snapshot,
no AOF: the default of many containers) comes back empty after a restart, and every requester
could start a full day's researches again. The audit trail (:mod:`jobs.audit`: PostgreSQL with
``DATABASE_URL``, else ``{DATA_DIR}/audit.jsonl``) keeps one record per attempt at a research, so
the last 24 hours can be counted from it again.

:data:`RESTORED_KEY` marks a Redis that holds the counters: while it is there nothing is read.
When it is missing (a new Redis, or one that lost its data), the first quota check reads the
records of the last day and, in one Lua script, adds them to each counter that does not exist
(one that exists was counted as the researches ran, and is left as it is: no research counts
twice), then sets the mark. A started research is one entry (its ``thread`` and
``research_started``, whatever its attempts), at the time it started; a record's tokens are one
entry at the time it was written, without the offline model's estimates
(:func:`jobs.audit.spent_tokens`); refusals (status ``rejected``) started nothing.

Limits of what can be restored: a research still running when Redis was lost has no record yet
(its tokens count once it ends, through :func:`jobs.quotas.add_tokens`, but it is not counted as a
start); a requester's token counter that such an ending wrote before the first check is left as it
is; without ``DATABASE_URL`` each host has its own ``audit.jsonl``, so a host restores what it ran
itself. Running slots are not restored (a turn Redis lost is queued again by the worker's
recovery, :func:`jobs.journal.recover_lost`, and researches running at once are few).
"""

from __future__ import annotations

import logging
import time
from datetime import datetime

from engine.settings import Settings
from jobs.store import RedisStore

log = logging.getLogger(__name__)

#: The key whose presence says that Redis holds the quota counters (set once they are restored).
RESTORED_KEY = "quota:restored"

# KEYS: the counters, then RESTORED_KEY; ARGV: ttl, then (key index, score, member) triplets
_LUA = """
local n, ttl = #KEYS - 1, tonumber(ARGV[1])
if redis.call('EXISTS', KEYS[n + 1]) == 1 then return 0 end
local fresh = {}
for i = 1, n do fresh[i] = redis.call('EXISTS', KEYS[i]) == 0 end
local added = 0
for j = 2, #ARGV, 3 do
  local i = tonumber(ARGV[j])
  if fresh[i] then
    redis.call('ZADD', KEYS[i], ARGV[j + 1], ARGV[j + 2])
    redis.call('EXPIRE', KEYS[i], ttl)
    added = added + 1
  end
end
redis.call('SET', KEYS[n + 1], tostring(added))
return added
"""


def restore_if_lost(store: RedisStore, settings: Settings, *, now: float | None = None) -> int:
    """Write the daily counters again from the audit trail when Redis holds none of this deployment
    (no :data:`RESTORED_KEY`); returns how many entries were added (0 when nothing was lost).

    A trail that cannot be read now (PostgreSQL away) is logged (``event=quota_restore_failed``) and
    tried again at the next check; the check itself goes on with what Redis holds.

    Raises:
        redis.exceptions.RedisError: Redis is unreachable.
    """
    from jobs.quotas import DAY, redis_script

    if store.redis.exists(store._k(RESTORED_KEY)):
        return 0
    now = time.time() if now is None else now
    try:
        entries = _entries(settings, now - DAY, now)
    except Exception as err:  # the trail is a second source: a failure here must not refuse a research
        log.warning("event=quota_restore_failed error=%s", type(err).__name__)
        return 0
    keys: list[str] = []
    args: list = [DAY * 2]
    for key, score, member in entries:
        if key not in keys:
            keys.append(key)
        args += [keys.index(key) + 1, score, member]
    added = int(redis_script(store, _LUA)(keys=[store._k(k) for k in (*keys, RESTORED_KEY)], args=args))
    if added:
        log.info("event=quota_restored entries=%d counters=%d", added, len(keys))
    return added


def _entries(settings: Settings, since: float, now: float) -> list[tuple[str, float, str]]:
    """``(counter key, score, member)`` of every start and every token spending the audit trail holds
    between ``since`` and ``now`` (Unix seconds), as :mod:`jobs.quotas` would have counted them."""
    from jobs import audit
    from jobs.audit_rows import record_epoch
    from jobs.quotas import counter_keys, scope_of

    out: list[tuple[str, float, str]] = []
    started: set[tuple[str, str]] = set()
    for record in audit.read(settings, since_days=1):
        if record.get("status") == "rejected":
            continue
        thread, user = str(record["thread"]), str(record.get("requester") or "")
        keys = counter_keys(user, scope_of(thread))
        research = str(record.get("research_started") or record.get("started") or "")
        began = _epoch(research)
        if since < began <= now and (thread, research) not in started:
            started.add((thread, research))
            out += [(keys[i], began, f"audit:{thread}:{research}") for i in (2, 3)]
        spent = audit.spent_tokens(record)
        at = record_epoch(record)
        if spent > 0 and since < at <= now:
            out += [(keys[i], at, f"audit:{thread}:{record['at']}|{spent}") for i in (4, 5)]
    return out


def _epoch(iso: str) -> float:
    try:
        return datetime.fromisoformat(iso).timestamp()
    except ValueError:
        return 0.0

