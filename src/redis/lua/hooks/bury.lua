#!lua
--[[
  A batch retried for HOOK_RETRY_HOURS: its entries move from the outbox to the dead letters
  (`hooks failed NAME` shows them, `hooks redeliver NAME` queues them again), with the time and
  the last attempt's answer, counted dead, in one step: an event is in one of the two, never
  both or neither.

  Input:
    KEYS[1] figures  hash     <prefix>:{hook:<name>}:figures
    KEYS[2] outbox   stream   <prefix>:{hook:<name>}:outbox
    KEYS[3] dead     stream   <prefix>:{hook:<name>}:dead (fields e: the event as JSON, at: ms given up, why: the last answer)

    ARGV[1] at       ms given up
    ARGV[2] reason   the last attempt's answer (HTTP 500, ECONNREFUSED, …)
    then 1 per entry, from ARGV[3] on:
    ARGV[3] entry    an outbox entry ID
  Output:
    the number of events moved
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local moved = 0
for i = 3, #ARGV do
  local entries = redis.call('XRANGE', KEYS[2], ARGV[i], ARGV[i])
  local entry = entries[1]
  if entry then
    local fields = entry[2]
    local event
    for j = 1, #fields, 2 do
      if fields[j] == 'e' then event = fields[j + 1] end
    end
    if event then redis.call('XADD', KEYS[3], '*', 'e', event, 'at', ARGV[1], 'why', ARGV[2]) end
    redis.call('XDEL', KEYS[2], ARGV[i])
    moved = moved + 1
  end
end
if moved > 0 then redis.call('HINCRBY', KEYS[1], 'dead', moved) end
return moved
