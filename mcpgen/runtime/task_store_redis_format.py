"""How `task_store_redis.RedisTaskStore` lays out its data in Redis: a task's hash
(`task_fields`, `decode`), and the Lua scripts, each one step of the store, run by
Redis atomically, so that replicas sharing one Redis never see half a change
and never both pass a bound that only one of them may.

Every script starts with the same arguments (`PRELUDE`): the key prefix, the store's
clock now (POSIX seconds), the outcome and message of a task whose replica was lost,
and how long index keys live; its own arguments follow from ARGV[6].

The keys under the prefix P:
- `P..'task:'..id`: a hash, the task (`task_fields`), its quota and owner keys, its
  creation sequence, and once it ended its outcome (JSON) and the outcome's size;
- `P..'all'`: every task id, scored by when its ttl ends;
- `P..'owner:'..o`: an owner's task ids, scored by creation sequence (`tasks/list`);
- `P..'kept:'..q`, `P..'working:'..q`: a quota key's kept and unfinished task ids,
  scored by when their ttl ends (so an entry a crash left behind still leaves);
- `P..'ended:'..q`, `P..'cancelled:'..q`: a quota key's ended (and of those, its
  cancelled) task ids, scored likewise: the places a new task may take;
- `P..'holders'`: the quota keys with an ended task, scored by how many tasks each
  keeps (the largest holder loses an ended task when the store is full);
- `P..'network:'..n`: the unfinished task ids of an anonymous caller's network;
- `P..'leases'`: the ids of tasks that run somewhere, scored by when their lease ends;
- `P..'seq'` (creation counter), `P..'stored'` (bytes of the outcomes kept);
- the channel `P..'events'`: `{"ended": id}` when a task ends or is deleted, and
  `{"relay": id, "message": ...}` for the process running a task.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, cast

from .tasks import Task, TaskOutcome

PRELUDE = """
local P = ARGV[1]
local now, now_text = tonumber(ARGV[2]), ARGV[2]
local lost_outcome = ARGV[3]
local lost_message = ARGV[4]
local keep_ms = tonumber(ARGV[5])

local function terminal(status)
  return status == 'completed' or status == 'failed' or status == 'cancelled'
end

local function publish_ended(id)
  redis.call('PUBLISH', P .. 'events', cjson.encode({ended = id}))
end

-- Keep the quota key's place in 'holders' (its kept count) as it is now.
local function rank(quota)
  if redis.call('ZCARD', P .. 'ended:' .. quota) > 0 then
    redis.call('ZADD', P .. 'holders', redis.call('ZCARD', P .. 'kept:' .. quota), quota)
    redis.call('PEXPIRE', P .. 'holders', keep_ms)
  else
    redis.call('ZREM', P .. 'holders', quota)
  end
end

local function drop(id)
  local h = P .. 'task:' .. id
  local f = redis.call('HMGET', h, 'quota', 'okey', 'size', 'net')
  if f[1] then
    for _, index in ipairs({'kept:', 'working:', 'ended:', 'cancelled:'}) do
      redis.call('ZREM', P .. index .. f[1], id)
    end
    rank(f[1])
  end
  if f[4] and f[4] ~= '' then redis.call('ZREM', P .. 'network:' .. f[4], id) end
  if f[2] then redis.call('ZREM', P .. 'owner:' .. f[2], id) end
  local size = tonumber(f[3] or '0') or 0
  if size > 0 and redis.call('EXISTS', P .. 'stored') == 1 then
    if redis.call('DECRBY', P .. 'stored', size) <= 0 then
      redis.call('DEL', P .. 'stored')
    end
  end
  redis.call('ZREM', P .. 'all', id)
  redis.call('ZREM', P .. 'leases', id)
  redis.call('DEL', h)
  publish_ended(id)
end

