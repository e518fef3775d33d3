#!lua
--[[
  A template's category changed at Meta (`template_category_update`). A campaign that sends
  that template in that language and has not finished takes the category Meta has now, in its
  hash field `templateCategory`: the checks made at each claim and retry (opt-outs, Meta's
  marketing cap: includes/campaign-kind.lua) read it before the category the campaign was
  created with, so a template moved to MARKETING is sent as marketing from the next claim on.

  Input:
    KEYS[1] campaign   hash     <scope>:campaign:<id>

    ARGV[1] name      template name
    ARGV[2] language  template language
    ARGV[3] category  the new category: MARKETING, UTILITY or AUTHENTICATION

  Output:
    'changed', or why nothing changed: 'missing', 'other-template', 'finished', 'same'
]]

-- Includes
--- @include "language"

local c = redis.call('HMGET', KEYS[1], 'definition', 'finishedAt', 'templateCategory')
if not c[1] then return 'missing' end
local definition = cjson.decode(c[1])
local plan = definition.plan
if type(plan) ~= 'table' or plan.name ~= ARGV[1] or languageKey(plan.language) ~= languageKey(ARGV[2]) then return 'other-template' end
if c[2] then return 'finished' end
if (c[3] or definition.category) == ARGV[3] then return 'same' end
redis.call('HSET', KEYS[1], 'templateCategory', ARGV[3])
return 'changed'
