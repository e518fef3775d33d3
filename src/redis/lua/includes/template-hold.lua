--[[
  A template's hold on a campaign that sends it (template-status.lua; apply-statuses.lua for a
  failed status with the template's code). Meta's events PAUSED, DISABLED and ARCHIVED put it
  on, APPROVED, REINSTATED and UNARCHIVED lift it; a send's 132015 is PAUSED, 132016 DISABLED.
  The hold's reason `TEMPLATE_PAUSED: <event> <name> (<language>)[: <detail>]` is kept in
  `templateHold`, and in `pausedReason` when the hold paused the campaign.

  Defines:
    TEMPLATE_HOLDS, TEMPLATE_LIFTS: the events that put the hold on, and lift it; TEMPLATE_CODES: code → event
    templateEventOf(eventOrCode, detail) → the event and the detail to record ('132015' → 'PAUSED', '132015 …')
    holdsTemplate(event), liftsTemplate(event) → true for the events that put the hold on / lift it
    putTemplateHold(campaignKey, event, name, language, detail, now) → 'paused' (the hold paused it),
      'held' (it was paused already), or 'already-held'; for a campaign neither cancelled nor finished
]]
--- @include "events"

local TEMPLATE_HOLDS = { PAUSED = true, DISABLED = true, ARCHIVED = true }
local TEMPLATE_LIFTS = { APPROVED = true, REINSTATED = true, UNARCHIVED = true }
local TEMPLATE_CODES = { ['132015'] = 'PAUSED', ['132016'] = 'DISABLED' }

local function templateEventOf(eventOrCode, detail)
  local event = TEMPLATE_CODES[eventOrCode]
  if not event then return eventOrCode, detail end
  if detail == '' then return event, eventOrCode end
  return event, eventOrCode .. ' ' .. detail
end

local function holdsTemplate(event) return TEMPLATE_HOLDS[event] == true end
local function liftsTemplate(event) return TEMPLATE_LIFTS[event] == true end

local function putTemplateHold(campaignKey, event, name, language, detail, now)
  local f = redis.call('HMGET', campaignKey, 'paused', 'templateHold')
  if f[2] then return 'already-held' end
  local reason = 'TEMPLATE_PAUSED: ' .. event .. ' ' .. name .. ' (' .. language .. ')'
  if detail ~= '' then reason = reason .. ': ' .. detail end
  redis.call('HSET', campaignKey, 'templateHold', reason)
  if f[1] == '1' then return 'held' end
  redis.call('HSET', campaignKey, 'paused', '1', 'pausedReason', reason, 'pausedAt', now)
  emitCampaignEvent(campaignKey, 'campaign.paused', now, reason)
  return 'paused'
end
