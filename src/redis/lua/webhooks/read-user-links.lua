#!lua flags=no-writes
--[[
  Reads a portfolio's user links (includes/user-link-maps.lua): by user ID from `links`, or by
  phone from `users`.

  Input:
    KEYS[1] map        hash     <portfolio scope>:user:links or :user:users (the map's own hash; its buckets beside it)

    ARGV[1..n] fields  user IDs (links) or phone digits (users)

  Output:
    per field, "<phone or user ID> <ms>", or false when none is known
]]

-- Includes
--- @include "user-link-maps"

local out = {}
for i = 1, #ARGV do out[i] = userLinkGet(KEYS[1], ARGV[i]) or false end
return out
