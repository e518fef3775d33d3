--[[
  The duplicate-send guard at a row's claim: the sentence for a send of the same message by
  another row within the window (the row is then not sent), else nil, with the claim recorded.

  Most claims are of messages the guard has not seen: one HSETNX finds that no entry is there and
  writes this one, in one scan of its bucket (bucketMapAdd), the field computed once. Only when
  an entry is there is it read. That holds once every entry is keyed by its field: an entry an
  earlier build keyed by the fingerprint's characters, or kept in the one hash
  (includes/sent-guard.lua), is looked up as priorSend does while one may be in the window. The
  map's hash keeps `#text-until`, when that ends: set at this build's first claim on the number,
  a window later when the map was there already, at once when it was not.

  Defines: guardTextUntil; guardTextMayRemain(sentKey, now, window) → whether an entry keyed otherwise may be in the
    window; guardClaim(sentKey, f, campaignId, row, now, window, allowRepeat) → the sentence, or nil (recorded)
]]
--- @include "prior-send"
--- @include "sent-guard-write"

-- Per guard, read once a script run.
local guardTextUntil = {}
local function guardTextMayRemain(sentKey, now, window)
  local ends = guardTextUntil[sentKey]
  if not ends then
    local mapKey = sentKey .. ':map'
    ends = tonumber(redis.call('HGET', mapKey, '#text-until') or '')
    if not ends then
      ends = now
      if redis.call('EXISTS', mapKey) == 1 then ends = now + window end
      redis.call('HSET', mapKey, '#text-until', string.format('%d', ends))
      keepBucketAlive(mapKey, window)
    end
    guardTextUntil[sentKey] = ends
  end
  return now < ends or olderHashExists(sentKey)
end

local function guardClaim(sentKey, f, campaignId, row, now, window, allowRepeat)
  if guardTextMayRemain(sentKey, now, window) then
    if not allowRepeat then
      local dup = priorSend(sentKey, f, campaignId, row, now, window)
      if dup then return dup end
    end
    guardRecord(sentKey, f, campaignId, row, now, window)
    return nil
  end
  local map, field = guardMap(sentKey), guardField(f)
  local value = guardValue(sentKey, campaignId, row, now, window)
  if bucketMapAdd(map, field, value, window) == 1 then return nil end
  if not allowRepeat then
    local cid, r, at = guardOwner(sentKey, bucketMapGet(map, field))
    local dup = priorSendOf(cid, r, at, campaignId, row, now, window)
    if dup then return dup end
  end
  bucketMapSet(map, field, value, window)
  return nil
end
