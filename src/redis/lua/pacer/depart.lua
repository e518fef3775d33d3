#!lua
--[[
  The pacer's correction for a send that left late. `admit` stamps a send when it lets it
  through; a send that then waits (a stalled event loop, a wait for a connection) leaves
  later and would bunch at the receiver with the sends admitted after it. Moving its stamp
  by how late it left (beyond a small allowance the guard covers) makes every later
  admission count it where it really is, so the ceiling holds for departures, not just for
  admissions. A stamp already trimmed (the send left more than a window late) is put back at
  the time now, which is no earlier than when it left. The sends a worker sees leave late in
  one turn of its event loop are moved in one call. Called with one key, or two when tests
  keep every admission.

  Input:
    KEYS[1] sent       zset     <scope>:pacer:<number>:sent (member → admitted at, µs)
    KEYS[2] audit      zset     optional: every admission, never trimmed (tests)

    ARGV[1] the time now (µs) instead of Redis's TIME, a test's simulated clock; '' = TIME
    ARGV[2…] pairs: a send's member, as admitted, then how far to move it, µs (how late it
             left, beyond the allowance)

  Output:
    per send, in order: its stamp now (µs, a decimal string)
]]
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local stamps = {}
for i = 2, #ARGV, 2 do
  local member = ARGV[i]
  local stamp = redis.call('ZSCORE', KEYS[1], member)
  if stamp then
    stamp = tonumber(stamp) + tonumber(ARGV[i + 1])
  else
    stamp = now
  end
  local score = string.format('%.0f', stamp)
  redis.call('ZADD', KEYS[1], score, member)
  if KEYS[2] then redis.call('ZADD', KEYS[2], score, member) end
  stamps[#stamps + 1] = score
end
redis.call('PEXPIRE', KEYS[1], 2000)
return stamps
