#!lua
--[[
  Marks an unfinished ingest: pauses the campaign and keeps the reason as the mark
  (lift-ingest-pause.lua compares them); ingest is no longer done, nor the campaign
  finished.

  Input:
    KEYS[1] campaign   hash     <scope>:campaign:<id>

    ARGV[1] reason  why, kept as ingestInterrupted and pausedReason
    ARGV[2] clock   ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)

  Output:
    1 if marked (the campaign exists and is not cancelled), else 0
]]

-- Includes
--- @include "clock"
--- @include "pause-if-running"

local f = redis.call('HMGET', KEYS[1], 'definition', 'cancelled', 'finishedAt')
if not f[1] or f[2] == '1' then return 0 end
redis.call('HSET', KEYS[1], 'ingestInterrupted', ARGV[1])
redis.call('HDEL', KEYS[1], 'ingestDone', 'finishedAt')
pauseIfRunning(KEYS[1], ARGV[1], ledgerNow(ARGV[2]))
return 1
