--[[
  A walk through a hash whose values end in a time (ms), dropping the fields older than
  `period`: a portfolio's user links as an older version kept them, in one hash each
  (RETENTION_DAYS; includes/bucket-map-write.lua walks the maps that keep them now). The walk goes on with HSCAN from where it last stopped, at a pace set by
  time, not by calls: WALKS_PER_PERIOD times the hash's size each period, so a field outlives
  its period by at most a quarter of it, and a burst of calls walks almost nothing. Where the
  walk is and when it last moved are fields of the hash itself (WALK_CURSOR; WALK_WALKED,
  "<ms> <the most fields the walk has seen>"), which start with '#' as no message fingerprint or
  user ID does. No second index by time is kept: a sorted set cost more than the hash itself.

  Defines: WALK_CURSOR, WALK_WALKED, WALKS_PER_PERIOD, WALK_MIN_PAGE, WALK_MAX_PAGE;
    walkByTime(key, now, period) → the fields it dropped and their values, flat
]]
local WALK_CURSOR = '#cursor'
local WALK_WALKED = '#walked'
local WALKS_PER_PERIOD = 4
-- A page smaller than this (or than the whole hash) waits for more time to pass; one larger is cut
-- to the maximum (the rest waits for later calls).
local WALK_MIN_PAGE = 16
local WALK_MAX_PAGE = 1000

local function walkByTime(key, now, period)
  local dropped = {}
  local state = redis.call('HMGET', key, WALK_CURSOR, WALK_WALKED)
  local walked, size = string.match(state[2] or '', '^(%d+) (%d+)$')
  if not walked then
    local fields = redis.call('HLEN', key)
    if fields > 0 then redis.call('HSET', key, WALK_WALKED, now .. ' ' .. fields) end
    return dropped
  end
  -- The pace is the size the walk started with, or more if the hash grew since: what it drops
  -- must not slow the rest of its way, and what was added must not either.
  size = math.max(tonumber(size), redis.call('HLEN', key))
  local due = size * WALKS_PER_PERIOD * (now - tonumber(walked)) / period
  if due < math.min(WALK_MIN_PAGE, size) then return dropped end
  local page = redis.call('HSCAN', key, state[1] or '0', 'COUNT', math.floor(math.min(due, WALK_MAX_PAGE)))
  local entries, stale = page[2], {}
  for i = 1, #entries, 2 do
    local at = string.match(entries[i + 1], '(%d+)$')
    if string.sub(entries[i], 1, 1) ~= '#' and at and now - tonumber(at) >= period then
      stale[#stale + 1] = entries[i]
      dropped[#dropped + 1] = entries[i]
      dropped[#dropped + 1] = entries[i + 1]
    end
  end
  if #stale > 0 then redis.call('HDEL', key, unpack(stale)) end
  if page[1] == '0' then
    redis.call('HDEL', key, WALK_CURSOR)
    size = redis.call('HLEN', key)
  else
    redis.call('HSET', key, WALK_CURSOR, page[1])
  end
  redis.call('HSET', key, WALK_WALKED, now .. ' ' .. size)
  return dropped
end
