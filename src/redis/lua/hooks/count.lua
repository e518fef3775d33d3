#!lua
--[[
  Adds to one of a hook's counters (`retried`), while the hook exists: a hook removed meanwhile
  gets no figures hash back.

  Input:
    KEYS[1] figures  hash     <prefix>:{hook:<name>}:figures

    ARGV[1] field    the counter (queued, delivered, retried, dead)
    ARGV[2] by       how much to add
  Output:
    the counter after, or false when the hook is gone
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
return redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])
