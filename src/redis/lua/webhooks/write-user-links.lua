#!lua
--[[
  Writes user links the caller decided are newer (src/redis/webhooks/redis-user-links.ts), in
  both maps in one step (includes/user-link-maps.lua: a user ID as its digest in `links`, the
  values packed as bytes), and takes each out of where an older version kept it: the entry
  keyed by the user ID itself in the same bucket, and the one hash.

  Input:
    KEYS[1] links      hash     <portfolio scope>:user:links (user ID → "<phone> <ms>")
    KEYS[2] users      hash     <portfolio scope>:user:users (phone → "<user ID> <ms>")

    ARGV[1] link-count  how many (user ID, value) pairs for `links` follow; the pairs after them are for `users`
    ARGV[2..]           field, value ("<phone or user ID> <ms>"), field, value, …

  Output:
    how many entries it wrote
]]

-- Includes
--- @include "user-link-maps"
--- @include "bucket-map-write"

local linkCount = tonumber(ARGV[1])
local written = 0
for i = 2, #ARGV, 2 do
  local field = ARGV[i]
  local value, at = string.match(ARGV[i + 1], '^(.*) (%d+)$')
  if value then
    local stored = linkStored(value, tonumber(at))
    if (i - 2) / 2 < linkCount then
      local map = linksMap(KEYS[1])
      bucketMapSet(map, linkField(field), stored, 0)
      bucketMapDel(map, field)
      if olderHashExists(KEYS[1]) then redis.call('HDEL', KEYS[1], field) end
    else
      bucketMapSet(usersMap(KEYS[2]), field, stored, 0)
      if olderHashExists(KEYS[2]) then redis.call('HDEL', KEYS[2], field) end
    end
    written = written + 1
  end
end
return written