local function finish(id, status, message, outcome, size)
  local h = P .. 'task:' .. id
  local f = redis.call('HMGET', h, 'quota', 'net')
  local quota, net = f[1], f[2]
  redis.call('HSET', h, 'status', status, 'message', message, 'outcome', outcome,
    'size', size, 'details', '{}', 'updated', now_text)
  redis.call('ZREM', P .. 'working:' .. quota, id)
  if net and net ~= '' then redis.call('ZREM', P .. 'network:' .. net, id) end
  redis.call('ZREM', P .. 'leases', id)
  local expires = redis.call('ZSCORE', P .. 'all', id)
  if expires then
    local places = {P .. 'ended:' .. quota}
    if status == 'cancelled' then table.insert(places, P .. 'cancelled:' .. quota) end
    for _, key in ipairs(places) do
      redis.call('ZADD', key, expires, id)
      redis.call('PEXPIRE', key, keep_ms)
    end
    rank(quota)
  end
  if tonumber(size) > 0 then
    redis.call('INCRBY', P .. 'stored', size)
    redis.call('PEXPIRE', P .. 'stored', keep_ms)
  end
  publish_ended(id)
end

local function lapse(id)
  local status = redis.call('HGET', P .. 'task:' .. id, 'status')
  if status and not terminal(status) then
    finish(id, 'failed', lost_message, lost_outcome, #lost_outcome)
  end
  redis.call('ZREM', P .. 'leases', id)
end

local function sweep(limit)
  local gone = redis.call('ZRANGEBYSCORE', P .. 'all', '-inf', now_text, 'LIMIT', 0, limit)
  for _, id in ipairs(gone) do drop(id) end
  local lost = redis.call('ZRANGEBYSCORE', P .. 'leases', '-inf', now_text, 'LIMIT', 0, limit)
  for _, id in ipairs(lost) do lapse(id) end
  return gone
end

-- Whether the task is there, once its ttl and its lease are accounted for.
local function settle(id)
  local expires = redis.call('ZSCORE', P .. 'all', id)
  if not expires then return false end
  if tonumber(expires) <= now then
    drop(id)
    return false
  end
  local lease = redis.call('ZSCORE', P .. 'leases', id)
  if lease and tonumber(lease) <= now then lapse(id) end
  return true
end

local function fields(id)
  return redis.call('HGETALL', P .. 'task:' .. id)
end
"""

CREATE = """
local id, quota, okey, net = ARGV[6], ARGV[7], ARGV[8], ARGV[9]
local max_tasks, max_kept = tonumber(ARGV[10]), tonumber(ARGV[11])
local max_working, max_network = tonumber(ARGV[12]), tonumber(ARGV[13])
local expires, lease, hash_ms = ARGV[14], ARGV[15], tonumber(ARGV[16])
sweep(1000)
local kept, working = P .. 'kept:' .. quota, P .. 'working:' .. quota
local network = P .. 'network:' .. net
redis.call('ZREMRANGEBYSCORE', kept, '-inf', now_text)
redis.call('ZREMRANGEBYSCORE', working, '-inf', now_text)
if redis.call('ZCARD', working) >= max_working then return 'working' end
if net ~= '' then
  redis.call('ZREMRANGEBYSCORE', network, '-inf', now_text)
  if redis.call('ZCARD', network) >= max_network then return 'network' end
end
-- The refusals above evict nothing; from here on, a place is made if one may be.
if redis.call('ZCARD', kept) >= max_kept then
  local mine = redis.call('ZRANGE', P .. 'cancelled:' .. quota, 0, 0)
  if #mine == 0 then return 'kept' end
  drop(mine[1])
end
if redis.call('ZCARD', P .. 'all') >= max_tasks then
  local top = redis.call('ZREVRANGE', P .. 'holders', 0, 0)
  if #top == 0 or redis.call('ZCARD', P .. 'kept:' .. top[1]) <= redis.call('ZCARD', kept) then
    return 'tasks'
  end
  local first = redis.call('ZRANGE', P .. 'ended:' .. top[1], 0, 0)
  if #first == 0 then
    rank(top[1])
    return 'tasks'
  end
  drop(first[1])
end
local seq = redis.call('INCR', P .. 'seq')
local h = P .. 'task:' .. id
redis.call('HSET', h, 'seq', seq, 'quota', quota, 'okey', okey, 'net', net, 'size', 0,
  unpack(ARGV, 17))
redis.call('PEXPIRE', h, hash_ms)
redis.call('ZADD', P .. 'all', expires, id)
redis.call('ZADD', kept, expires, id)
redis.call('ZADD', working, expires, id)
redis.call('ZADD', P .. 'owner:' .. okey, seq, id)
redis.call('ZADD', P .. 'leases', lease, id)
local touched = {P .. 'seq', P .. 'all', kept, working, P .. 'owner:' .. okey, P .. 'leases'}
if net ~= '' then
  redis.call('ZADD', network, expires, id)
  table.insert(touched, network)
end
for _, key in ipairs(touched) do
  redis.call('PEXPIRE', key, keep_ms)
end
rank(quota)
return seq
"""

GET = """
if settle(ARGV[6]) then return fields(ARGV[6]) end
return false
"""

UPDATE = """
local id = ARGV[6]
if not settle(id) then return false end
if not terminal(redis.call('HGET', P .. 'task:' .. id, 'status')) then
  redis.call('HSET', P .. 'task:' .. id, unpack(ARGV, 7))
end
return fields(id)
"""

FINISH = """
local id, status, message, outcome, size = ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10]
local max_stored, owner = tonumber(ARGV[11]), ARGV[14]
if not settle(id) then return false end
local h = P .. 'task:' .. id
if owner ~= '' and redis.call('HGET', h, 'owner') ~= string.sub(owner, 2) then
  return false
