#!lua
--[[
  Meta's messaging limit belongs to the business portfolio: all its numbers share one count
  of unique users reached in a moving 24 h. A number's feed (feed.lua) sees only its own
  slot, so before it feeds, the feeder takes a lease here, in the portfolio's slot: at most
  `asked` places for new recipients, never more than the limit leaves once the portfolio's
  reach set and every lease still out are counted. reach-commit.lua ends the lease: the
  recipients it was spent on join the reach set and the rest is free again. A lease whose
  feeder died is dropped at its expiry, so places never leak.

  Input:
    KEYS[1] reach      zset     <portfolio scope>:reach (wa_id → ms last fed)
    KEYS[2] leases     hash     <portfolio scope>:leases (lease ID → places granted)
    KEYS[3] expiry     zset     <portfolio scope>:lease-expiry (lease ID → ms it expires)
    KEYS[4] limit      string   <portfolio scope>:messaging-limit ('2000' or 'unlimited', as a worker or webhook last learnt it)

    ARGV[1] clock        ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)
    ARGV[2] lease-id     lease ID
    ARGV[3] asked        places asked
    ARGV[4] lifetime     lease lifetime (ms)
    ARGV[5] fixed-limit  the limit MESSAGING_LIMITS gives ('2000', 'unlimited'), or '' for the stored one

  Output:
    { places granted (-1: no limit applies, nothing is counted), the limit (0 when none) }
]]

-- Includes
--- @include "clock"

local reachKey, leasesKey, expiryKey, limitKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local now = ledgerNow(ARGV[1])
local leaseId, asked, lifetime = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local limitText = ARGV[5]
if limitText == '' then limitText = redis.call('GET', limitKey) or '' end
local limit = tonumber(limitText)
-- Unknown (never read) or unlimited: nothing held back, nothing counted.
if not limit or limit <= 0 then return { -1, 0 } end
local DAY = 86400000
-- Leases of feeders that died: their places are free again.
local expired = redis.call('ZRANGEBYSCORE', expiryKey, '-inf', now)
for _, id in ipairs(expired) do
  redis.call('HDEL', leasesKey, id)
  redis.call('ZREM', expiryKey, id)
end
redis.call('ZREMRANGEBYSCORE', reachKey, '-inf', now - DAY)
local leased = 0
for _, places in ipairs(redis.call('HVALS', leasesKey)) do leased = leased + tonumber(places) end
local granted = math.max(0, math.min(asked, limit - redis.call('ZCARD', reachKey) - leased))
if granted > 0 then
  redis.call('HSET', leasesKey, leaseId, granted)
  redis.call('ZADD', expiryKey, now + lifetime, leaseId)
  redis.call('PEXPIRE', leasesKey, lifetime)
  redis.call('PEXPIRE', expiryKey, lifetime)
end
return { granted, limit }
