#!lua flags=no-writes
--[[
  Reads a portfolio's user links (includes/user-link-maps.lua): by user ID from `links`, then by
  phone from `users`, in one call.

  Input:
    KEYS[1] links      hash     <portfolio scope>:user:links (the map's own hash; its buckets beside it)
    KEYS[2] users      hash     <portfolio scope>:user:users (the same)

    ARGV[1] link-count  how many of the fields after it are user IDs (read in `links`); the rest are phones (`users`)
    ARGV[2..]           the fields

  Output:
    per field, "<phone or user ID> <ms>", or false when none is known
]]

-- Includes
--- @include "user-link-maps"

local linkCount = tonumber(ARGV[1])
local out = {}
for i = 2, #ARGV do
  if i - 1 <= linkCount then
    out[i - 1] = linkGet(KEYS[1], ARGV[i]) or false
  else
    out[i - 1] = userGet(KEYS[2], ARGV[i]) or false
  end
end
return out
