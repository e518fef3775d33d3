#!lua
--[[
  The feeder's atomic cursor (src/campaigns/feed/send-feeder.ts): pops rows off the backlogs of one
  phone number's campaigns into its window, never more than the window has room for, and
  records each as fed (job ID → now) in the same step, so no row is fed twice or skipped,
  whatever crashes.

  Priority classes are strict (a high campaign's rows go first); within a class the room is
  shared evenly, round-robin, so a small campaign finishes while a big one is still
  sending. Paused and cancelled campaigns get nothing. A job fed long ago and not done (its
  enqueue may have been lost in a crash) is handed out again: its ID is fixed, so BullMQ
  ignores it when it exists. Campaign keys are built here from the prefix (the active set
  names them: <scope>:campaign:<id> and its :pending list).
  A campaign is fed from its start (`startsAt`) on; one not started by its `startDeadline`
  is cancelled with that reason; at `expiresAt` its backlog expires as a block.
  A campaign with a send window (`window` = 1) keeps its backlog in lanes, one list per set
  of time zones (pending:<lane>); it is fed only from the lanes the caller says are open
  now (ARGV[7]: the feeder works that out from each lane's local time), its room shared
  evenly between them. Rows in closed lanes wait: they take no room and no rate.
  With a group size, consecutive rows fed go into jobs of several rows (groups): one BullMQ
  job and one window entry for each, its rows in the groups hash, so a group handed out again
  is the same job with the same rows and no row is ever in two live jobs. The room counts rows:
  the window's entries, less its groups, plus the rows the groups hold.

  Meta's messaging limit (ARGV[8] >= 0) belongs to the business portfolio: the feeder brings
  a lease of places for new recipients from the portfolio's slot (reach-reserve.lua). Each fed
  row's recipient goes into the number's reach set (wa_id → ms last fed); one already in it,
  or whose customer-service window is open (they wrote to the business), takes no place of the
  lease. A new recipient with no place left is put back at the front of its list, in order,
  and its campaign gets nothing more in this feed: it waits until places free up. The
  recipients counted are recorded under the lease's ID in the number's reach-pending hash, in
  this same step; reach-commit.lua adds them to the portfolio's count, then the feeder drops
  the record. A record older than ARGV[11] was left by a feeder that died before its commit:
  it is answered too, for this feeder to commit.

  Input:
    KEYS[1] active     zset     <scope>:feed:<number>:campaigns (campaign ID → priority)
    KEYS[2] window     zset     <scope>:feed:<number>:window (job ID → ms fed)
    KEYS[3] reach      zset     <scope>:reach:<number> (wa_id → ms last fed): the messaging limit's 24 h
    KEYS[4] pending    hash     <scope>:reach-pending:<number> (lease ID → JSON {t, s, k}: recipients not yet in the portfolio's count)
    KEYS[5] groups     hash     <scope>:feed:<number>:groups (group ID → its rows "campaign row k,…": group jobs in the window)
    KEYS[6] group-rows string   <scope>:feed:<number>:group-rows (the rows those groups hold, all together)

    ARGV[1]  scope            the number's key scope, <prefix>:{<number>} (src/redis/key-scope.ts)
    ARGV[2]  clock            ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)
    ARGV[3]  window-size      window size
    ARGV[4]  min-batch        least rows worth a feed (less room than this: nothing is fed)
    ARGV[5]  refresh-after    age (ms) after which a job of the window is handed out again
    ARGV[6]  refresh-most     most such jobs per call
    ARGV[7]  open-lanes       JSON object: campaign ID → [lane numbers open now], for campaigns with a send
                              window (one not named feeds nothing)
    ARGV[8]  places           places for new recipients (the portfolio's lease); -1 = no limit (nothing is counted)
    ARGV[9]  phone-number-id  the phone-number ID (names its service-window keys)
    ARGV[10] lease-id         the lease's ID (names this feed's record in the pending hash)
    ARGV[11] stale-after      age (ms) after which a pending record is another feeder's, left behind
    ARGV[12] most-rows        optional: most rows this call feeds (the caller calls again for the rest of the
                              room). Every worker's pacer waits while Redis runs this script: 1,250 rows held
                              it about 8 ms, and the sends waiting behind it left together.
    ARGV[13] group-size       optional: most rows a job carries (1 or absent: one job a row). A job of several
                              rows is a group: one entry of the window, `g.<its first row's job ID>.<rows>`,
                              its rows kept in the groups hash until the group is done (group-done.lua)

  Output:
    { {campaign, row, job number, …} for the rows fed, interleaved in the order to run,
      {job ID, its rows ('' for a job of one row), …} to enqueue again,
      {kind, campaign, detail, …} events: 'started' (detail: startsAt ms or ''),
        'expired' (rows), 'deadline' (rows), 'completed' ('') },
    {wa_id, …} of the new recipients held back by the limit (1 or more: held), else {},
    now: the ledger's time this feed judged by (ms),
    {lease ID, record JSON, …}: this feed's record (first) and those left behind, to commit,
    {job ID, its rows ('' for a job of one row, named as without groups), …}: with a group size above 1,
      every job fed, in order, as the window's entries are handed out again; {} without }
]]

-- Includes
--- @include "clock"
--- @include "row-codec"
--- @include "row-store"
--- @include "complete-if-done"
--- @include "end-backlog"
--- @include "events"

local activeKey, windowKey, groupsKey, groupRowsKey = KEYS[1], KEYS[2], KEYS[5], KEYS[6]
local prefix, now, size, minBatch = ARGV[1], ledgerNow(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local refreshAge, refreshMost = tonumber(ARGV[5]), tonumber(ARGV[6])
local openLanes = cjson.decode(ARGV[7] or '{}')
local reachKey, lease, numberId = KEYS[3], tonumber(ARGV[8]) or -1, ARGV[9]
local pendingKey, leaseId, staleAge = KEYS[4], ARGV[10], tonumber(ARGV[11])
local DAY = 86400000
local groupSize = math.max(1, tonumber(ARGV[13]) or 1)
local stale = redis.call('ZRANGEBYSCORE', windowKey, '-inf', now - refreshAge, 'LIMIT', 0, refreshMost)
local again = {}
for _, id in ipairs(stale) do
  redis.call('ZADD', windowKey, now, id)
  again[#again + 1] = id
  again[#again + 1] = redis.call('HGET', groupsKey, id) or ''
end
local inWindow = redis.call('ZCARD', windowKey) - redis.call('HLEN', groupsKey) + tonumber(redis.call('GET', groupRowsKey) or '0')
local room = size - inWindow
local groups = {}
local fed, events, held = {}, {}, {}
-- Records of feeders that died between their feed and their commit.
local records = {}
local function leftBehind()
  local all = redis.call('HGETALL', pendingKey)
  for i = 1, #all, 2 do
    if all[i] ~= leaseId and (tonumber(cjson.decode(all[i + 1]).t) or 0) < now - staleAge then
      records[#records + 1] = all[i]
      records[#records + 1] = all[i + 1]
    end
  end
end
if room < minBatch then
  leftBehind()
  return { fed, again, events, held, now, records, groups }
end
local most = tonumber(ARGV[12])
if most and room > most then room = most end
-- The lease's places: those reached more than 24 h ago leave the number's set first.
local places
local spent, seen = {}, {}
if lease >= 0 then
  redis.call('ZREMRANGEBYSCORE', reachKey, '-inf', now - DAY)
  places = lease
end
-- Whether a popped row may be fed under the limit (and its recipient counted if so).
local function mayFeed(campaignKey, row)
  local json = rowStored(campaignKey .. ':rows', row)
  if not json then return true end
  local waId = string.gsub(decodeRow(json).p or '', '^%+', '')
  if redis.call('ZSCORE', reachKey, waId) then
    redis.call('ZADD', reachKey, now, waId)
    seen[#seen + 1] = waId
    return true
  end
  -- Open while the closing time it holds is ahead on the ledger's clock (apply-inbound.lua).
  if tonumber(redis.call('GET', prefix .. ':service-window:' .. numberId .. ':' .. waId) or '0') > now then return true end
  if places <= 0 then
    held[#held + 1] = waId
    return false
  end
  places = places - 1
  redis.call('ZADD', reachKey, now, waId)
  spent[#spent + 1] = waId
  return true
end
local listed = redis.call('ZRANGE', activeKey, 0, -1, 'WITHSCORES')
local classes, order = {}, {}
for i = 1, #listed, 2 do
  local score = listed[i + 1]
  if not classes[score] then classes[score] = {}; order[#order + 1] = score end
  local class = classes[score]
  class[#class + 1] = listed[i]
end
table.sort(order, function(a, b) return tonumber(a) < tonumber(b) end)
-- Pops up to `want` entries off the campaign's lists, shared evenly between them (its open
-- lanes); a list found short is dropped from c.lists, so an empty c.lists means exhausted.
-- Under the messaging limit, entries whose new recipient has no place go back to the front
-- of their list, in order, and the campaign is marked held (c.held): it waits.
local function popRows(c, want)
  local got = {}
  while want > 0 and #c.lists > 0 and not c.held do
    local share = math.max(1, math.floor(want / #c.lists))
    local still = {}
    for _, list in ipairs(c.lists) do
      local ask = math.min(share, want)
      if ask > 0 then
        local part = redis.call('LPOP', list, ask)
        if part then
          local back = {}
          for _, entry in ipairs(part) do
            if places == nil or mayFeed(c.campaignKey, string.match(entry, '^(%d+)')) then
              got[#got + 1] = entry
              want = want - 1
            else
              back[#back + 1] = entry
            end
          end
          if #back > 0 then
            -- One at a time from the last: the list's front is then as it was, and no call
            -- gets more arguments than Lua's stack holds, whatever the window size.
            for i = #back, 1, -1 do redis.call('LPUSH', list, back[i]) end
            c.held = true
          end
          if #part == ask then still[#still + 1] = list end
        end
      else
        still[#still + 1] = list
      end
    end
    c.lists = still
  end
  return got
end
-- Rows of one class interleaved, one of each campaign in turn: the queue runs them in this order.
local function interleave(taken)
  local i = 1
  local more = true
  while more do
    more = false
    for _, c in ipairs(taken) do
      if c.rows[i] then
        fed[#fed + 1] = c.id
        fed[#fed + 1] = c.rows[i]
        fed[#fed + 1] = c.rows[i + 1]
        more = true
      end
    end
    i = i + 2
  end
end
for _, score in ipairs(order) do
  if room <= 0 then break end
  local eligible = {}
  for _, id in ipairs(classes[score]) do
    local campaignKey = prefix .. ':campaign:' .. id
    local pendingKey = campaignKey .. ':pending'
    local f = redis.call('HMGET', campaignKey, 'definition', 'cancelled', 'paused', 'ingestDone', 'startsAt', 'startDeadline', 'expiresAt', 'startedAt', 'window')
    if not f[1] or f[2] == '1' then
      redis.call('ZREM', activeKey, id)
    elseif f[7] and now >= tonumber(f[7]) then
      -- Expired: what was not fed never will be.
      redis.call('HSET', campaignKey, 'expired', '1')
      local n = endBacklog(campaignKey, pendingKey, 'expired')
      redis.call('ZREM', activeKey, id)
      if n > 0 then events[#events + 1] = 'expired'; events[#events + 1] = id; events[#events + 1] = tostring(n) end
      if completeIfDone(campaignKey, now) == 1 then events[#events + 1] = 'completed'; events[#events + 1] = id; events[#events + 1] = '' end
    elseif not f[8] and f[6] and now > tonumber(f[6]) then
      -- Not started by its deadline (no worker ran, or it stayed paused): cancelled with that reason.
      local reason = 'START_DEADLINE: not started by ' .. f[6]
      redis.call('HSET', campaignKey, 'cancelled', '1', 'cancelReason', reason)
      redis.call('HDEL', campaignKey, 'paused', 'pausedReason', 'pausedAt')
      -- As a cancel does: an interrupted ingest will not be continued, so the rows read are all it has.
      if redis.call('HEXISTS', campaignKey, 'ingestInterrupted') == 1 then
        redis.call('HSET', campaignKey, 'ingestDone', '1')
        redis.call('HDEL', campaignKey, 'ingestInterrupted')
      end
      local n = endBacklog(campaignKey, pendingKey, 'cancelled')
      redis.call('ZREM', activeKey, id)
      events[#events + 1] = 'deadline'; events[#events + 1] = id; events[#events + 1] = tostring(n)
      if completeIfDone(campaignKey, now) == 1 then events[#events + 1] = 'completed'; events[#events + 1] = id; events[#events + 1] = '' end
    elseif f[5] and now < tonumber(f[5]) then
      -- Scheduled: nothing is fed before its start.
    elseif f[3] ~= '1' then
      -- The lists it may feed from now: its backlog, and with a send window its open lanes.
      local lists, waiting = {}, 0
      if redis.call('LLEN', pendingKey) > 0 then lists[1] = pendingKey end
      if f[9] == '1' then
        local openNow = {}
        for _, lane in ipairs(openLanes[id] or {}) do openNow[tostring(lane)] = true end
        for lane = 0, redis.call('HLEN', campaignKey .. ':lanes') - 1 do
          local list = pendingKey .. ':' .. lane
          local n = redis.call('LLEN', list)
          if n > 0 then
            if openNow[tostring(lane)] then lists[#lists + 1] = list else waiting = waiting + n end
          end
        end
      end
      if #lists > 0 then
        eligible[#eligible + 1] = { id = id, lists = lists, rows = {}, started = f[8], startsAt = f[5], campaignKey = campaignKey }
      elseif waiting == 0 and f[4] == '1' then
        -- Nothing left to feed; a park, retry or reopened row puts it back.
        redis.call('ZREM', activeKey, id)
      end
    end
  end
  local taken = {}
  for _, c in ipairs(eligible) do taken[#taken + 1] = c end
  -- Where the round starts moves with the clock, so the room's remainder (room not a
  -- multiple of the campaigns) falls on a different campaign each feed, not always the last.
  local turn = now % math.max(1, #eligible)
  while room > 0 and #eligible > 0 do
    local n = #eligible
    local share, extra = math.floor(room / n), room % n
    local still = {}
    for j = 0, n - 1 do
      local c = eligible[((turn + j) % n) + 1]
      local want = share
      if j < extra then want = want + 1 end
      if want > 0 then
        local got = popRows(c, want)
        if #got > 0 then
          for _, entry in ipairs(got) do
            local row, k = string.match(entry, '^(%d+):?(%d*)$')
            if row then
              if k == '' then k = '0' end
              if groupSize == 1 then
                local jobId = c.id .. '-' .. row
                if k ~= '0' then jobId = jobId .. '-r' .. k end
                redis.call('ZADD', windowKey, now, jobId)
              end
              c.rows[#c.rows + 1] = row
              c.rows[#c.rows + 1] = k
            end
          end
          room = room - #got
          if #got == want and not c.held then still[#still + 1] = c end
        end
      else
        still[#still + 1] = c
      end
    end
    -- Everyone still eligible got a full share: the room is used up.
    if #still == n then break end
    eligible = still
  end
  for _, c in ipairs(taken) do
    if not c.started and #c.rows > 0 then
      redis.call('HSET', c.campaignKey, 'startedAt', now)
      emitCampaignEvent(c.campaignKey, 'campaign.started', now, nil)
      events[#events + 1] = 'started'; events[#events + 1] = c.id; events[#events + 1] = c.startsAt or ''
    end
  end
  interleave(taken)
end
-- The rows fed, in their order, into jobs of up to groupSize rows; a job of one row is as without groups.
if groupSize > 1 then
  local grouped = 0
  for first = 1, #fed, 3 * groupSize do
    local last = math.min(#fed, first + 3 * groupSize - 1)
    local n = (last - first + 1) / 3
    local firstId = fed[first] .. '-' .. fed[first + 1]
    if fed[first + 2] ~= '0' then firstId = firstId .. '-r' .. fed[first + 2] end
    if n == 1 then
      redis.call('ZADD', windowKey, now, firstId)
      groups[#groups + 1] = firstId
      groups[#groups + 1] = ''
    else
      local id = 'g.' .. firstId .. '.' .. n
      local members = {}
      for i = first, last, 3 do members[#members + 1] = fed[i] .. ' ' .. fed[i + 1] .. ' ' .. fed[i + 2] end
      local rows = table.concat(members, ',')
      redis.call('ZADD', windowKey, now, id)
      redis.call('HSET', groupsKey, id, rows)
      groups[#groups + 1] = id
      groups[#groups + 1] = rows
      grouped = grouped + n
    end
  end
  if grouped > 0 then redis.call('INCRBY', groupRowsKey, grouped) end
end
-- Personal data kept no longer than it counts: the set goes a day after its last change.
if places ~= nil and redis.call('EXISTS', reachKey) == 1 then redis.call('PEXPIRE', reachKey, DAY) end
if #spent + #seen > 0 then
  local record = cjson.encode({ t = now, s = spent, k = seen })
  redis.call('HSET', pendingKey, leaseId, record)
  records[1] = leaseId
  records[2] = record
end
leftBehind()
return { fed, again, events, held, now, records, groups }
