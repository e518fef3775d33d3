#!lua
--[[
  A portfolio's user links not confirmed for RETENTION_DAYS go, as the campaigns that brought
  them do: a step of the walk through the `links` map (includes/bucket-map-write.lua: a link's
  value ends in the time Meta last confirmed it), and with each link dropped its phone's entry in
  `users` when that still names the same user ID (a phone whose user ID changed keeps the
  newer one). Links kept as one hash are walked the same way (includes/walk-by-time.lua).
  Events parked for a user ID past the retention go too, a page a call. In the portfolio's
  slot: the maps' buckets are `<links>:map:<i>`, `<users>:map:<i>`; the parked events' lists
  are `<pending>:<user ID>`.

  Input:
    KEYS[1] links      hash     <portfolio scope>:user:links (user ID → "<phone> <ms>")
    KEYS[2] users      hash     <portfolio scope>:user:users (phone → "<user ID> <ms>")
    KEYS[3] pending    zset     <portfolio scope>:user:pending (user ID → ms an event was last parked)

    ARGV[1] now        ms (the caller's clock: links carry Meta's times)
    ARGV[2] retention  RETENTION_DAYS in ms

  Output:
    how many links it dropped
]]

-- Includes
--- @include "user-link-maps"
--- @include "bucket-map-write"
--- @include "walk-by-time"

local linksKey, usersKey, pendingKey = KEYS[1], KEYS[2], KEYS[3]
local now, retention = tonumber(ARGV[1]), tonumber(ARGV[2])
local dropped = bucketMapWalk(linksMap(linksKey), now, retention)
local droppedOlder = {}
if olderHashExists(linksKey) then droppedOlder = walkByTime(linksKey, now, retention) end
-- `link` is the field a link was dropped by: a user ID's digest, or the ID itself where an older version wrote it.
local function namesUser(user, link)
  local userId = user and linkParts(user)
  return userId ~= nil and (userId == link or linkField(userId) == link)
end
local function forgetUser(link, value)
  local phone = linkParts(value)
  if not phone then return end
  local map = usersMap(usersKey)
  if namesUser(bucketMapGet(map, phone), link) then bucketMapDel(map, phone) end
  if namesUser(olderHashGet(usersKey, phone), link) then redis.call('HDEL', usersKey, phone) end
end
for i = 1, #dropped, 2 do forgetUser(dropped[i], dropped[i + 1]) end
for i = 1, #droppedOlder, 2 do forgetUser(droppedOlder[i], droppedOlder[i + 1]) end
local stalePending = redis.call('ZRANGEBYSCORE', pendingKey, '-inf', now - retention, 'LIMIT', 0, 100)
for _, userId in ipairs(stalePending) do
  redis.call('ZREM', pendingKey, userId)
  redis.call('DEL', pendingKey .. ':' .. userId)
end
return (#dropped + #droppedOlder) / 2
