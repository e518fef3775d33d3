#!lua
--[[
  A send answered 131049 at once (Meta reports it by status webhook as a rule: apply-statuses.lua
  records those): when the campaign sends a MARKETING template, the recipient's marketing cap
  goes into the number's copy of the portfolio's caps, until the wait after now
  (includes/marketing-cap.lua). The caller then gives it to the rest of the portfolio.

  Input:
    KEYS[1] campaign   hash     <scope>:campaign:<id>
    KEYS[2] caps       zset     <scope>:marketing-caps:<number> (phone → ms the wait ends)

    ARGV[1] clock  ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)
    ARGV[2] wait   the marketing cap's wait (ms)
    ARGV[3] phone  the recipient's phone (+digits)

  Output:
    When the cap's wait ends (ms); 0 when the campaign sends no MARKETING template (no cap).
]]

-- Includes
--- @include "clock"
--- @include "marketing-cap"

local campaignKey, capsKey = KEYS[1], KEYS[2]
local now = ledgerNow(ARGV[1])
if not marketingCapApplies(campaignKey) then return 0 end
local endsAt = now + tonumber(ARGV[2])
recordCap(capsKey, ARGV[3], endsAt, now)
return endsAt
