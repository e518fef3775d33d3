#!lua
--[[
  The file has been read to its end: ingest is done (and no longer interrupted), so the
  campaign can complete once every row has its answer.

  Input:
    KEYS[1] campaign   hash     <scope>:campaign:<id>

    ARGV[1] clock  ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)

  Output:
    1 when this call completed the campaign, else 0
]]

-- Includes
--- @include "clock"
--- @include "complete-if-done"

redis.call('HSET', KEYS[1], 'ingestDone', '1')
redis.call('HDEL', KEYS[1], 'ingestInterrupted')
return completeIfDone(KEYS[1], ledgerNow(ARGV[1]))
