--[[
  A portfolio's user links as two bucket maps (includes/bucket-map.lua): `<links>:map` (user ID
  → "<phone digits> <ms>") and `<users>:map` (phone → "<user ID> <ms>"). Links kept as one hash
  each (`<links>`, `<users>` themselves) are still read, and walked by their time, until the
  retention has dropped them.

  Defines: userLinkMap(key) → the map's state; userLinkGet(key, field) → "<value> <ms>" or nil
]]
--- @include "bucket-map"
--- @include "older-hash"

local function userLinkMap(key)
  return bucketMapState(key .. ':map')
end

local function userLinkGet(key, field)
  return bucketMapGet(userLinkMap(key), field) or olderHashGet(key, field) or nil
end
