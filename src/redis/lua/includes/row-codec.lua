--[[
  A row's record as the `rows` hash keeps it. Rows stay for the retention period, and their
  bytes are most of what a deployment's Redis holds, so a record is MessagePack (cmsgpack, in
  C: a read and a write cost about what cjson's did) of an array whose places are the fields a
  sent row has, without their names: ROW_PLACES. Every other field goes in one map at place
  ROW_EXTRA, there only when the row has one. An absent field in a place is `false`, and
  trailing `false`s are cut. The status and the pricing category are small numbers where they
  are one of ROW_STATUS_CODES / ROW_PRICING_CODES (any other text stays text). `dt`, `rt` and
  `ft` (Meta's times of the row's statuses) are kept as ms after `ct` (the claim) when the row
  has a `ct`. A phone in E.164 (`p`) is kept as the number its digits make (MessagePack's
  uint64, 9 bytes instead of 15), any other recipient as text. A record stored as JSON (the
  form before this one, first byte `{`) is read as such, and written back in this form. src/redis/ledger/row-codec.ts reads the same form for
  the TypeScript side, and test/integration/row-codec.test.ts holds the two to each other.

  Defines: ROW_PLACES, ROW_EXTRA, ROW_STATUS_CODES, ROW_PRICING_CODES, ROW_STATUS_CODE, ROW_PRICING_CODE,
    ROW_PLACED, afterClaim, phoneStored, phoneRead; encodeRow(rec) → the stored text; decodeRow(stored) → the
    record
]]
local ROW_PLACES = { 's', 'a', 'p', 'm', 'ct', 'dt', 'rt', 'pc', 'pb', 'v' }
local ROW_EXTRA = #ROW_PLACES + 1
-- In the order of ROW_STATUSES (src/campaigns/campaign.ts): a status's code is its place there. Stored
-- rows hold these codes: a new status goes at the end of both lists, never in between.
local ROW_STATUS_CODES = {
  'queued', 'sending', 'confirming', 'held', 'sent', 'failed', 'rejected', 'skipped', 'unknown', 'cancelled', 'expired',
}
-- Meta's `pricing.category` values (ROW_PRICING_CODES of row-codec.ts); new ones at the end, as statuses.
local ROW_PRICING_CODES = {
  'marketing', 'utility', 'authentication', 'authentication_international', 'service', 'marketing_lite', 'referral_conversion',
}

-- Each list's index, written out beside it: built in loops they cost every script that includes this 2.3 µs a call,
-- written out 0.5. test/integration/row-codec.test.ts fails where a list and its index part.
local ROW_STATUS_CODE = {
  queued = 1, sending = 2, confirming = 3, held = 4, sent = 5, failed = 6, rejected = 7, skipped = 8, unknown = 9, cancelled = 10,
  expired = 11,
}
local ROW_PRICING_CODE = {
  marketing = 1, utility = 2, authentication = 3, authentication_international = 4, service = 5, marketing_lite = 6,
  referral_conversion = 7,
}
local ROW_PLACED = { s = 1, a = 2, p = 3, m = 4, ct = 5, dt = 6, rt = 7, pc = 8, pb = 9, v = 10 }

-- `value` as ms after the claim `ct` when both are numbers (a row's status times), else as it is.
local function afterClaim(value, ct)
  if type(value) == 'number' and type(ct) == 'number' then return value - ct end
  return value
end

-- Up to 15 digits (E.164's most) after `+`: a double holds them exactly, and cmsgpack packs it as an integer.
local function phoneStored(p)
  if type(p) == 'string' and #p <= 16 and string.match(p, '^%+[1-9]%d+$') then return tonumber(string.sub(p, 2)) end
  return p
end

local function phoneRead(p)
  if type(p) == 'number' then return '+' .. string.format('%d', p) end
  return p
end

-- The places written out, not looped over: this runs for every row a script reads or writes.
local function encodeRow(rec)
  local ct, s, pc = rec.ct, rec.s, rec.pc
  local out = {
    ROW_STATUS_CODE[s] or s or false, rec.a or false, phoneStored(rec.p) or false, rec.m or false, ct or false,
    afterClaim(rec.dt, ct) or false, afterClaim(rec.rt, ct) or false, ROW_PRICING_CODE[pc] or pc or false, rec.pb or false,
    rec.v or false,
  }
  local extra
  for field, value in pairs(rec) do
    if not ROW_PLACED[field] then
      extra = extra or {}
      extra[field] = field == 'ft' and afterClaim(value, ct) or value
    end
  end
  if extra then
    out[ROW_EXTRA] = extra
  else
    local last = #ROW_PLACES
    while last > 0 and out[last] == false do
      out[last] = nil
      last = last - 1
    end
  end
  return cmsgpack.pack(out)
end

local function decodeRow(stored)
  if string.byte(stored, 1) == 123 then return cjson.decode(stored) end
  local list = cmsgpack.unpack(stored)
  local rec = list[ROW_EXTRA] or {}
  local s, ct, pc = list[1], list[5], list[8]
  if s then rec.s = ROW_STATUS_CODES[s] or s end
  if list[2] then rec.a = list[2] end
  if list[3] then rec.p = phoneRead(list[3]) end
  if list[4] then rec.m = list[4] end
  if ct then rec.ct = ct else ct = nil end
  if list[6] then rec.dt = afterClaim(list[6], ct and -ct) end
  if list[7] then rec.rt = afterClaim(list[7], ct and -ct) end
  if pc then rec.pc = ROW_PRICING_CODES[pc] or pc end
  if list[9] then rec.pb = list[9] end
  if list[10] then rec.v = list[10] end
  if rec.ft then rec.ft = afterClaim(rec.ft, ct and -ct) end
  return rec
end
