--[[
  Reading a small hash (includes/small-hash.lua says how it is laid out): where a field is, and
  its value. Apart from the writes so that a read-only script (`#!lua flags=no-writes`) can
  include it.

  Defines: SMALL_HASH_FILL; smallHashLayout(base) → level, split, count; smallHashBuckets(level,
    split) → how many; smallHashCode(field) → its code; smallHashBucket(base, field, level, split)
    → bucket key; smallHashGet(base, field) → value or nil
]]
local SMALL_HASH_FILL = 40

local function smallHashLayout(base)
  local state = redis.call('HMGET', base .. ':meta', 'level', 'split', 'count')
  return tonumber(state[1] or '0'), tonumber(state[2] or '0'), tonumber(state[3] or '0')
end

local function smallHashBuckets(level, split)
  return 2 ^ level + split
end

local function smallHashCode(field)
  return tonumber(string.sub(redis.sha1hex(field), 1, 8), 16)
end

local function smallHashBucket(base, field, level, split)
  local code = smallHashCode(field)
  local n = code % 2 ^ level
  if n < split then n = code % 2 ^ (level + 1) end
  return base .. ':' .. string.format('%d', n)
end

local function smallHashGet(base, field)
  local level, split = smallHashLayout(base)
  local value = redis.call('HGET', smallHashBucket(base, field, level, split), field)
  if value then return value end
  return nil
end
