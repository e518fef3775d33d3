#!lua
--[[
  The pacer's second step, the ceiling. A slot can be reached late (a busy event loop fires
  timers late), and a late send bunches with the next ones. So no window of the sliding log of
  dispatches may hold more than `rate`. A send that would make one do so is not refused: it is
  stamped at the first moment it fits (the rate-th latest stamp plus the window) and told to
  wait until then, and goes without asking again. Sends held back this way are queued in the
  order they asked, each at its own moment, instead of all waking for the same oldest stamp
  to age out and asking again (at 1,000/s that herd made about four asks a send). No stamp
  goes before one already in the log, so every window holds at most `rate`. Nor within a
  quarter of an interval (window / rate / 4) of the latest one: sends that fall behind their
  slots (a busy worker, a stall) catch up at four times the rate instead of leaving in a bunch. A bunch
  stays in the log for a window, so it would hold back the sends a window later until it aged
  out, and they would leave as a bunch again: behind their slots, the pace becomes the log's
  own, the bunches and silences repeat every window, and each bunch waits on the worker's event
  loop, so its last sends leave late and stretch the receiver's delays. At even spacing the slots
  are an interval apart and the gap never binds. The member's own earlier stamp is dropped
  first, so a send can be stamped again. A send may be asked for ahead of its slot: it is then stamped no earlier than the slot (`ahead`), so the ask's round
  trip is off the send's path and the asks of several sends share one call. The sends a worker
  asks for together are stamped in one call, in the order given.

  The same call first corrects sends that left late. A send that waits after its stamp (a
  stalled event loop, a wait for a connection) leaves later and would bunch at the receiver
  with the sends admitted after it. Moving its stamp by how late it left (beyond a small
  allowance the guard covers) makes every later admission count it where it really is, so the
  ceiling holds for departures, not just for admissions. A correction rides in the worker's next
  call (it waits a few ms for one), applied before that call's asks, instead of a call of its
  own. Until it lands, another worker's ask is stamped as if the send had left on time;
  that moves a stamp only when the log is full and the late send is the rate-th latest, which
  takes `rate` - 1 sends stamped after it in those few ms (a correction of its own was a round
  trip late as well). A stamp never moves past the time now: the correction is asked after the send left,
  so now is no earlier than its departure, and every admission after it is stamped at now or
  later, so every window that holds the departure and ends at a later stamp holds the moved
  stamp too. Moved past its departure but not past now, a stamp only makes the ceiling
  stricter; moved past now, it would leave out of the windows that end between now and it a
  send they hold, and let one more through. How late it left is measured from its ask, so an
  ask that waited before Redis stamped it (a failover, a reconnect, a busy Redis) would
  otherwise move the stamp that far past now. One already trimmed (the send left more than a
  window late) is put back at the time now.

  The caller measures how late a send left at the end of its request's write: a write the
  worker was paused in (another process on the core, a garbage collection) sent its bytes at an
  unknown moment before its end, so a stamp moved to the end holds the send wherever it left,
  at the cost of a stamp a little late. The sends admitted before the correction counted its
  earlier stamp, which every window they end holds as well, the write being far shorter than a
  window.

  Called with one key, or two when tests keep every admission (the caller passes the number
  of keys).

  Input:
    KEYS[1] sent       zset     <scope>:pacer:<number>:sent (member → admitted at, µs)
    KEYS[2] audit      zset     optional: every admission, never trimmed (tests)

    ARGV[1] rate    sends allowed per window
    ARGV[2] window  its length (µs)
    ARGV[3] now     the time now (µs) instead of Redis's TIME, a test's simulated clock; '' = TIME
    ARGV[4] moves   how many corrections follow, then 2 per correction:
      member  a send admitted earlier, that left late
      late    how far to move its stamp (µs): how late its write ended, beyond the allowance
    then 2 per send to admit:
      member  the send, each unique
      ahead   how far after now its slot is (µs); 0 = now

  Output:
    per correction, in order: the send's stamp now (µs, a decimal string); then per send
    admitted, in order: the wait until its stamp (µs, a decimal string), '0' = go now; then
    the time now (µs, a decimal string), so the caller can place the stamps on its own clock
]]
local now = tonumber(ARGV[3])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local rate = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local gap = math.floor(window / rate / 4)
local answers = {}
local furthest = now

local function stamp(member, score)
  redis.call('ZADD', KEYS[1], score, member)
  if KEYS[2] then redis.call('ZADD', KEYS[2], score, member) end
end

local moves = tonumber(ARGV[4])
local first = 5 + 2 * moves
for i = 5, first - 1, 2 do
  local at = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if at then
    at = tonumber(at)
    at = math.max(at, math.min(at + tonumber(ARGV[i + 1]), now))
  else
    at = now
  end
  local score = string.format('%.0f', at)
  stamp(ARGV[i], score)
  if at > furthest then furthest = at end
  answers[#answers + 1] = score
end

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now - window))
for i = first, #ARGV, 2 do
  local member = ARGV[i]
  redis.call('ZREM', KEYS[1], member)
  local at = now + math.max(0, tonumber(ARGV[i + 1]) or 0)
  local latest = redis.call('ZRANGE', KEYS[1], 0, 0, 'REV', 'WITHSCORES')
  if latest[2] and tonumber(latest[2]) + gap > at then at = tonumber(latest[2]) + gap end
  if redis.call('ZCARD', KEYS[1]) >= rate then
    -- The rate-th latest stamp must be out of the window that ends at this one.
    local bound = tonumber(redis.call('ZRANGE', KEYS[1], rate - 1, rate - 1, 'REV', 'WITHSCORES')[2]) + window + 1
    if bound > at then at = bound end
  end
  stamp(member, string.format('%.0f', at))
  if at > furthest then furthest = at end
  answers[#answers + 1] = string.format('%.0f', at - now)
end
redis.call('PEXPIRE', KEYS[1], 2000 + math.ceil((furthest - now) / 1000))
answers[#answers + 1] = string.format('%.0f', now)
return answers
