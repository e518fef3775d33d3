--[[
  What a campaign sends, as the rules that depend on it read it (opt-outs, Meta's marketing
  cap): 'text' for a text campaign, else its template's category, the one Meta has now
  (template-category.lua keeps it in `templateCategory`) before the one the campaign was
  created with; nil for a campaign not there. Read once per campaign and call.

  Defines: campaignKindMemo, campaignKind(campaignKey)
]]
local campaignKindMemo = {}
local function campaignKind(campaignKey)
  local memo = campaignKindMemo[campaignKey]
  if memo ~= nil then return memo or nil end
  local c = redis.call('HMGET', campaignKey, 'definition', 'templateCategory')
  local kind = false
  if c[1] then
    local definition = cjson.decode(c[1])
    if type(definition.text) == 'table' then kind = 'text' else kind = c[2] or definition.category or false end
  end
  campaignKindMemo[campaignKey] = kind
  return kind or nil
end
