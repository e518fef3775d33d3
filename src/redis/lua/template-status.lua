#!lua
--[[
  A template's status changed (Meta's `message_template_status_update` webhook, or a send
  answered 132015 / 132016). A campaign that sends that template in that language gets a
  template hold (includes/template-hold.lua): PAUSED, DISABLED and ARCHIVED put it on and pause
  a running or scheduled campaign, APPROVED, REINSTATED and UNARCHIVED lift it; other events
  change nothing. A pause of another kind (the operator's, a halting code's, an interrupted
  ingest's) taken over the hold writes its own reason (includes/pause-if-running.lua), so
  lifting the hold resumes the campaign only while `pausedReason` is still the hold's: a
  campaign the operator also paused stays paused.

  Input:
    KEYS[1] campaign   hash     <scope>:campaign:<id>
    KEYS[2] recent     string   <scope>:campaign:<id>:recent (the brake's bit ring)

    ARGV[1] event     PAUSED, DISABLED, ARCHIVED, APPROVED, REINSTATED, UNARCHIVED, …, or a send's code 132015 / 132016
    ARGV[2] name      template name
    ARGV[3] language  template language
    ARGV[4] detail    Meta's reason, or the send's error (may be empty)
    ARGV[5] clock     ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)

  Output:
    'paused' (held, and paused by this call), 'held' (held; it was paused already),
    'resumed' (hold lifted and the campaign runs again), 'lifted' (hold lifted; another pause stays),
    or why nothing changed: 'missing', 'other-template', 'finished', 'already-held', 'not-held', 'ignored'
]]

-- Includes
--- @include "clock"
--- @include "template-hold"
--- @include "language"

local campaignKey, recentKey = KEYS[1], KEYS[2]
local name, language = ARGV[2], ARGV[3]
local event, detail = templateEventOf(ARGV[1], ARGV[4])
local f = redis.call('HMGET', campaignKey, 'definition', 'cancelled', 'finishedAt', 'paused', 'pausedReason', 'templateHold')
if not f[1] then return 'missing' end
local plan = cjson.decode(f[1]).plan
if type(plan) ~= 'table' or plan.name ~= name or languageKey(plan.language) ~= languageKey(language) then return 'other-template' end
if f[2] == '1' or f[3] then return 'finished' end

if holdsTemplate(event) then return putTemplateHold(campaignKey, event, name, language, detail, ledgerNow(ARGV[5])) end

if liftsTemplate(event) then
  if not f[6] then return 'not-held' end
  redis.call('HDEL', campaignKey, 'templateHold')
  if f[4] ~= '1' or f[5] ~= f[6] then return 'lifted' end
  redis.call('HDEL', campaignKey, 'paused', 'pausedReason', 'pausedAt', 'recentFails', 'recentSends')
  redis.call('DEL', recentKey)
  return 'resumed'
end

return 'ignored'
