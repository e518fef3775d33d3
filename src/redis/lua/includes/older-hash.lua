--[[
  A hash an older version kept where this one keeps small keys beside it (the duplicate guard,
  a portfolio's user links, a campaign's rows): read only while it is there, which a script run
  asks Redis once a key, so a deployment that never had one pays one EXISTS a run for it.

  Defines: olderHashes, olderHashExists(key) → whether it is there; olderHashGet(key, field) → the value, or false
]]
local olderHashes = {}
local function olderHashExists(key)
  if olderHashes[key] == nil then olderHashes[key] = redis.call('EXISTS', key) == 1 end
  return olderHashes[key]
end

local function olderHashGet(key, field)
  if not olderHashExists(key) then return false end
  return redis.call('HGET', key, field)
end
