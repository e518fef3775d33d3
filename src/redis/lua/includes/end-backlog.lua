--[[
  Ends a campaign's backlog as a block: its rows' counts move from queued to `status`
  (cancelled or expired) and the list goes, so this costs the same for ten rows or a
  million. Their records still say queued, which such a campaign reports as `status`
  (RedisLedger.rows). A campaign with a send window has a list per lane as well
  (`pending:<lane>`, lanes numbered 0… in its `lanes` hash): they end with it.

  Defines: endBacklog(campaignKey, pendingKey, status) → how many rows it ended
]]
local function endBacklog(campaignKey, pendingKey, status)
  local lists = { pendingKey }
  for lane = 0, redis.call('HLEN', campaignKey .. ':lanes') - 1 do lists[#lists + 1] = pendingKey .. ':' .. lane end
  local unfed = 0
  for _, list in ipairs(lists) do unfed = unfed + redis.call('LLEN', list) end
  if unfed > 0 then
    redis.call('HINCRBY', campaignKey, 'n:queued', -unfed)
    redis.call('HINCRBY', campaignKey, 'n:' .. status, unfed)
    redis.call('UNLINK', unpack(lists))
  end
  return unfed
end
