--[[
  The duplicate-send guard of a phone number: message fingerprint → the campaign, row and time
  of its last claim, in the bucket map `<sent>:map` (includes/bucket-map.lua), which lives a
  window after its newest entry and is walked for entries older than the window
  (includes/sent-guard-write.lua). An entry is packed as bytes (includes/packed-value.lua: the
  campaign's handle, the row, the claim's ms), or, past what that holds, text
  "<handle>/<row>/<time>" (includes/compact-time.lua). A campaign is named by its handle in this
  guard, a number the map's own hash gives it at its first entry (`c:<campaign ID>` → "<handle>
  <time of its last use>", `h:<handle>` → campaign ID, `next` the last given;
  includes/sent-guard-write.lua drops a handle once no entry in the window can name it): a
  handle is a byte or two where the ID is twenty, in every entry. An entry an older version
  wrote as text is read as well, also one that names the campaign by its ID and the time in
  decimal ms (a campaign ID starts with a letter, a handle never does). A guard kept as one
  hash, `<sent>` itself, is still read (and forgotten in) until it expires: it was given a
  window to live at its last write.

  A fingerprint is base64url of a digest already: its first five characters are its address
  (30 bits), with no SHA-1 to pay for each claimed row, and its first GUARD_FIELD characters
  (96 bits), as the GUARD_FIELD_BYTES bytes they make, the entry's field: two messages to one
  number in a window share them less likely than 1 in 10^12 at 100M messages. An entry an older
  version keyed by those characters as text, or by the whole fingerprint, is in the same bucket,
  and read with it.

  Defines: GUARD_FIELD, GUARD_FIELD_BYTES; base64urlValue(byte) → 0-63, or nil; fingerprintAddress(f or field)
    → number; guardField(f) → the entry's field; guardMap(sentKey) → the map's state (includes/bucket-map.lua);
    guardHandles, guardCampaignOf(sentKey, handle) → campaign ID or nil; guardOwner(sentKey, entry) → campaign
    ID, row (text), ms, or nil; guardStored(map, f) → the value kept for `f` (by its field, else as an older
    version keyed it), or nil; guardEntry(sentKey, f) → campaign ID, row (text), ms, or nil
]]
--- @include "bucket-map"
--- @include "older-hash"
--- @include "compact-time"
--- @include "packed-value"

local GUARD_FIELD = 16
local GUARD_FIELD_BYTES = 12

-- A base64url character's value (A-Z a-z 0-9 - _ → 0-63), or nil for any other byte.
local function base64urlValue(c)
  if c >= 97 and c <= 122 then return c - 71 end
  if c >= 65 and c <= 90 then return c - 65 end
  if c >= 48 and c <= 57 then return c + 4 end
  if c == 45 then return 62 end
  if c == 95 then return 63 end
  return nil
end

-- The first five characters' 30 bits, the first character lowest. A field of GUARD_FIELD_BYTES is
-- those characters' bytes (guardField), and gives the same number from its first 30 bits.
local function fingerprintAddress(f)
  if #f == GUARD_FIELD_BYTES then
    local a, b, c, d = string.byte(f, 1, 4)
    local v1, v2, v3, v4, v5 = (a - a % 4) / 4, (a % 4) * 16 + (b - b % 16) / 16, (b % 16) * 4 + (c - c % 64) / 64, c % 64, (d - d % 4) / 4
    return (((v5 * 64 + v4) * 64 + v3) * 64 + v2) * 64 + v1
  end
  local address = 0
  for i = 5, 1, -1 do
    local c = string.byte(f, i) or 0
    address = address * 64 + (base64urlValue(c) or c) % 64
  end
  return address
end

-- The bytes of the first GUARD_FIELD characters, or those characters themselves when they are
-- not all base64url (or fewer).
local function guardField(f)
  if #f < GUARD_FIELD then return f end
  local bytes = {}
  for i = 1, GUARD_FIELD, 4 do
    local a, b, c, d = string.byte(f, i, i + 3)
    a, b, c, d = base64urlValue(a), base64urlValue(b), base64urlValue(c), base64urlValue(d)
    if not (a and b and c and d) then return string.sub(f, 1, GUARD_FIELD) end
    bytes[#bytes + 1] = a * 4 + (b - b % 16) / 16
    bytes[#bytes + 1] = (b % 16) * 16 + (c - c % 4) / 4
    bytes[#bytes + 1] = (c % 4) * 64 + d
  end
  return string.char(unpack(bytes))
end

local function guardMap(sentKey)
  return bucketMapState(sentKey .. ':map', fingerprintAddress)
end

-- Campaign ID → handle and back, per guard, as a run has read or given them.
local guardHandles = {}
local function guardCampaignOf(sentKey, handle)
  local known = guardHandles[sentKey]
  if known and known.ids[handle] then return known.ids[handle] end
  return redis.call('HGET', sentKey .. ':map', 'h:' .. handle) or nil
end

local function guardOwner(sentKey, entry)
  if not entry then return nil end
  if isPacked(entry) then
    local handle, row, at = unpackGuardValue(entry)
    if not handle then return nil end
    local owner = guardCampaignOf(sentKey, tostring(handle))
    if not owner then return nil end
    return owner, tostring(row), at
  end
  local owner, row, at = string.match(entry, '^(.*)/(%d+)/(%w+)$')
  if not owner then return nil end
  if string.match(owner, '^%d+$') then
    owner = guardCampaignOf(sentKey, owner)
    if not owner then return nil end
  end
  at = timeOfCompact(at)
  if not at then return nil end
  return owner, row, at
end

-- Where older versions keyed it too: by the first GUARD_FIELD characters, or by the whole fingerprint.
local function guardStored(map, f)
  local field = guardField(f)
  if field == f then return bucketMapGet(map, f) end
  local stored = redis.call('HMGET', bucketOf(map, f), field, string.sub(f, 1, GUARD_FIELD), f)
  return stored[1] or stored[2] or stored[3] or nil
end

local function guardEntry(sentKey, f)
  return guardOwner(sentKey, guardStored(guardMap(sentKey), f) or olderHashGet(sentKey, f) or nil)
end
