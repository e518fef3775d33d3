#!lua
--[[
  Cancels a campaign. The rows still in the backlog are cancelled as a block: their counts
  move to `cancelled` and the backlog goes, so cancel costs the same for ten rows or a
  million (their records still say queued, which in a cancelled campaign reads as
  cancelled: RedisLedger.rows). Rows already fed are cancelled by their claim; rows in
  flight keep their answer. An ingest that was interrupted will not be continued: the rows
  read are all the campaign has, so it can complete once they are answered.

  Input:
    KEYS[1] campaign   hash     <scope>:campaign:<id>
    KEYS[2] pending    list     <scope>:campaign:<id>:pending
    KEYS[3] active     zset     <scope>:feed:<number>:campaigns

    ARGV[1] campaign-id  campaign ID
    ARGV[2] clock        ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)
    ARGV[3] reason       reason, kept as cancelReason ('' = by the operator: none kept)

  Output:
    {outcome, rows cancelled}: outcome 'cancelled' (again, for a campaign cancelled
    before), or 'missing' / 'completed' with 0
]]

-- Includes
--- @include "clock"
--- @include "complete-if-done"
--- @include "end-backlog"
--- @include "events"

local campaignKey, pendingKey, activeKey = KEYS[1], KEYS[2], KEYS[3]
local f = redis.call('HMGET', campaignKey, 'definition', 'finishedAt', 'cancelled', 'ingestInterrupted')
if not f[1] then return {'missing', 0} end
if f[2] and f[3] ~= '1' then return {'completed', 0} end
redis.call('HSET', campaignKey, 'cancelled', '1')
redis.call('HDEL', campaignKey, 'paused', 'pausedReason', 'pausedAt', 'templateHold')
if f[4] then
  redis.call('HSET', campaignKey, 'ingestDone', '1')
  redis.call('HDEL', campaignKey, 'ingestInterrupted')
end
if ARGV[3] and ARGV[3] ~= '' then redis.call('HSET', campaignKey, 'cancelReason', ARGV[3]) end
-- Its event once: a campaign cancelled again says nothing new.
if f[3] ~= '1' then emitCampaignEvent(campaignKey, 'campaign.cancelled', ledgerNow(ARGV[2]), ARGV[3]) end
local unfed = endBacklog(campaignKey, pendingKey, 'cancelled')
redis.call('ZREM', activeKey, ARGV[1])
completeIfDone(campaignKey, ledgerNow(ARGV[2]))
return {'cancelled', unfed}
