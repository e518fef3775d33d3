#!lua
--[[
  Pauses a campaign (the operator's pause). No row is fed or claimed any more; rows
  already fed park at their claim. On a campaign only a template holds, the operator's pause
  takes over (its reason replaces the template's), so the template's reinstatement leaves it paused.

  Input:
    KEYS[1] campaign   hash     <scope>:campaign:<id>

    ARGV[1] reason  why, kept as pausedReason
    ARGV[2] clock   ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)

  Output:
    'paused', or why not: 'missing', 'cancelled', 'completed', 'already-paused'
]]

-- Includes
--- @include "clock"
--- @include "pause-if-running"

local f = redis.call('HMGET', KEYS[1], 'definition', 'cancelled', 'finishedAt')
if not f[1] then return 'missing' end
if f[2] == '1' then return 'cancelled' end
if f[3] then return 'completed' end
if pauseIfRunning(KEYS[1], ARGV[1], ledgerNow(ARGV[2])) == 0 then return 'already-paused' end
return 'paused'
