#!lua
--[[
  Ends a lease of reach-reserve.lua once its feed has run: the recipients the feed counted
  (new to the number, and those it reached again) join the portfolio's reach set, scored
  with the time they were fed, and the lease goes, so its unspent places and those spent on
  users the portfolio had already reached are free again. Run again for the same lease (a
  feeder recovering a record another left behind), it changes nothing.

  The feed also names the new recipients it held back; those the portfolio reached in the
  last 24 h (through another number) are answered with their time, so the number counts
  them as reached and feeds them without a new place.

  Input:
    KEYS[1] reach      zset     <portfolio scope>:reach (wa_id → ms last fed)
    KEYS[2] leases     hash     <portfolio scope>:leases (lease ID → places granted)
    KEYS[3] expiry     zset     <portfolio scope>:lease-expiry (lease ID → ms it expires)

    ARGV[1] clock     ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)
    ARGV[2] lease-id  lease ID
    ARGV[3] record    the feed's record, JSON {t: ms fed, s: [wa_id new to the number], k: [wa_id reached again]}
    then 1 per held-back recipient, from ARGV[4] on:
    ARGV[4] wa-id     a held-back recipient's wa_id

  Output:
    { users the portfolio reached in the last 24 h, ms its oldest place frees (0: none),
      {wa_id, ms reached, …} for the held-back recipients it has reached }
]]

-- Includes
--- @include "clock"

local reachKey, leasesKey, expiryKey = KEYS[1], KEYS[2], KEYS[3]
local now = ledgerNow(ARGV[1])
local leaseId, record = ARGV[2], cjson.decode(ARGV[3])
local DAY = 86400000
redis.call('ZREMRANGEBYSCORE', reachKey, '-inf', now - DAY)
local fedAt = tonumber(record.t) or now
-- A record recovered more than a day late counts no more.
if fedAt > now - DAY then
  for _, list in ipairs({ record.s or {}, record.k or {} }) do
    for _, waId in ipairs(list) do redis.call('ZADD', reachKey, 'GT', fedAt, waId) end
  end
end
redis.call('HDEL', leasesKey, leaseId)
redis.call('ZREM', expiryKey, leaseId)
local known = {}
for i = 4, #ARGV do
  local at = redis.call('ZSCORE', reachKey, ARGV[i])
  if at then
    known[#known + 1] = ARGV[i]
    known[#known + 1] = at
  end
end
local reached = redis.call('ZCARD', reachKey)
if reached > 0 then redis.call('PEXPIRE', reachKey, DAY) end
local oldest = redis.call('ZRANGE', reachKey, 0, 0, 'WITHSCORES')[2]
return { reached, oldest and (tonumber(oldest) + DAY) or 0, known }
