--[[
  Writes to the duplicate-send guard (includes/sent-guard.lua).

  A campaign's handle remembers when the campaign last used it (`c:<id>` → "<handle> <time>",
  written again once that is a quarter window old), and goes, both ways, once that is more than
  a window and a quarter old: every entry naming it is then older than the window, and an entry
  whose handle is gone reads as none. So the guard's own hash holds the handles of the
  campaigns of the last window or so, not of every campaign the number ever sent. A quarter
  window apart at most (`#handles`: when they were last looked over), the claim looks them over.

  Defines: handleUse(stored) → handle, ms of its last use; guardHandle(sentKey, campaignId, now, window) → the
    campaign's handle in this guard, given at its first entry; guardValue(sentKey, campaignId, row, at, window) → what
    an entry keeps; guardRecord(sentKey, f, campaignId, row, at, window); guardForget(sentKey, f, campaignId, row)
    (only an entry of that row); guardPruneHandles(sentKey, now, window); guardPrune(sentKey, now, window)
]]
--- @include "sent-guard"
--- @include "bucket-map-write"

-- A `c:<id>` value: the handle, and when the campaign last used it (ms), or nil.
local function handleUse(stored)
  local handle, at = string.match(stored or '', '^(%d+) (%w+)$')
  return handle, timeOfCompact(at)
end

local function guardHandle(sentKey, campaignId, now, window)
  local known = guardHandles[sentKey]
  if not known then
    known = { handles = {}, ids = {} }
    guardHandles[sentKey] = known
  end
  local handle = known.handles[campaignId]
  if handle then return handle end
  local mapKey = sentKey .. ':map'
  local used
  handle, used = handleUse(redis.call('HGET', mapKey, 'c:' .. campaignId) or nil)
  if not handle then
    handle = tostring(redis.call('HINCRBY', mapKey, 'next', 1))
    redis.call('HSET', mapKey, 'h:' .. handle, campaignId)
  end
  if not used or now - used >= window / 4 then redis.call('HSET', mapKey, 'c:' .. campaignId, handle .. ' ' .. compactSeconds(now)) end
  keepBucketAlive(mapKey, window)
  known.handles[campaignId] = handle
  known.ids[handle] = campaignId
  return handle
end

local function guardValue(sentKey, campaignId, row, at, window)
  local handle = guardHandle(sentKey, campaignId, at, window)
  return packGuardValue(handle, row, at) or handle .. '/' .. row .. '/' .. compactTime(at)
end

local function guardRecord(sentKey, f, campaignId, row, at, window)
  bucketMapSet(guardMap(sentKey), guardField(f), guardValue(sentKey, campaignId, row, at, window), window)
end

local function guardForget(sentKey, f, campaignId, row)
  local map = guardMap(sentKey)
  local fields = { guardField(f) }
  if fields[1] ~= f then fields[2], fields[3] = string.sub(f, 1, GUARD_FIELD), f end
  for _, field in ipairs(fields) do
    local cid, r = guardOwner(sentKey, bucketMapGet(map, field))
    if cid == campaignId and r == tostring(row) then bucketMapDel(map, field) end
  end
  local older = olderHashGet(sentKey, f)
  if older and string.sub(older, 1, #campaignId + #tostring(row) + 2) == campaignId .. '/' .. row .. '/' then redis.call('HDEL', sentKey, f) end
end

local function guardPruneHandles(sentKey, now, window)
  local mapKey = sentKey .. ':map'
  local looked = tonumber(redis.call('HGET', mapKey, '#handles') or '')
  if looked and now - looked < window / 4 then return end
  redis.call('HSET', mapKey, '#handles', now)
  if not looked then return end
  local fields = redis.call('HGETALL', mapKey)
  for i = 1, #fields, 2 do
    if string.sub(fields[i], 1, 2) == 'c:' then
      local handle, used = handleUse(fields[i + 1])
      if handle and used and now - used > window + window / 4 then
        redis.call('HDEL', mapKey, fields[i], 'h:' .. handle)
        local known = guardHandles[sentKey]
        if known then
          known.handles[string.sub(fields[i], 3)] = nil
          known.ids[handle] = nil
        end
      end
    end
  end
end

local function guardPrune(sentKey, now, window)
  bucketMapWalk(guardMap(sentKey), now, window)
  guardPruneHandles(sentKey, now, window)
end
