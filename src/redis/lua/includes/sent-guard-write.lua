--[[
  Writes to the duplicate-send guard (includes/sent-guard.lua).

  Defines: guardRecord(sentKey, f, entry, window); guardForget(sentKey, f, own) (only an entry that
    starts with `own`); guardPrune(sentKey, now, window)
]]
--- @include "sent-guard"
--- @include "bucket-map-write"

local function guardRecord(sentKey, f, entry, window)
  bucketMapSet(guardMap(sentKey), f, entry, window)
end

local function guardForget(sentKey, f, own)
  local map = guardMap(sentKey)
  local entry = bucketMapGet(map, f)
  if entry and string.sub(entry, 1, #own) == own then bucketMapDel(map, f) end
  local older = olderHashGet(sentKey, f)
  if older and string.sub(older, 1, #own) == own then redis.call('HDEL', sentKey, f) end
end

local function guardPrune(sentKey, now, window)
  bucketMapWalk(guardMap(sentKey), now, window)
end
