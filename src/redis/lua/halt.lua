#!lua
--[[
  A code that needs a human (expired token, locked account…) halted a claimed row. The
  request was refused, so the duplicate guard forgets it. The row goes back to queued,
  parked for resume (a new job number, the front of the backlog); the campaign pauses with
  the code as its reason (the first halt's reason stays). On a cancelled campaign the row
  is cancelled instead (and, if it was the last open row, the campaign completes). Either
  way the job's work ends: its ID leaves the window.

  Input:
    KEYS[1] campaign   hash     <scope>:campaign:<id>
    KEYS[2] rows       hash     <scope>:campaign:<id>:rows (and its lists `:<n>`: includes/row-store.lua)
    KEYS[3] sent       hash     <scope>:sent:<number> (duplicate guard: includes/sent-guard.lua)
    KEYS[4] window     zset     <scope>:feed:<number>:window
    KEYS[5] active     zset     <scope>:feed:<number>:campaigns
    KEYS[6] pending    list     <scope>:campaign:<id>:pending

    ARGV[1] row            row number
    ARGV[2] job            its job number
    ARGV[3] code           error code
    ARGV[4] detail         error detail
    ARGV[5] clock          ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)
    ARGV[6] campaign-id    campaign ID
    ARGV[7] template-held  '1' when the code is the template's (132015 / 132016) and its hold is set (template-status.lua):
                           the template's pause stands, this halt does not write its own reason over it

  Output:
    {'missing', 0} when there is no such row;
    {status, 0} when the row is not `sending` under this job number (nothing changes);
    {'cancelled', 1 if that completed the campaign else 0};
    {'queued', 0, 1 if this call paused the campaign else 0}
]]

-- Includes
--- @include "clock"
--- @include "row-codec"
--- @include "row-store"
--- @include "complete-if-done"
--- @include "move"
--- @include "backlog"
--- @include "park"
--- @include "pause-if-running"
--- @include "forget-send"

local campaignKey, rowsKey, sentKey, windowKey, activeKey, pendingKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local row, owner, code, detail, now, campaignId = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ledgerNow(ARGV[5]), ARGV[6]
redis.call('ZREM', windowKey, jobIdOf(campaignId, row, owner))
local json = rowStored(rowsKey, row)
if not json then return {'missing', 0} end
local rec = decodeRow(json)
if rec.s ~= 'sending' or (rec.k or 0) ~= tonumber(owner) then return {rec.s, 0} end
forgetSend(sentKey, rec.f, campaignId, row)
rec.c = code; rec.d = detail
if redis.call('HGET', campaignKey, 'cancelled') == '1' then
  move(campaignKey, rec, 'cancelled', now)
  storeRow(rowsKey, row, encodeRow(rec))
  return {'cancelled', completeIfDone(campaignKey, now)}
end
move(campaignKey, rec, 'queued', now)
park(campaignKey, rowsKey, pendingKey, activeKey, campaignId, row, rec)
if ARGV[7] == '1' and redis.call('HGET', campaignKey, 'paused') == '1' then return {'queued', 0, 0} end
return {'queued', 0, pauseIfRunning(campaignKey, code .. ': ' .. detail, now)}
