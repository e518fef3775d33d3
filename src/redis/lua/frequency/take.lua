#!lua
--[[
  FREQUENCY_CAPS at a row's claim (src/config/frequency-caps.ts): whether one more message of
  its kind may go to the recipient now, counted over every campaign and number of the business
  portfolio, and if so the message is counted at once, in the same step, so two numbers that
  claim for one recipient at the same moment cannot both pass. Runs in the portfolio's slot,
  after the claim in the number's (claim.lua): the claim cannot read another slot.

  Each recipient's sends are one field of the portfolio's hash: entries `<kind letter><ms in
  base 36>` joined by ','; entries older than the longest cap's window are dropped whenever the
  field is written, and a few other fields are swept per call (a cursor kept beside the hash),
  so people who are never sent to again do not stay. The hash expires a window after its newest
  entry.

  Input:
    KEYS[1] frequency  hash     <portfolio scope>:frequency (phone → its sends)
    KEYS[2] cursor     string   <portfolio scope>:frequency-cursor (the sweep's HSCAN cursor)

    ARGV[1] clock    ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)
    ARGV[2] caps     the caps, ';'-joined `<kind letter>:<count>:<window ms>` (kind letter '*' for any kind)
    ARGV[3] keep     how long an entry is kept (ms): the longest cap's window
    then 3 per row, from ARGV[4] on:
    ARGV[4] phone    the recipient, E.164
    ARGV[5] kind     the message's kind letter (m marketing, u utility, a authentication, t text)
    ARGV[6] mode     'check' (refused over a cap), 'count' (counted whatever the caps say: --ignore-frequency-caps) or 'peek'
                     (checked, not counted: the plan's estimate)

  Output:
    Per row, flat, 3 values each: 'taken' or 'capped' ('free' for a peek that breaks no cap); for 'taken' the entry recorded (what
    release.lua takes back), for 'capped' the cap broken (`<kind letter>:<count>:<window ms>`);
    for 'capped' the ms at which its oldest counted send leaves the window, else ''.
]]

-- Includes
--- @include "clock"

local frequencyKey, cursorKey = KEYS[1], KEYS[2]
local now, keep = ledgerNow(ARGV[1]), tonumber(ARGV[3])
local caps = {}
for kind, count, window in string.gmatch(ARGV[2], '([%a%*]):(%d+):(%d+)') do
  caps[#caps + 1] = { kind = kind, count = tonumber(count), window = tonumber(window), text = kind .. ':' .. count .. ':' .. window }
end

-- The entries of a field still inside `keep`, as { kind, at }, and whether any older one was dropped.
local function entriesOf(field)
  local out, dropped = {}, false
  for kind, at in string.gmatch(field or '', '(%a)(%w+)') do
    local ms = tonumber(at, 36)
    if ms and ms > now - keep then out[#out + 1] = { kind = kind, at = ms } else dropped = true end
  end
  return out, dropped
end

local function encode(entries)
  local parts = {}
  for i, e in ipairs(entries) do
    -- Lua has no base-36 writer: digits by hand.
    local n, digits = e.at, ''
    repeat
      local d = n % 36
      digits = string.sub('0123456789abcdefghijklmnopqrstuvwxyz', d + 1, d + 1) .. digits
      n = math.floor(n / 36)
    until n == 0
    parts[i] = e.kind .. digits
  end
  return table.concat(parts, ',')
end

-- The cap this send would break, and when its oldest counted send leaves the window; nil when none.
local function broken(entries, kind)
  for _, cap in ipairs(caps) do
    if cap.kind == '*' or cap.kind == kind then
      local counted, oldest = 0, nil
      for _, e in ipairs(entries) do
        if (cap.kind == '*' or e.kind == cap.kind) and e.at > now - cap.window then
          counted = counted + 1
          if not oldest or e.at < oldest then oldest = e.at end
        end
      end
      if counted >= cap.count then return cap, oldest + cap.window end
    end
  end
  return nil
end

local out = {}
local wrote = false
for i = 4, #ARGV, 3 do
  local phone, kind, mode = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local entries = entriesOf(redis.call('HGET', frequencyKey, phone))
  local cap, frees = nil, nil
  if mode ~= 'count' then cap, frees = broken(entries, kind) end
  if cap then
    out[#out + 1] = 'capped'; out[#out + 1] = cap.text; out[#out + 1] = tostring(frees)
  elseif mode == 'peek' then
    out[#out + 1] = 'free'; out[#out + 1] = ''; out[#out + 1] = ''
  else
    local entry = { kind = kind, at = now }
    entries[#entries + 1] = entry
    redis.call('HSET', frequencyKey, phone, encode(entries))
    wrote = true
    out[#out + 1] = 'taken'; out[#out + 1] = encode({ entry }); out[#out + 1] = ''
  end
end

-- A few other recipients' fields (about as many as a call adds at most): their old entries go, and a field
-- left empty is deleted; a field with nothing old is left as it is.
local cursor = redis.call('GET', cursorKey) or '0'
local scanned = redis.call('HSCAN', frequencyKey, cursor, 'COUNT', 4)
for j = 1, #scanned[2], 2 do
  local kept, dropped = entriesOf(scanned[2][j + 1])
  if #kept == 0 then
    redis.call('HDEL', frequencyKey, scanned[2][j])
  elseif dropped then
    redis.call('HSET', frequencyKey, scanned[2][j], encode(kept))
  end
end
if scanned[1] ~= cursor then redis.call('SET', cursorKey, scanned[1], 'PX', keep) end
-- Every entry is at most `keep` old once the newest is: the hash goes then. Never shortened.
if wrote and redis.call('PTTL', frequencyKey) < keep then redis.call('PEXPIRE', frequencyKey, keep) end
return out
