--[[
  The message-ID index of a phone number: message ID → "campaign/row", kept for the retention
  period, so it is stored small. Its entries live in small hashes chosen by the first `width`
  bits of the ID's SHA-1: `<wamids>:w<width>:<n>` (width 16, the widest: `<wamids>:<4 hex
  digits>`). The field is the 80 bits (10 bytes) after the first 16; the value names the
  campaign by its handle on this number (handle → campaign ID in `<wamids>:campaigns`, field
  `next` the last one given) and the row: row × WAMID_HANDLES + handle, one number that Redis
  keeps as an integer of 3 to 5 bytes, while the handle is below WAMID_HANDLES; "<handle>/<row>"
  after (9 bytes or more).
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

  A script run reads the number's `count` and `widths` once (wamidMeta, kept in wamidMetas) and
  each campaign's handle once (wamidHandles), then keeps them in step with its own writes: a
  settle of many rows pays for them once, not per row, and writes `count` once
  (includes/counts.lua).

  Defines: WAMID_BUCKET_FILL, WAMID_WIDEST, WAMID_HANDLES; wamidValue(handle, row) → the value kept;
    wamidField(digest) → field; wamidBucket(wamidsKey, digest, width) → bucket key; wamidMetas, wamidMeta(wamidsKey) → { count, widths (to try, widest first),
    counted (set) }; wamidWidths(wamidsKey) → widths to try (widest first), set of the counted;
    wamidWidthFor(count) → width; wamidSlot(wamidsKey, wamid) → bucket key, field, digest (where a
    new entry goes); resolveWhere(wamidsKey, stored value) → campaign ID, row (or nil);
    wamidWhere(wamidsKey, wamid) → campaign ID, row (or nil); wamidHandles, campaignHandle(wamidsKey,
    campaignKey, campaignId) → handle; indexWamid(wamidsKey, campaignKey, campaignId, row, wamid);
    forgetWamid(wamidsKey, wamid, campaignId, row) → 1 if it removed an entry of that row, else 0
]]
--- @include "counts"

local WAMID_BUCKET_FILL = 64
local WAMID_WIDEST = 16
local WAMID_HANDLES = 1024

local function wamidValue(handle, row)
  handle = tonumber(handle)
  if handle < WAMID_HANDLES then return string.format('%d', tonumber(row) * WAMID_HANDLES + handle) end
  return handle .. '/' .. row
end

-- Five 16-bit pieces and one string.char, no table: it runs for every message ID a script indexes or looks up.
local function wamidField(digest)
  local a, b, c = tonumber(string.sub(digest, 5, 8), 16), tonumber(string.sub(digest, 9, 12), 16), tonumber(string.sub(digest, 13, 16), 16)
  local d, e = tonumber(string.sub(digest, 17, 20), 16), tonumber(string.sub(digest, 21, 24), 16)
  return string.char(math.floor(a / 256), a % 256, math.floor(b / 256), b % 256, math.floor(c / 256), c % 256,
    math.floor(d / 256), d % 256, math.floor(e / 256), e % 256)
end

local function wamidBucket(wamidsKey, digest, width)
  if width == WAMID_WIDEST then return wamidsKey .. ':' .. string.sub(digest, 1, 4) end
  return wamidsKey .. ':w' .. width .. ':' .. math.floor(tonumber(string.sub(digest, 1, 4), 16) / 2 ^ (WAMID_WIDEST - width))
end

-- The number's count of entries and the widths a lookup tries, widest first, with whether each was counted
-- (width 16 may also hold uncounted older entries): read once a run.
local wamidMetas = {}
local function wamidMeta(wamidsKey)
  local meta = wamidMetas[wamidsKey]
  if meta then return meta end
  local stored = redis.call('HMGET', wamidsKey .. ':campaigns', 'count', 'widths')
  local widths, counted = {}, {}
  for width in string.gmatch(stored[2] or '', '%d+') do
    width = tonumber(width)
    widths[#widths + 1] = width
    counted[width] = true
  end
  table.sort(widths, function(a, b) return a > b end)
  if not counted[WAMID_WIDEST] then widths[#widths + 1] = WAMID_WIDEST end
  meta = { count = math.max(tonumber(stored[1] or '0') or 0, 0), widths = widths, counted = counted }
  wamidMetas[wamidsKey] = meta
  return meta
end

local function wamidWidths(wamidsKey)
  local meta = wamidMeta(wamidsKey)
  return meta.widths, meta.counted
end

local function wamidWidthFor(count)
  local width = 0
  while width < WAMID_WIDEST and count >= WAMID_BUCKET_FILL * 2 ^ width do width = width + 1 end
  return width
end

local function wamidSlot(wamidsKey, wamid)
  local digest = redis.sha1hex(wamid)
  return wamidBucket(wamidsKey, digest, wamidWidthFor(wamidMeta(wamidsKey).count)), wamidField(digest), digest
end

local function resolveWhere(wamidsKey, where)
  if not where then return nil end
  local campaignId, row = string.match(where, '^(.+)/(%d+)$')
  if not campaignId then
    local packed = tonumber(string.match(where, '^%d+$'))
    if not packed then return nil end
    campaignId, row = tostring(packed % WAMID_HANDLES), string.format('%d', math.floor(packed / WAMID_HANDLES))
  end
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
local wamidHandles = {}
local function campaignHandle(wamidsKey, campaignKey, campaignId)
  local handle = wamidHandles[campaignKey] or redis.call('HGET', campaignKey, 'wamidHandle')
  if not handle then
    handle = tostring(redis.call('HINCRBY', wamidsKey .. ':campaigns', 'next', 1))
    redis.call('HSET', wamidsKey .. ':campaigns', handle, campaignId)
    redis.call('HSET', campaignKey, 'wamidHandle', handle)
  end
  wamidHandles[campaignKey] = handle
  return handle
end

local function indexWamid(wamidsKey, campaignKey, campaignId, row, wamid)
  local bucket, field = wamidSlot(wamidsKey, wamid)
  local metaKey = wamidsKey .. ':campaigns'
  if redis.call('HSET', bucket, field, wamidValue(campaignHandle(wamidsKey, campaignKey, campaignId), row)) == 0 then return end
  countAdd(metaKey, 'count', 1)
  local meta = wamidMeta(wamidsKey)
  meta.count = meta.count + 1
  local width = tonumber(string.match(bucket, ':w(%d+):%d+$') or WAMID_WIDEST)
  if not meta.counted[width] then
    redis.call('HSET', metaKey, 'widths', (redis.call('HGET', metaKey, 'widths') or '') .. ' ' .. width)
    -- Read again at the next use, with the count gathered so far: a width joins the list to try.
    flushCounts()
    wamidMetas[wamidsKey] = nil
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
      if counted[width] then
        flushCounts()
        local count = tonumber(redis.call('HINCRBY', wamidsKey .. ':campaigns', 'count', -1))
        if count < 0 then
          count = 0
          redis.call('HSET', wamidsKey .. ':campaigns', 'count', 0)
        end
        wamidMeta(wamidsKey).count = count
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
