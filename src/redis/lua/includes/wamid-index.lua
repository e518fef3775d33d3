--[[
  The message-ID index of a phone number: message ID → "campaign/row", kept for the retention
  period, so it is stored small. Its entries live in 65,536 small hashes,
  `<wamids>:<4 hex digits>`, the first 16 bits of the ID's SHA-1; the field is the next
  80 bits (10 bytes) of it, and the value names the campaign by its handle on this number
  ("<handle>/<row>", handle → campaign ID in `<wamids>:campaigns`, field `next` the last one
  given). Small hashes stay listpacks in Redis (hash-max-listpack-entries: 8.4M IDs a number
  at redis.conf's 128), about 31 B an entry at 1M IDs instead of 96 in one big hash. The 96 bits of
  bucket and field make a collision among 100M IDs less likely than 1 in 10^13: an entry is
  trusted as the one hash's were.
  Entries written before this layout are in the hash `<wamids>` itself, as message ID →
  "campaign/row"; they are read and forgotten there.

  Defines: wamidSlot(wamidsKey, wamid) → bucket key, field; resolveWhere(wamidsKey, stored value)
    → campaign ID, row (or nil); wamidWhere(wamidsKey, wamid) → campaign ID, row (or nil);
    campaignHandle(wamidsKey, campaignKey, campaignId) → handle; indexWamid(wamidsKey,
    campaignKey, campaignId, row, wamid); forgetWamid(wamidsKey, wamid, campaignId, row) → 1 if
    it removed an entry of that row, else 0
]]
local function wamidSlot(wamidsKey, wamid)
  local digest = redis.sha1hex(wamid)
  local field = {}
  for i = 5, 23, 2 do field[#field + 1] = string.char(tonumber(string.sub(digest, i, i + 1), 16)) end
  return wamidsKey .. ':' .. string.sub(digest, 1, 4), table.concat(field)
end

-- "campaign/row" from a stored value: a handle is digits only (a campaign ID starts with a letter).
local function resolveWhere(wamidsKey, where)
  if not where then return nil end
  local campaignId, row = string.match(where, '^(.+)/(%d+)$')
  if not campaignId then return nil end
  if string.match(campaignId, '^%d+$') then
    campaignId = redis.call('HGET', wamidsKey .. ':campaigns', campaignId)
    if not campaignId then return nil end
  end
  return campaignId, row
end

local function wamidWhere(wamidsKey, wamid)
  local bucket, field = wamidSlot(wamidsKey, wamid)
  local where = redis.call('HGET', bucket, field)
  if not where then where = redis.call('HGET', wamidsKey, wamid) end
  return resolveWhere(wamidsKey, where)
end

-- The campaign's handle on this number, given at its first indexed message.
local function campaignHandle(wamidsKey, campaignKey, campaignId)
  local handle = redis.call('HGET', campaignKey, 'wamidHandle')
  if handle then return handle end
  handle = tostring(redis.call('HINCRBY', wamidsKey .. ':campaigns', 'next', 1))
  redis.call('HSET', wamidsKey .. ':campaigns', handle, campaignId)
  redis.call('HSET', campaignKey, 'wamidHandle', handle)
  return handle
end

local function indexWamid(wamidsKey, campaignKey, campaignId, row, wamid)
  local bucket, field = wamidSlot(wamidsKey, wamid)
  redis.call('HSET', bucket, field, campaignHandle(wamidsKey, campaignKey, campaignId) .. '/' .. row)
end

local function forgetWamid(wamidsKey, wamid, campaignId, row)
  local removed = 0
  local bucket, field = wamidSlot(wamidsKey, wamid)
  local cid, r = resolveWhere(wamidsKey, redis.call('HGET', bucket, field))
  if cid == campaignId and r == tostring(row) then
    redis.call('HDEL', bucket, field)
    removed = 1
  end
  if redis.call('HGET', wamidsKey, wamid) == campaignId .. '/' .. row then
    redis.call('HDEL', wamidsKey, wamid)
    removed = 1
  end
  return removed
end
