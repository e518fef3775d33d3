#!lua
--[[
  `hooks redeliver NAME`: the oldest dead letters go back to the outbox, in their order, each
  queued again (and counted queued) with a new retry window; called until it answers 0.

  Input:
    KEYS[1] figures  hash     <prefix>:{hook:<name>}:figures
    KEYS[2] outbox   stream   <prefix>:{hook:<name>}:outbox
    KEYS[3] dead     stream   <prefix>:{hook:<name>}:dead

    ARGV[1] at       ms queued again
    ARGV[2] max      dead letters to move in this call
  Output:
    the number of events moved
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local entries = redis.call('XRANGE', KEYS[3], '-', '+', 'COUNT', tonumber(ARGV[2]))
for _, entry in ipairs(entries) do
  local fields = entry[2]
  for j = 1, #fields, 2 do
    if fields[j] == 'e' then redis.call('XADD', KEYS[2], '*', 'e', fields[j + 1], 'q', ARGV[1]) end
  end
  redis.call('XDEL', KEYS[3], entry[1])
end
if #entries > 0 then redis.call('HINCRBY', KEYS[1], 'queued', #entries) end
return #entries
