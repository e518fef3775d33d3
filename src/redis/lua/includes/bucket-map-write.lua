--[[
  Writes to a bucket map (includes/bucket-map.lua). When `count` passes BUCKET_FILL × n,
  bucket n - 2^L splits: its entries whose address now names bucket n move there, so a write
  moves at most one bucket's entries, once every BUCKET_FILL new entries. Buckets not yet split
  hold up to twice the fill of those split: BUCKET_FILL leaves them room under 128.

  With `ttl` (ms), each bucket written and the map's hash live at least that long after the
  write (never shortened): a map nobody writes to goes by itself.

  The walk drops entries whose value ends in a time (includes/compact-time.lua) older than
  `period`, a bucket at a time, at a pace set by time, not by calls: BUCKET_WALKS_PER_PERIOD
  times the whole map a period, so an entry outlives its period by at most a quarter of it, and
  a burst of calls walks nothing.
  No index by time is kept: a sorted set cost more than the map itself.

  Defines: BUCKET_FILL, BUCKET_WALKS_PER_PERIOD, BUCKET_WALK_MAX; bucketKeptAlive, keepBucketAlive(key, ttl);
    splitBucket(state, ttl); bucketMapWritten(state, bucket, added, ttl); bucketMapSet(state, field, value, ttl);
    bucketMapAdd(state, field, value, ttl) → 1 if it added the entry, 0 (nothing written) if the field was there;
    bucketMapDel(state, field) → 1 if it removed the entry, else 0; bucketMapWalk(state, now, period) → the fields
    it dropped and their values, flat
]]
--- @include "bucket-map"
--- @include "compact-time"
--- @include "counts"

local BUCKET_FILL = 48
local BUCKET_WALKS_PER_PERIOD = 4
local BUCKET_WALK_MAX = 16

-- Once a key a run (a claim of many rows writes to the map's hash many times), and one call
-- as a rule: GT lengthens a life and never shortens one; only a key with none yet needs NX.
local bucketKeptAlive = {}
local function keepBucketAlive(key, ttl)
  if not ttl or ttl <= 0 or bucketKeptAlive[key] then return end
  bucketKeptAlive[key] = true
  if redis.call('PEXPIRE', key, ttl, 'GT') == 0 then redis.call('PEXPIRE', key, ttl, 'NX') end
end

-- Bucket n - 2^L gives bucket n the entries whose address's last L + 1 bits name it.
local function splitBucket(state, ttl)
  local from, to = state.key .. ':' .. (state.n - state.low), state.key .. ':' .. state.n
  local entries = redis.call('HGETALL', from)
  local moved, gone = {}, {}
  for i = 1, #entries, 2 do
    if state.address(entries[i]) % (state.low * 2) == state.n then
      moved[#moved + 1] = entries[i]
      moved[#moved + 1] = entries[i + 1]
      gone[#gone + 1] = entries[i]
    end
  end
  if #gone > 0 then
    redis.call('HSET', to, unpack(moved))
    redis.call('HDEL', from, unpack(gone))
    keepBucketAlive(to, ttl)
  end
  state.n = state.n + 1
  if state.n == state.low * 2 then state.low = state.n end
  redis.call('HSET', state.key, 'n', state.n)
end

-- After a write to `bucket`: the count of a new entry (gathered in a claim: includes/counts.lua), the keys'
-- lives, the splits it is due.
local function bucketMapWritten(state, bucket, added, ttl)
  if added == 1 then
    state.count = state.count + 1
    countAdd(state.key, 'count', 1)
  end
  keepBucketAlive(bucket, ttl)
  keepBucketAlive(state.key, ttl)
  while state.count > BUCKET_FILL * state.n do splitBucket(state, ttl) end
end

local function bucketMapSet(state, field, value, ttl)
  local bucket = bucketOf(state, field)
  bucketMapWritten(state, bucket, redis.call('HSET', bucket, field, value), ttl)
end

-- One HSETNX: where most writes are of new entries, the lookup and the write in one scan of the bucket.
local function bucketMapAdd(state, field, value, ttl)
  local bucket = bucketOf(state, field)
  local added = redis.call('HSETNX', bucket, field, value)
  if added == 1 then bucketMapWritten(state, bucket, added, ttl) end
  return added
end

local function bucketMapDel(state, field)
  local removed = redis.call('HDEL', bucketOf(state, field), field)
  if removed == 1 then
    state.count = math.max(state.count - 1, 0)
    -- Written as a whole: a gathered change to it must be in first.
    flushCounts()
    redis.call('HSET', state.key, 'count', state.count)
  end
  return removed
end

-- Buckets due: n, BUCKET_WALKS_PER_PERIOD times a period, for the time since the walk's mark; the mark
-- moves by what was walked, so no fraction of a bucket is lost between calls.
local function bucketMapWalk(state, now, period)
  local key = state.key
  local dropped = {}
  local stored = redis.call('HMGET', key, '#cursor', '#walked')
  local walked = tonumber(stored[2] or '')
  if not walked then
    if state.count > 0 then redis.call('HSET', key, '#walked', now) end
    return dropped
  end
  local perBucket = period / (state.n * BUCKET_WALKS_PER_PERIOD)
  walked = math.max(walked, now - period)
  local due = math.min(math.floor((now - walked) / perBucket), BUCKET_WALK_MAX)
  if due < 1 then return dropped end
  local cursor = tonumber(stored[1] or '0') or 0
  local removed = 0
  for _ = 1, due do
    if cursor >= state.n then cursor = 0 end
    local bucket = key .. ':' .. cursor
    local entries = redis.call('HGETALL', bucket)
    local stale = {}
    for i = 1, #entries, 2 do
      local at = timeAtEnd(entries[i + 1])
      if at and now - at >= period then
        stale[#stale + 1] = entries[i]
        dropped[#dropped + 1] = entries[i]
        dropped[#dropped + 1] = entries[i + 1]
      end
    end
    if #stale > 0 then removed = removed + redis.call('HDEL', bucket, unpack(stale)) end
    cursor = cursor + 1
  end
  state.count = math.max(state.count - removed, 0)
  flushCounts()
  redis.call('HSET', key, '#cursor', cursor, '#walked', walked + due * perBucket, 'count', state.count)
  return dropped
end
