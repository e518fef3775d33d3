#!lua
--[[
  Adds marketing caps (131049) to one copy of a business portfolio's caps: the portfolio's
  own record (in its scope) or a number's copy (in the number's scope, read by its claims).
  Every cap learnt on one number goes to the record and to each number by this one script,
  one call per copy (on Redis Cluster each copy is in a slot of its own), by the rules of
  includes/marketing-cap.lua: the later end wins, ended caps go, so the copies agree whatever
  order the calls run in.

  Input:
    KEYS[1] caps       zset     <scope>:marketing-caps:<number> or <portfolio scope>:marketing-caps (phone → ms the wait ends)

    ARGV[1] clock  ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)
    then 2 per cap, from ARGV[2] on:
    ARGV[2] phone  the recipient's phone (+digits)
    ARGV[3] until  when the wait ends (ms)

  Output:
    Per cap, 1 if it changed this copy, else 0.
]]

-- Includes
--- @include "clock"
--- @include "marketing-cap"

local capsKey, now = KEYS[1], ledgerNow(ARGV[1])
local out = {}
for i = 2, #ARGV, 2 do
  out[#out + 1] = recordCap(capsKey, ARGV[i], tonumber(ARGV[i + 1]), now)
end
return out
