#!lua
--[[
  Writes user links the caller decided are newer (src/redis/webhooks/redis-user-links.ts), in
  both maps in one step (includes/user-link-maps.lua), and takes each out of the one hash an
  older version kept.

  Input:
    KEYS[1] links      hash     <portfolio scope>:user:links (user ID → "<phone> <ms>")
    KEYS[2] users      hash     <portfolio scope>:user:users (phone → "<user ID> <ms>")

    ARGV[1] link-count  how many (user ID, value) pairs for `links` follow; the pairs after them are for `users`
    ARGV[2..]           field, value, field, value, …

  Output:
    how many entries it wrote
]]

-- Includes
--- @include "user-link-maps"
--- @include "bucket-map-write"

local linkCount = tonumber(ARGV[1])
local written = 0
for i = 2, #ARGV, 2 do
  local key = KEYS[2]
  if (i - 2) / 2 < linkCount then key = KEYS[1] end
  bucketMapSet(userLinkMap(key), ARGV[i], ARGV[i + 1], 0)
  -- One place for each link: an older copy in the one hash would outlive it there.
  if olderHashExists(key) then redis.call('HDEL', key, ARGV[i]) end
  written = written + 1
end
return written
