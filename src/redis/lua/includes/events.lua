--[[
  A campaign's outbound events (src/events/campaign-event.ts): a row sent, delivered, read,
  failed, replied, opted out or clicked, a campaign started, paused, completed or cancelled.
  Written in the same step as the change they report, so an event is never lost between the
  two and a row's events are in the order its changes were made. Only a campaign with
  `events` = '1' in its hash emits (set while any outbound hook exists: src/redis/events/):
  without hooks, nothing is written.

  The events go to its number's stream `<scope>:events` (built from the campaign's key: same
  slot), fields `t` type, `c` campaign ID, `at` ms on the ledger's clock, and as they apply
  `r` row, `p` phone, `w` message ID, `code`, `detail`, `reason`, `reply`, `url`. `serve`
  hands them to each hook's outbox (src/redis/events/event-fanout.ts) and deletes them.

  Defines: emitRowEvent(campaignKey, row, kind, rec, now, extra), emitCampaignEvent(campaignKey, kind, now, reason),
    eventsWanted(campaignKey) → its events flag (cached in eventsOn for the script's run), emitEvent (their common
    step), EVENT_FIELD_ORDER
]]
local eventsOn = {}
local EVENT_FIELD_ORDER = { 'w', 'code', 'detail', 'reason', 'reply', 'url' }

local function eventsWanted(campaignKey)
  local on = eventsOn[campaignKey]
  if on == nil then
    on = redis.call('HGET', campaignKey, 'events') == '1'
    eventsOn[campaignKey] = on
  end
  return on
end

local function emitEvent(campaignKey, kind, now, fields, extra)
  local scope, campaignId = string.match(campaignKey, '^(.*}):campaign:([^:]+)$')
  if not scope then return end
  local args = { scope .. ':events', '*', 't', kind, 'c', campaignId, 'at', string.format('%d', now) }
  for _, pair in ipairs(fields) do
    args[#args + 1] = pair[1]; args[#args + 1] = pair[2]
  end
  if extra then
    for _, name in ipairs(EVENT_FIELD_ORDER) do
      local value = extra[name]
      if value ~= nil and value ~= '' then args[#args + 1] = name; args[#args + 1] = tostring(value) end
    end
  end
  redis.call('XADD', unpack(args))
end

local function emitRowEvent(campaignKey, row, kind, rec, now, extra)
  if not eventsWanted(campaignKey) then return end
  emitEvent(campaignKey, kind, now, { { 'r', tostring(row) }, { 'p', rec.p or '' } }, extra)
end

local function emitCampaignEvent(campaignKey, kind, now, reason)
  if not eventsWanted(campaignKey) then return end
  emitEvent(campaignKey, kind, now, {}, { reason = reason })
end
