--[[
  The duplicate-send guard of a phone number: message fingerprint → "<handle>/<row>/<time>" (the
  claim's time: includes/compact-time.lua), in the bucket map `<sent>:map` (includes/bucket-map.lua),
  which lives a window after its newest entry and is walked for entries older than the window
  (includes/sent-guard-write.lua). A campaign is named by its handle in this guard, a number the
  map's own hash gives it at its first entry (`c:<campaign ID>` → "<handle> <time of its last
  use>", `h:<handle>` → campaign ID, `next` the last given; includes/sent-guard-write.lua drops a
  handle once no entry in the window can name it): a handle is a few bytes where the ID is
  twenty, in every entry. An
  entry an older version wrote names the campaign by its ID and the time in decimal ms, and is
  read as well (a campaign ID starts with a letter, a handle never does). A guard kept as one
  hash, `<sent>` itself, is still read (and forgotten in) until it expires: it was given a window
  to live at its last write.

  A fingerprint is base64url of a digest already: its first five characters are its address
  (30 bits), with no SHA-1 to pay for each claimed row, and its first GUARD_FIELD characters
  (96 bits) the entry's field: two messages to one number in a window share them less likely
  than 1 in 10^12 at 100M messages. An entry an older version keyed by the whole fingerprint
  is in the same bucket, and read with it.

  Defines: GUARD_FIELD; fingerprintAddress(f) → number; guardField(f) → the entry's field; guardMap(sentKey) → the
    map's state (includes/bucket-map.lua); guardHandles, guardCampaignOf(sentKey, handle) → campaign ID or nil;
    guardOwner(sentKey, entry) → campaign ID, row (text), ms, or nil; guardStored(map, f) → the value kept for `f`
    (its field, else the whole fingerprint), or nil; guardEntry(sentKey, f) → campaign ID, row (text), ms, or nil
]]
--- @include "bucket-map"
--- @include "older-hash"
--- @include "compact-time"

local GUARD_FIELD = 16

-- A base64url character's value (A-Z a-z 0-9 - _ → 0-63); any other byte still gives a number.
local function fingerprintAddress(f)
  local address = 0
  for i = 5, 1, -1 do
    local c = string.byte(f, i) or 0
    local v = c
    if c >= 97 then v = c - 71 elseif c >= 65 then v = c - 65 elseif c >= 48 then v = c + 4 elseif c == 45 then v = 62 elseif c == 95 then v = 63 end
    address = address * 64 + v % 64
  end
  return address
end

local function guardField(f)
  return string.sub(f, 1, GUARD_FIELD)
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

local function guardStored(map, f)
  if #f <= GUARD_FIELD then return bucketMapGet(map, f) end
  local stored = redis.call('HMGET', bucketOf(map, f), guardField(f), f)
  return stored[1] or stored[2] or nil
end

local function guardEntry(sentKey, f)
  return guardOwner(sentKey, guardStored(guardMap(sentKey), f) or olderHashGet(sentKey, f) or nil)
end
