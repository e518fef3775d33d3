--[[
  A portfolio's user links as two bucket maps (includes/bucket-map.lua): `<links>:map` (user ID
  → phone digits) and `<users>:map` (phone → user ID), each value with the time Meta confirmed
  the link, packed as bytes (includes/packed-value.lua) or, where it does not pack, as text
  "<value> <time>" with the time short (includes/compact-time.lua). In `links` a user ID is kept
  as its digest: a NUL byte, then the first 11 bytes of its SHA-1 (an ID is up to 131
  characters; two of a portfolio's IDs share 88 bits less likely than 1 in 10^10 among 100M),
  whose bytes 2 to 5 are the bucket address the ID's own SHA-1 gives, so an entry an older
  version keyed by the ID itself is in the same bucket and read with it. Callers see
  "<value> <ms>" both ways. Links kept as one hash each (`<links>`, `<users>` themselves) are
  still read, and walked by their time, until the retention has dropped them.

  Defines: linkField(userId) → the field of a user ID in `links`; linkAddress(field) → 32-bit number;
    linksMap(linksKey), usersMap(usersKey) → the map's state; linkStored(text, ms) → what a map keeps;
    linkParts(stored) → text, ms of what a map keeps, or nil; userLinkValue(stored) → "<value> <ms>", or nil;
    linkGet(linksKey, userId), userGet(usersKey, phone) → "<value> <ms>" or nil
]]
--- @include "bucket-map"
--- @include "older-hash"
--- @include "compact-time"
--- @include "packed-value"

local function linkField(userId)
  local digest = redis.sha1hex(userId)
  local bytes = { '\0' }
  for i = 1, 21, 2 do bytes[#bytes + 1] = string.char(tonumber(string.sub(digest, i, i + 1), 16)) end
  return table.concat(bytes)
end

local function linkAddress(field)
  if string.byte(field, 1) ~= 0 then return bucketAddress(field) end
  local a, b, c, d = string.byte(field, 2, 5)
  return ((a * 256 + b) * 256 + c) * 256 + d
end

local function linksMap(linksKey)
  return bucketMapState(linksKey .. ':map', linkAddress)
end

local function usersMap(usersKey)
  return bucketMapState(usersKey .. ':map')
end

local function linkStored(text, ms)
  return packLinkValue(text, ms) or text .. ' ' .. compactSeconds(ms)
end

local function linkParts(stored)
  if isPacked(stored) then return unpackLinkValue(stored) end
  local text, t = string.match(stored, '^(.*) (%w+)$')
  local at = timeOfCompact(t)
  if not at then return nil end
  return text, at
end

local function userLinkValue(stored)
  if not stored then return nil end
  local text, at = linkParts(stored)
  if not text then return nil end
  return text .. ' ' .. string.format('%d', at)
end

local function linkGet(linksKey, userId)
  local stored = redis.call('HMGET', bucketOf(linksMap(linksKey), userId), linkField(userId), userId)
  return userLinkValue(stored[1] or stored[2] or olderHashGet(linksKey, userId) or nil)
end

local function userGet(usersKey, phone)
  return userLinkValue(bucketMapGet(usersMap(usersKey), phone) or olderHashGet(usersKey, phone) or nil)
end
