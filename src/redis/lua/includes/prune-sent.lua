--[[
  The duplicate-send guard's pruning: entries older than the window go, a page at a time. The
  walk goes on through the hash with HSCAN from where the last one stopped, at a pace set by
  time, not by sends: GUARD_WALKS_PER_WINDOW times the guard's size each window, so an entry
  outlives its window by at most a quarter of it, and a burst of claims (an unpaced drain)
  walks almost nothing. The walk's cursor and the ms it last moved are fields of the hash
  (GUARD_CURSOR; GUARD_WALKED, "<ms> <size the walk started with>"), which no fingerprint can
  be. No second index by time is kept: a sorted set cost more than the hash itself.

  Defines: GUARD_CURSOR, GUARD_WALKED, GUARD_WALKS_PER_WINDOW, GUARD_MIN_PAGE, GUARD_MAX_PAGE;
    pruneSent(sentKey, now, window)
]]
local GUARD_CURSOR = '#cursor'
local GUARD_WALKED = '#walked'
local GUARD_WALKS_PER_WINDOW = 4
-- A page smaller than this waits for more time to pass; one larger is cut to the maximum (the rest waits for later calls).
local GUARD_MIN_PAGE = 16
local GUARD_MAX_PAGE = 1000

local function pruneSent(sentKey, now, window)
  local state = redis.call('HMGET', sentKey, GUARD_CURSOR, GUARD_WALKED)
  local walked, size = string.match(state[2] or '', '^(%d+) (%d+)$')
  if not walked then
    local fields = redis.call('HLEN', sentKey)
    if fields > 0 then redis.call('HSET', sentKey, GUARD_WALKED, now .. ' ' .. fields) end
    return
  end
  -- The pace is the size the walk started with: what it drops must not slow the rest of its way.
  local due = tonumber(size) * GUARD_WALKS_PER_WINDOW * (now - tonumber(walked)) / window
  if due < GUARD_MIN_PAGE then return end
  local page = redis.call('HSCAN', sentKey, state[1] or '0', 'COUNT', math.floor(math.min(due, GUARD_MAX_PAGE)))
  local entries, stale = page[2], {}
  for i = 1, #entries, 2 do
    local at = string.match(entries[i + 1], '/(%d+)$')
    if string.sub(entries[i], 1, 1) ~= '#' and at and now - tonumber(at) >= window then stale[#stale + 1] = entries[i] end
  end
  if #stale > 0 then redis.call('HDEL', sentKey, unpack(stale)) end
  if page[1] == '0' then
    redis.call('HDEL', sentKey, GUARD_CURSOR)
    size = redis.call('HLEN', sentKey)
  else
    redis.call('HSET', sentKey, GUARD_CURSOR, page[1])
  end
  redis.call('HSET', sentKey, GUARD_WALKED, now .. ' ' .. size)
end
