#!lua flags=no-writes
--[[
  The duplicate-send guard, read only: which rows of a chunk this number already sent the
  same message to within the duplicate window (another row, any campaign). A dry run asks
  it, so its ALREADY_SENT rows are the ones the real send would skip; it writes nothing.

  Input:
    KEYS[1] campaign   hash     <scope>:campaign:<id> (absent for a new campaign)
    KEYS[2] sent       hash     <scope>:sent:<number> (duplicate guard: includes/sent-guard.lua)

    ARGV[1] campaign-id       campaign ID
    ARGV[2] clock             ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)
    ARGV[3] duplicate-window  duplicate window (ms; 0 = off, as is an `allowRepeat` campaign)
    then 2 per row, from ARGV[4] on:
    ARGV[4] row               row number
    ARGV[5] fingerprint       its message fingerprint

  Output:
    {row, detail, row, detail, …} of the rows that would be skipped as ALREADY_SENT
]]

-- Includes
--- @include "clock"
--- @include "prior-send"

local campaignKey, sentKey = KEYS[1], KEYS[2]
local campaignId, now, window = ARGV[1], ledgerNow(ARGV[2]), tonumber(ARGV[3])
if redis.call('HGET', campaignKey, 'allowRepeat') == '1' then window = 0 end
local already = {}
if window > 0 then
  for i = 4, #ARGV, 2 do
    local dup = priorSend(sentKey, ARGV[i + 1], campaignId, ARGV[i], now, window)
    if dup then
      already[#already + 1] = ARGV[i]
      already[#already + 1] = dup
    end
  end
end
return already
