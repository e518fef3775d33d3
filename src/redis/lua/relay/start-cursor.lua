#!lua
--[[
  A relay target's cursor: the last entry of the relay stream it is done with, and that
  entry's ordinal (its `n`, so that the bodies still waiting are the relay's `appended` count
  less it). A target seen for the first time starts at `from` (its first forwarder's start,
  less a margin: a body the intake took for it before its forwarder came up is not skipped)
  with the ordinal of the last entry before it; one that has a cursor keeps it.

  Input:
    KEYS[1] relay     stream   <shared>:webhooks:relay (fields body, at, type, n)
    KEYS[2] cursors   hash     <shared>:relay:cursors (target → '<entry ID> <ordinal>')
    KEYS[3] stats     hash     <shared>:relay:stats (appended → how many)

    ARGV[1] target    the target's name
    ARGV[2] from      entry ID a new target starts after ('<ms>-0')

  Output:
    the cursor, '<entry ID> <ordinal>'
]]
local cursor = redis.call('HGET', KEYS[2], ARGV[1])
if cursor then return cursor end
local ordinal = tonumber(redis.call('HGET', KEYS[3], 'appended') or '0')
local first = redis.call('XRANGE', KEYS[1], '(' .. ARGV[2], '+', 'COUNT', 1)
if #first > 0 then
  local fields = first[1][2]
  for i = 1, #fields, 2 do
    if fields[i] == 'n' then ordinal = tonumber(fields[i + 1]) - 1 end
  end
end
cursor = ARGV[2] .. ' ' .. ordinal
redis.call('HSET', KEYS[2], ARGV[1], cursor)
return cursor
