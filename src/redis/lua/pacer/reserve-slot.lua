#!lua
--[[
  The pacer's first step, spacing: GCRA (generic cell rate algorithm) on Redis's clock. Each
  send reserves the next slot, exactly one interval after the previous one, for every worker
  of the phone number, so sends leave evenly spaced instead of in bursts and no waiter polls.
  Redis's TIME is the one clock every worker shares (the ledger's test clock does not move it).
  The sends a worker starts in one turn of its event loop reserve their slots in one call:
  `count` consecutive slots, the first of them answered.

  Input:
    KEYS[1] slot       string   <scope>:pacer:<number>:slot (the next free slot, µs)

    ARGV[1] interval  between sends (µs)
    ARGV[2] count     slots to reserve, one after the other
    ARGV[3] now       optional: the time now (µs) instead of Redis's TIME; a test's simulated clock

  Output:
    the wait until the first of these slots (µs, a decimal string); the others follow it an
    interval apart
]]
local now = tonumber(ARGV[3])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
redis.call('SET', KEYS[1], string.format('%.0f', tat + tonumber(ARGV[1]) * tonumber(ARGV[2])), 'PX', 60000)
return string.format('%.0f', tat - now)
