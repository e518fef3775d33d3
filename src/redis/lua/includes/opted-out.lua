--[[
  Opt-outs at send time (claim, retry): whether a campaign is one the recipients' opt-outs
  apply to, as the ingest check decides it (src/campaigns/create-campaign.ts): a MARKETING
  template, or a text (its words could be marketing); utility and authentication templates
  still reach an opted-out recipient. And the detail an OPTED_OUT row keeps, from the
  opt-out's source JSON (src/campaigns/ingest/opted-out.ts words the ingest's).

  Defines: optOutsApply(campaignKey), optedOutDetail(sourceJson, campaignKey)
]]

-- Includes
--- @include "campaign-kind"

local function optOutsApply(campaignKey)
  local kind = campaignKind(campaignKey)
  return kind == 'text' or kind == 'MARKETING'
end

local function optedOutDetail(sourceJson, campaignKey)
  local ok, source = pcall(cjson.decode, sourceJson or '')
  if not ok or type(source) ~= 'table' then source = {} end
  local how
  if source.via == 'keyword' then
    how = 'they answered with an opt-out keyword'
  elseif source.via == 'user_preferences' then
    how = 'they stopped marketing messages in WhatsApp'
  elseif source.via == 'operator' then
    how = 'added by `campaign optouts add`'
  else
    how = 'Meta answered 131050 to campaign ' .. tostring(source.campaignId or '?') .. ' row ' .. tostring(source.row or 0)
  end
  local what = 'a MARKETING template'
  local json = redis.call('HGET', campaignKey, 'definition')
  if json and type(cjson.decode(json).text) == 'table' then what = 'a text campaign' end
  return 'the recipient stopped marketing messages from this business while the row waited (' .. how .. '); this is ' .. what ..
    ', so it is not sent'
end
