--[[
  The duplicate-send guard's pruning: entries older than the window go, a bucket at a time (the
  guard is a small hash at `sentKey`: includes/small-hash.lua). The walk goes round the buckets
  at a pace set by time, not by sends: GUARD_WALKS_PER_WINDOW times each window, so an entry
  outlives its window by at most a quarter of it, and a burst of claims (an unpaced drain) walks
  next to nothing. Where it is and when it last moved are fields of the guard's meta (`walkNext`,
  `walkAt`). A step visits at most GUARD_MAX_STEP buckets; the rest waits for later calls.

  Defines: GUARD_WALKS_PER_WINDOW, GUARD_MAX_STEP; pruneSent(sentKey, now, window)
]]

-- Includes
--- @include "small-hash"

local GUARD_WALKS_PER_WINDOW = 4
local GUARD_MAX_STEP = 25

local function pruneSent(sentKey, now, window)
  local meta = sentKey .. ':meta'
  local state = redis.call('HMGET', meta, 'walkAt', 'walkNext', 'level', 'split')
  local walkAt = tonumber(state[1])
  if not walkAt then
    if redis.call('EXISTS', meta) == 1 then redis.call('HSET', meta, 'walkAt', now) end
    return
  end
  local buckets = smallHashBuckets(tonumber(state[3] or '0'), tonumber(state[4] or '0'))
  local due = math.floor(buckets * GUARD_WALKS_PER_WINDOW * (now - walkAt) / window)
  if due < 1 then return end
  local n, removed = tonumber(state[2] or '0'), 0
  for _ = 1, math.min(due, GUARD_MAX_STEP) do
    if n >= buckets then n = 0 end
    local bucket = sentKey .. ':' .. string.format('%d', n)
    local fields, stale = redis.call('HGETALL', bucket), {}
    for i = 1, #fields, 2 do
      local at = string.match(fields[i + 1], '/(%d+)$')
      if at and now - tonumber(at) >= window then stale[#stale + 1] = fields[i] end
    end
    if #stale > 0 then removed = removed + redis.call('HDEL', bucket, unpack(stale)) end
    n = n + 1
  end
  if removed > 0 then smallHashCounted(sentKey, -removed) end
  redis.call('HSET', meta, 'walkAt', now, 'walkNext', n)
end
