#!lua
--[[
  A relay target is done with one entry: forwarded (its receiver answered 2xx), or dead (not
  taken within HOOK_RETRY_HOURS: copied to the target's dead letters). Its cursor moves past
  the entry and the count goes up in the same step, so a crash leaves the entry either done
  and counted or to be forwarded again (at least once). Only the lease's holder moves the
  cursor, and only forward: a replica that lost its lease while it posted (another took over)
  changes nothing.

  Input:
    KEYS[1] relay     stream   <shared>:webhooks:relay (fields body, at, type, n)
    KEYS[2] cursors   hash     <shared>:relay:cursors (target → '<entry ID> <ordinal>')
    KEYS[3] stats     hash     <shared>:relay:stats (forwarded:<target>, dead:<target> → how many)
    KEYS[4] lease     string   <shared>:relay:lease:<target>
    KEYS[5] dead      stream   <shared>:relay:dead:<target> (the entry's fields, entry, reason, dead_at)

    ARGV[1] target    the target's name
    ARGV[2] owner     the forwarding replica's owner ID
    ARGV[3] entry     the entry's ID
    ARGV[4] ordinal   the entry's `n`
    ARGV[5] outcome   'forwarded' or 'dead'
    ARGV[6] reason    why it is dead (its last failure: 'HTTP 500', 'ECONNREFUSED'); '' when forwarded
    ARGV[7] at        ms now (the dead letter's dead_at)
    ARGV[8] dead-max  dead letters kept per target (the oldest go first)

  Output:
    'done' | 'lost' (another replica holds the lease) | 'behind' (the cursor is past the entry already)
]]
local function parts(id)
  local dash = string.find(id, '-', 1, true)
  return tonumber(string.sub(id, 1, dash - 1)), tonumber(string.sub(id, dash + 1))
end

local function after(a, b)
  local ams, aseq = parts(a)
  local bms, bseq = parts(b)
  return ams > bms or (ams == bms and aseq > bseq)
end

if redis.call('GET', KEYS[4]) ~= ARGV[2] then return 'lost' end
local cursor = redis.call('HGET', KEYS[2], ARGV[1])
if cursor and not after(ARGV[3], string.match(cursor, '^(%S+)')) then return 'behind' end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3] .. ' ' .. ARGV[4])
redis.call('HINCRBY', KEYS[3], ARGV[5] .. ':' .. ARGV[1], 1)
if ARGV[5] == 'dead' then
  local letter = {'entry', ARGV[3], 'reason', ARGV[6], 'dead_at', ARGV[7]}
  local found = redis.call('XRANGE', KEYS[1], ARGV[3], ARGV[3])
  if #found > 0 then
    for _, value in ipairs(found[1][2]) do letter[#letter + 1] = value end
  end
  redis.call('XADD', KEYS[5], 'MAXLEN', '~', ARGV[8], '*', unpack(letter))
end
return 'done'
