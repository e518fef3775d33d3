--[[
  A portfolio's user links as two bucket maps (includes/bucket-map.lua): `<links>:map` (user ID
  → "<phone digits> <ms>") and `<users>:map` (phone → "<user ID> <ms>"). Links kept as one hash
  each (`<links>`, `<users>` themselves) are still read, and walked by their time, until the
  retention has dropped them.

  Defines: userLinkMap(key) → the map's state; userLinkOlder, userLinkHasOlder(key) → whether the one hash
    is there (once a run); userLinkGet(key, field) → "<value> <ms>" or nil
]]
--- @include "bucket-map"

local function userLinkMap(key)
  return bucketMapState(key .. ':map')
end

local userLinkOlder = {}
local function userLinkHasOlder(key)
  if userLinkOlder[key] == nil then userLinkOlder[key] = redis.call('EXISTS', key) == 1 end
  return userLinkOlder[key]
end

local function userLinkGet(key, field)
  local value = bucketMapGet(userLinkMap(key), field)
  if not value and userLinkHasOlder(key) then value = redis.call('HGET', key, field) or nil end
  return value
end
