--[[
  Writes to the duplicate-send guard (includes/sent-guard.lua).

  Defines: guardHandle(sentKey, campaignId, ttl) → the campaign's handle in this guard, given at its first
    entry; guardRecord(sentKey, f, campaignId, row, at, window); guardForget(sentKey, f, campaignId, row)
    (only an entry of that row); guardPrune(sentKey, now, window)
]]
--- @include "sent-guard"
--- @include "bucket-map-write"

local function guardHandle(sentKey, campaignId, ttl)
  local known = guardHandles[sentKey]
  if not known then
    known = { handles = {}, ids = {} }
    guardHandles[sentKey] = known
  end
  local handle = known.handles[campaignId]
  if handle then return handle end
  local mapKey = sentKey .. ':map'
  handle = redis.call('HGET', mapKey, 'c:' .. campaignId)
  if not handle then
    handle = tostring(redis.call('HINCRBY', mapKey, 'next', 1))
    redis.call('HSET', mapKey, 'c:' .. campaignId, handle, 'h:' .. handle, campaignId)
    keepBucketAlive(mapKey, ttl)
  end
  known.handles[campaignId] = handle
  known.ids[handle] = campaignId
  return handle
end

local function guardRecord(sentKey, f, campaignId, row, at, window)
  bucketMapSet(guardMap(sentKey), guardField(f), guardHandle(sentKey, campaignId, window) .. '/' .. row .. '/' .. compactTime(at), window)
end

local function guardForget(sentKey, f, campaignId, row)
  local map = guardMap(sentKey)
  local fields = { guardField(f) }
  if #f > GUARD_FIELD then fields[2] = f end
  for _, field in ipairs(fields) do
    local cid, r = guardOwner(sentKey, bucketMapGet(map, field))
    if cid == campaignId and r == tostring(row) then bucketMapDel(map, field) end
  end
  local older = olderHashGet(sentKey, f)
  if older and string.sub(older, 1, #campaignId + #tostring(row) + 2) == campaignId .. '/' .. row .. '/' then redis.call('HDEL', sentKey, f) end
end

local function guardPrune(sentKey, now, window)
  bucketMapWalk(guardMap(sentKey), now, window)
end
