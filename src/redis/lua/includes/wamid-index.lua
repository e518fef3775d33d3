--[[
  The message-ID index of a phone number: message ID → "campaign/row", kept for the retention
  period, so it is stored small. Its entries live in small hashes chosen by the first `width`
  bits of the ID's SHA-1: `<wamids>:w<width>:<n>` (width 16, the widest: `<wamids>:<4 hex
  digits>`). The field is the 80 bits (10 bytes) after the first 16; the value names the
  campaign by its handle on this number ("<handle>/<row>", handle → campaign ID in
  `<wamids>:campaigns`, field `next` the last one given).
  The width a new entry gets follows the number's count of entries (field `count` of
  `<wamids>:campaigns`): the narrowest that leaves about WAMID_BUCKET_FILL entries a bucket.
  Small hashes stay listpacks in Redis (hash-max-listpack-entries, 128 by default), about 25 B
  an entry instead of 96 in one big hash, and a few buckets cost less than a key per entry.
  Entries keep the width they were written with: a lookup tries the widths in use (field
  `widths`, widest first), then width 16 (what an older version wrote at any count). At width w
  an entry is told apart by 80 + w bits among the about WAMID_BUCKET_FILL × 2^w entries written
  at that width, so a collision is less likely than 1 in 2^50 below width 16, and than 1 in
  10^13 among 100M IDs at 16: an entry is trusted as the one hash's were.
  Entries written before buckets are in the hash `<wamids>` itself, as message ID →
  "campaign/row"; they are read and forgotten there.

  Defines: WAMID_BUCKET_FILL, WAMID_WIDEST; wamidField(digest) → field; wamidBucket(wamidsKey, digest,
    width) → bucket key; wamidWidths(wamidsKey) → widths to try (widest first), set of the counted;
    wamidWidthFor(count) → width; wamidSlot(wamidsKey, wamid) → bucket key, field, digest (where a
    new entry goes); resolveWhere(wamidsKey, stored value) → campaign ID, row (or nil);
    wamidWhere(wamidsKey, wamid) → campaign ID, row (or nil); campaignHandle(wamidsKey, campaignKey,
    campaignId) → handle; indexWamid(wamidsKey, campaignKey, campaignId, row, wamid);
    forgetWamid(wamidsKey, wamid, campaignId, row) → 1 if it removed an entry of that row, else 0
]]
local WAMID_BUCKET_FILL = 64
local WAMID_WIDEST = 16

local function wamidField(digest)
  local field = {}
  for i = 5, 23, 2 do field[#field + 1] = string.char(tonumber(string.sub(digest, i, i + 1), 16)) end
  return table.concat(field)
end

local function wamidBucket(wamidsKey, digest, width)
  if width == WAMID_WIDEST then return wamidsKey .. ':' .. string.sub(digest, 1, 4) end
  return wamidsKey .. ':w' .. width .. ':' .. math.floor(tonumber(string.sub(digest, 1, 4), 16) / 2 ^ (WAMID_WIDEST - width))
end

-- The widths a lookup tries, widest first, and whether each was counted (width 16 may also hold uncounted older entries).
local function wamidWidths(wamidsKey)
  local listed = redis.call('HGET', wamidsKey .. ':campaigns', 'widths') or ''
  local widths, counted = {}, {}
  for width in string.gmatch(listed, '%d+') do
    width = tonumber(width)
    widths[#widths + 1] = width
    counted[width] = true
  end
  table.sort(widths, function(a, b) return a > b end)
  if not counted[WAMID_WIDEST] then widths[#widths + 1] = WAMID_WIDEST end
  return widths, counted
end

local function wamidWidthFor(count)
  local width = 0
  while width < WAMID_WIDEST and count >= WAMID_BUCKET_FILL * 2 ^ width do width = width + 1 end
  return width
end

local function wamidSlot(wamidsKey, wamid)
  local digest = redis.sha1hex(wamid)
  local count = tonumber(redis.call('HGET', wamidsKey .. ':campaigns', 'count') or '0')
  return wamidBucket(wamidsKey, digest, wamidWidthFor(math.max(count, 0))), wamidField(digest), digest
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
  local digest = redis.sha1hex(wamid)
  local field = wamidField(digest)
  local where = nil
  for _, width in ipairs((wamidWidths(wamidsKey))) do
    where = redis.call('HGET', wamidBucket(wamidsKey, digest, width), field)
    if where then break end
  end
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
  local bucket, field, digest = wamidSlot(wamidsKey, wamid)
  local metaKey = wamidsKey .. ':campaigns'
  if redis.call('HSET', bucket, field, campaignHandle(wamidsKey, campaignKey, campaignId) .. '/' .. row) == 0 then return end
  redis.call('HINCRBY', metaKey, 'count', 1)
  local width = tonumber(string.match(bucket, ':w(%d+):%d+$') or WAMID_WIDEST)
  local _, counted = wamidWidths(wamidsKey)
  if not counted[width] then
    redis.call('HSET', metaKey, 'widths', (redis.call('HGET', metaKey, 'widths') or '') .. ' ' .. width)
  end
end

local function forgetWamid(wamidsKey, wamid, campaignId, row)
  local removed = 0
  local digest = redis.sha1hex(wamid)
  local field = wamidField(digest)
  local widths, counted = wamidWidths(wamidsKey)
  for _, width in ipairs(widths) do
    local bucket = wamidBucket(wamidsKey, digest, width)
    local cid, r = resolveWhere(wamidsKey, redis.call('HGET', bucket, field))
    if cid == campaignId and r == tostring(row) then
      redis.call('HDEL', bucket, field)
      if counted[width] and tonumber(redis.call('HINCRBY', wamidsKey .. ':campaigns', 'count', -1)) < 0 then
        redis.call('HSET', wamidsKey .. ':campaigns', 'count', 0)
      end
      removed = 1
    end
  end
  if redis.call('HGET', wamidsKey, wamid) == campaignId .. '/' .. row then
    redis.call('HDEL', wamidsKey, wamid)
    removed = 1
  end
  return removed
end
