#!lua
--[[
  The pacer's second step, the ceiling. A slot can be reached late (a busy event loop fires
  timers late), and a late send bunches with the next ones. So no window of the sliding log of
  dispatches may hold more than `rate`. A send that would make one do so is not refused: it is
  stamped at the first moment it fits (the rate-th latest stamp plus the window) and told to
  wait until then, and goes without asking again. Sends held back this way are queued in the
  order they asked, each at its own moment, instead of all waking for the same oldest stamp
  to age out and asking again (at 1,000/s that herd made about four asks a send). No stamp
  goes before one already in the log, so every window holds at most `rate`. The member's own
  earlier stamp is dropped first, so a send can be stamped again. A send that leaves late has
  its stamp moved afterwards (depart.lua). A send may be asked for ahead of its slot: it is
  then stamped no earlier than the slot (`ahead`), so the ask's round trip is off the send's
  path and the asks of several sends share one call. The sends a worker asks for together are
  stamped in one call, in the order given. Called with one key, or two when tests keep every
  admission (the caller passes the number of keys).

  Input:
    KEYS[1] sent       zset     <scope>:pacer:<number>:sent (member → admitted at, µs)
    KEYS[2] audit      zset     optional: every admission, never trimmed (tests)

    ARGV[1] rate    sends allowed per window
    ARGV[2] window  its length (µs)
    ARGV[3] now     the time now (µs) instead of Redis's TIME, a test's simulated clock; '' = TIME
    then 2 per send, from ARGV[4] on:
    ARGV[4] member  the send, each unique
    ARGV[5] ahead   how far after now its slot is (µs); 0 = now

  Output:
    per member, in order: the wait until its stamp (µs, a decimal string); '0' = go now
]]
local now = tonumber(ARGV[3])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local rate = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now - window))
local waits = {}
local furthest = now
for i = 4, #ARGV, 2 do
  local member = ARGV[i]
  redis.call('ZREM', KEYS[1], member)
  local at = now + math.max(0, tonumber(ARGV[i + 1]) or 0)
  local latest = redis.call('ZRANGE', KEYS[1], 0, 0, 'REV', 'WITHSCORES')
  if latest[2] and tonumber(latest[2]) > at then at = tonumber(latest[2]) end
  if redis.call('ZCARD', KEYS[1]) >= rate then
    -- The rate-th latest stamp must be out of the window that ends at this one.
    local bound = tonumber(redis.call('ZRANGE', KEYS[1], rate - 1, rate - 1, 'REV', 'WITHSCORES')[2]) + window + 1
    if bound > at then at = bound end
  end
  local score = string.format('%.0f', at)
  redis.call('ZADD', KEYS[1], score, member)
  if KEYS[2] then redis.call('ZADD', KEYS[2], score, member) end
  if at > furthest then furthest = at end
  waits[#waits + 1] = string.format('%.0f', at - now)
end
redis.call('PEXPIRE', KEYS[1], 2000 + math.ceil((furthest - now) / 1000))
return waits