end
if terminal(redis.call('HGET', h, 'status')) then return {'terminal', fields(id)} end
local stored = tonumber(redis.call('GET', P .. 'stored') or '0')
if stored + tonumber(size) > max_stored then
  status, message, outcome = 'failed', ARGV[12], ARGV[13]
  size = #outcome
end
finish(id, status, message, outcome, size)
return {'ended', fields(id)}
"""

LIST = """
local okey, after, count = ARGV[6], ARGV[7], tonumber(ARGV[8])
sweep(1000)
local ids = redis.call('ZRANGEBYSCORE', P .. 'owner:' .. okey, '(' .. after, '+inf',
  'LIMIT', 0, count)
local page = {}
for _, id in ipairs(ids) do
  if settle(id) then table.insert(page, fields(id)) end
end
return page
"""

EXPIRE = """
return sweep(1000)
"""

RENEW = """
local lost = {}
for i = 7, #ARGV do
  if redis.call('ZSCORE', P .. 'leases', ARGV[i]) then
    redis.call('ZADD', P .. 'leases', 'XX', ARGV[6], ARGV[i])
  else
    table.insert(lost, ARGV[i])
  end
end
redis.call('PEXPIRE', P .. 'leases', keep_ms)
return lost
"""

_BODIES = {
    "create": CREATE,
    "get": GET,
    "update": UPDATE,
    "finish": FINISH,
    "list": LIST,
    "expire": EXPIRE,
    "renew": RENEW,
}
SCRIPTS = {name: PRELUDE + body for name, body in _BODIES.items()}
"""Each step's whole script: the prelude, then its own body."""


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def task_fields(task: Task) -> list[str]:
    """The task as the field-value pairs of its hash."""
    return [
        "id",
        task.task_id,
        "owner",
        task.owner,
        "status",
        task.status,
        "created",
        repr(task.created_at),
        "updated",
        repr(task.last_updated_at),
        "ttl",
        str(task.ttl),
        "poll",
        compact(task.poll_interval),
        "message",
        compact(task.status_message),
        "request",
        compact(dict(task.request)),
        "details",
        compact(dict(task.details)),
        "scopes",
        compact(list(task.scopes)),
    ]


def outcome_json(outcome: TaskOutcome) -> dict[str, Any]:
    if outcome.error is not None:
        return {"error": dict(outcome.error)}
    return {"result": dict(outcome.result or {})}


def row_fields(row: list[bytes]) -> dict[str, str]:
    return {
        row[index].decode(): row[index + 1].decode()
        for index in range(0, len(row) - 1, 2)
    }


def decode(row: list[bytes]) -> tuple[Task, int]:
    """The task a script answered (its hash's fields), and its creation sequence."""
    fields = row_fields(row)
    task = Task(
        task_id=fields["id"],
        owner=fields["owner"],
        status=cast(Any, fields["status"]),
        created_at=float(fields["created"]),
        last_updated_at=float(fields["updated"]),
        ttl=int(fields["ttl"]),
        poll_interval=json.loads(fields["poll"]),
        status_message=json.loads(fields["message"]),
        request=json.loads(fields["request"]),
        details=json.loads(fields["details"]),
        # A task kept by a replica that predates scopes has none.
        scopes=tuple(json.loads(fields.get("scopes", "[]"))),
    )
    return task, int(fields["seq"])
