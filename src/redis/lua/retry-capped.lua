#!lua
--[[
  `send --retry-capped-after`: the rows of one phone number whose marketing-cap failure
  (131049) is older than their campaign's delay (scheduled by settle.lua and apply-statuses.lua,
  includes/capped-retry.lua) go back to the end of their backlog, `queued` under a new job
  number, marked (`cr`) so they are sent again once only. Each is sent only while it would be
  sent at all: not for a cancelled campaign, not past its expiry (its rows would only expire),
  not to a recipient who opted out since; such a row stays `failed` with a detail saying why.
  Its send window holds as for any row: the feeder feeds it when its lane is open.
  Due is judged on the ledger's clock, as the failure time was recorded.

  Input:
    KEYS[1] capped     zset     <scope>:capped-retry:<number> ("campaign/row" → ms it is due)
    KEYS[2] active     zset     <scope>:feed:<number>:campaigns
    KEYS[3] optouts    hash     <scope>:optouts:<number> (phone → source JSON)

    ARGV[1] scope  the number's key scope, <prefix>:{<number>} (src/redis/key-scope.ts)
    ARGV[2] clock  ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)
    ARGV[3] limit  most rows to decide in this call

  Output:
    {rows sent again, rows left failed (cancelled, expired or opted out)}
]]

-- Includes
--- @include "clock"
--- @include "row-codec"
--- @include "row-store"
--- @include "move"
--- @include "backlog"
--- @include "opted-out"

local cappedKey, activeKey, optOutsKey = KEYS[1], KEYS[2], KEYS[3]
local scope, now, limit = ARGV[1], ledgerNow(ARGV[2]), tonumber(ARGV[3])
local due = redis.call('ZRANGEBYSCORE', cappedKey, '-inf', now, 'LIMIT', 0, limit)
local requeued, left = 0, 0
for _, member in ipairs(due) do
  redis.call('ZREM', cappedKey, member)
  local campaignId, row = string.match(member, '^(.+)/(%d+)$')
  local campaignKey = scope .. ':campaign:' .. (campaignId or '')
  local rowsKey = campaignKey .. ':rows'
  local json = campaignId and rowStored(rowsKey, row)
  -- Gone (purged), answered otherwise since, or sent again once already: nothing to do.
  if json then
    local rec = decodeRow(json)
    if rec.s == 'failed' and rec.c == '131049' and not rec.cr and rec.v then
      local held = redis.call('HMGET', campaignKey, 'cancelled', 'expiresAt')
      local why = nil
      if held[1] == '1' then
        why = 'the campaign was cancelled'
      elseif held[2] and now >= tonumber(held[2]) then
        why = 'the campaign had expired'
      elseif optOutsApply(campaignKey) and redis.call('HEXISTS', optOutsKey, rec.p or '') == 1 then
        why = 'the recipient has opted out since'
      end
      rec.cr = 1
      if why then
        rec.d = (rec.d or '') .. '; not sent again after --retry-capped-after: ' .. why
        storeRow(rowsKey, row, encodeRow(rec))
        left = left + 1
      else
        move(campaignKey, rec, 'queued', now)
        rec.d = (rec.d or '') .. '; sent again once after --retry-capped-after'
        rec.k = (rec.k or 0) + 1
        -- Its next failure is its own: apply-statuses.lua keeps a failure's code only when it is the first.
        rec.ft = nil
        storeRow(rowsKey, row, encodeRow(rec))
        redis.call('RPUSH', laneKeyOf(campaignKey .. ':pending', rec), entryOf(row, rec.k))
        activate(campaignKey, activeKey, campaignId)
        redis.call('HDEL', campaignKey, 'finishedAt')
        requeued = requeued + 1
      end
    end
  end
end
return { requeued, left }
