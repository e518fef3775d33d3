--[[
  The backlog's names and pushes:
    jobIdOf   the job ID of a row's job number k, exactly as sendJobId
              (src/campaigns/send-job.ts) makes it: "campaign-row" for k = 0, else
              "campaign-row-rk";
    entryOf   a backlog entry: "row" (its first job) or "row:k";
    activate  what a push that puts a row back in the backlog does besides: the campaign
              joins its number's active set, at its priority (0 high, 1 normal, 2 low);
    laneKeyOf the list a row's entries go to: a campaign with a send window keeps one
              backlog per lane (`pending:<lane>`, the row record's `z`), others `pending`;
    pushTo    pushes entries grouped by list ({list = {entries}}) with RPUSH or LPUSH.

  Defines: jobIdOf(campaignId, row, k), entryOf(row, k), activate(campaignKey, activeKey, campaignId),
           laneKeyOf(pendingKey, rec), pushTo(groups, command)
]]
local function jobIdOf(campaignId, row, k)
  k = tonumber(k) or 0
  if k == 0 then return campaignId .. '-' .. row end
  return campaignId .. '-' .. row .. '-r' .. k
end
local function entryOf(row, k)
  k = tonumber(k) or 0
  if k == 0 then return tostring(row) end
  return row .. ':' .. k
end
local function laneKeyOf(pendingKey, rec)
  if rec.z ~= nil then return pendingKey .. ':' .. rec.z end
  return pendingKey
end
local function pushTo(groups, command)
  for key, entries in pairs(groups) do redis.call(command, key, unpack(entries)) end
end
local function activate(campaignKey, activeKey, campaignId)
  redis.call('ZADD', activeKey, tonumber(redis.call('HGET', campaignKey, 'priority') or '1'), campaignId)
end
