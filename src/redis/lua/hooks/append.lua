#!lua
--[[
  Puts events in a hook's outbox (the fanout, src/redis/events/event-fanout.ts), and counts
  them queued, in one step. Only while the hook exists (its figures hash is its mark): a hook
  removed while the fanout was reading gets nothing, and no outbox is left behind.

  Input:
    KEYS[1] figures  hash     <prefix>:{hook:<name>}:figures
    KEYS[2] outbox   stream   <prefix>:{hook:<name>}:outbox (fields e: the event as JSON, q: ms queued)

    ARGV[1] at       ms queued (the retries' window starts here)
    then 1 per event, from ARGV[2] on:
    ARGV[2] event    the event as JSON (src/events/campaign-event.ts)
  Output:
    the number of events queued (0 when the hook is gone)
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 2, #ARGV do
  redis.call('XADD', KEYS[2], '*', 'e', ARGV[i], 'q', ARGV[1])
end
redis.call('HINCRBY', KEYS[1], 'queued', #ARGV - 1)
return #ARGV - 1
