--[[
  The duplicate-send guard's pruning: entries older than the window go, a few per call. A call
  walks on through the hash with HSCAN from where the last one stopped (the cursor is kept in
  the field GUARD_CURSOR, which no fingerprint can be, and dropped when a walk ends), looking at
  about GUARD_SCAN_PER_ENTRY entries for each one this call recorded: the walk goes round the
  whole guard about that many times a window, so an entry outlives its window by a fraction of
  it, and the guard needs no second index by time (a sorted set cost more than the hash).

  Defines: GUARD_CURSOR, GUARD_SCAN_PER_ENTRY; pruneSent(sentKey, now, window, recorded)
]]
local GUARD_CURSOR = '#cursor'
local GUARD_SCAN_PER_ENTRY = 4

local function pruneSent(sentKey, now, window, recorded)
  local cursor = redis.call('HGET', sentKey, GUARD_CURSOR) or '0'
  local page = redis.call('HSCAN', sentKey, cursor, 'COUNT', math.max(16, recorded * GUARD_SCAN_PER_ENTRY))
  local entries, stale = page[2], {}
  for i = 1, #entries, 2 do
    local at = string.match(entries[i + 1], '/(%d+)$')
    if entries[i] ~= GUARD_CURSOR and at and now - tonumber(at) >= window then stale[#stale + 1] = entries[i] end
  end
  if #stale > 0 then redis.call('HDEL', sentKey, unpack(stale)) end
  if page[1] == '0' then
    redis.call('HDEL', sentKey, GUARD_CURSOR)
  else
    redis.call('HSET', sentKey, GUARD_CURSOR, page[1])
  end
end
