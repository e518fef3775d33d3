--[[
  Counter changes a script makes row by row (a campaign's `n:<status>`, its timeline, the
  entries of the duplicate guard and of the message-ID index), written
  at once, or, inside withCountsGathered(work), gathered and written once a field by
  flushCounts(): a claim or a settle of many rows then writes each counter once instead of
  once a row (each HINCRBY from a script cost Redis about 1.3 µs). They are written when the
  work ends, also when it fails the script (a row Lua cannot read): what it changed before
  stays counted, as when each change wrote its own. Whatever reads a counter inside a script,
  or writes one as a whole, flushes first (includes/complete-if-done.lua,
  includes/bucket-map-write.lua).

  Defines: countsGathered, countsPending, countsOrder, countAdd(key, field, delta), flushCounts(),
    withCountsGathered(work)
]]
local countsGathered = false
local countsPending = {}
local countsOrder = {}

local function countAdd(key, field, delta)
  if not countsGathered then
    redis.call('HINCRBY', key, field, delta)
    return
  end
  local fields = countsPending[key]
  if not fields then
    fields = {}
    countsPending[key] = fields
    countsOrder[#countsOrder + 1] = key
  end
  fields[field] = (fields[field] or 0) + delta
end

local function flushCounts()
  for _, key in ipairs(countsOrder) do
    for field, delta in pairs(countsPending[key]) do
      if delta ~= 0 then redis.call('HINCRBY', key, field, delta) end
    end
  end
  countsPending, countsOrder = {}, {}
end

local function withCountsGathered(work)
  countsGathered = true
  local ok, failure = pcall(work)
  flushCounts()
  countsGathered = false
  if not ok then error(failure, 0) end
end
