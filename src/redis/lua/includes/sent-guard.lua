--[[
  The duplicate-send guard of a phone number: message fingerprint → "campaign/row/ms" (the
  claim's time), in the bucket map `<sent>:map` (includes/bucket-map.lua), which lives a
  window after its newest entry and is walked for entries older than the window
  (includes/sent-guard-write.lua). A guard kept as one hash, `<sent>` itself, is still read
  (and forgotten in) until it expires: it was given a window to live at its last write.

  A fingerprint is base64url of a digest already: its first five characters are its address
  (30 bits), with no SHA-1 to pay for each claimed row.

  Defines: fingerprintAddress(f) → number; guardMap(sentKey) → the map's state (includes/bucket-map.lua);
    guardEntry(sentKey, f) → "campaign/row/ms" or nil
]]
--- @include "bucket-map"
--- @include "older-hash"

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

local function guardMap(sentKey)
  return bucketMapState(sentKey .. ':map', fingerprintAddress)
end

local function guardEntry(sentKey, f)
  return bucketMapGet(guardMap(sentKey), f) or olderHashGet(sentKey, f) or nil
end
