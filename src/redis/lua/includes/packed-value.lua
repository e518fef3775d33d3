--[[
  Bucket-map values packed as bytes: the user links, which the retention keeps long, and the
  duplicate guard's entries, one a message for a window; each byte counts. A packed value starts
  with a tag byte below 0x20 (the text an older version wrote starts with a digit or a letter)
  and ends in its time:
    PACKED_DIGITS   a user link: a phone's digits ("16505551234") as BCD, 2 a byte (an odd count ends
                    in 0xF), then the seconds Meta confirmed the link, 4 bytes (big-endian, until 2106)
    PACKED_USER_ID  a user link: a business-scoped user ID "<2 letters>.<digits>" (Meta's form:
                    US.13491208655302741918) as the 2 letters, the digits as BCD, then the seconds
    PACKED_GUARD    a guard entry: the campaign's handle (1 byte), the row (3 bytes), the claim's ms (6 bytes)
    PACKED_GUARD_WIDE  the same with a handle of 2 bytes and a row of 4
  A link that packs in none of these (a user ID of letters too, digits past PACKED_MAX_DIGITS)
  stays text "<value> <time>", and a guard entry "<handle>/<row>/<time>" (includes/compact-time.lua);
  both are read both ways. A phone of 12 digits packs in 11 bytes instead of 19, a user ID of 20
  digits in 17 instead of 30, a guard entry in 11 instead of 16.

  Defines: PACKED_DIGITS, PACKED_USER_ID, PACKED_GUARD, PACKED_GUARD_WIDE, PACKED_MAX_DIGITS, PACKED_TAG_BELOW;
    packUint(n, width) → bytes; unpackUint(bytes, from, width) → number; packDigits(digits) → bytes;
    unpackDigits(bytes, from, to) → digits; packLinkValue(text, ms) → bytes, or nil when it does not pack;
    isPacked(value) → boolean; unpackLinkValue(value) → text, ms, or nil; packedTime(value) → ms;
    packGuardValue(handle, row, ms) → bytes, or nil; unpackGuardValue(value) → handle, row, ms, or nil
]]
local PACKED_DIGITS = 1
local PACKED_USER_ID = 2
local PACKED_GUARD = 3
local PACKED_GUARD_WIDE = 4
local PACKED_MAX_DIGITS = 40
local PACKED_TAG_BELOW = 32

local function packUint(n, width)
  local bytes = {}
  for i = width, 1, -1 do
    local b = n % 256
    bytes[i] = b
    n = (n - b) / 256
  end
  return string.char(unpack(bytes, 1, width))
end

local function unpackUint(bytes, from, width)
  local n = 0
  for i = from, from + width - 1 do n = n * 256 + string.byte(bytes, i) end
  return n
end

-- Digits in pairs, the first of a pair in the high nibble; an odd count's last low nibble is 0xF.
local function packDigits(digits)
  local out = {}
  for i = 1, #digits, 2 do
    local hi = string.byte(digits, i) - 48
    local lo = i < #digits and string.byte(digits, i + 1) - 48 or 15
    out[#out + 1] = hi * 16 + lo
  end
  return string.char(unpack(out))
end

local function unpackDigits(bytes, from, to)
  local out = {}
  for i = from, to do
    local b = string.byte(bytes, i)
    local lo = b % 16
    out[#out + 1] = 48 + (b - lo) / 16
    if lo < 10 then out[#out + 1] = 48 + lo end
  end
  return string.char(unpack(out))
end

local function packLinkValue(text, ms)
  if #text > PACKED_MAX_DIGITS + 3 then return nil end
  local seconds = packUint(math.floor(ms / 1000), 4)
  if string.match(text, '^%d+$') then return string.char(PACKED_DIGITS) .. packDigits(text) .. seconds end
  local country, digits = string.match(text, '^(%a%a)%.(%d+)$')
  if country then return string.char(PACKED_USER_ID) .. country .. packDigits(digits) .. seconds end
  return nil
end

local function isPacked(value)
  return #value > 0 and string.byte(value, 1) < PACKED_TAG_BELOW
end

local function packedTime(value)
  local tag = string.byte(value, 1)
  if tag == PACKED_GUARD or tag == PACKED_GUARD_WIDE then return unpackUint(value, #value - 5, 6) end
  return unpackUint(value, #value - 3, 4) * 1000
end

local function unpackLinkValue(value)
  local tag = string.byte(value, 1)
  if #value < 6 then return nil end
  if tag == PACKED_DIGITS then return unpackDigits(value, 2, #value - 4), packedTime(value) end
  if tag == PACKED_USER_ID and #value >= 8 then
    return string.sub(value, 2, 3) .. '.' .. unpackDigits(value, 4, #value - 4), packedTime(value)
  end
  return nil
end

-- Whole ms, as compactTime keeps them.
local function packGuardValue(handle, row, ms)
  handle, row, ms = tonumber(handle), tonumber(row), math.floor(ms)
  if not handle or not row or handle < 0 or row < 0 or ms < 0 or ms >= 2 ^ 48 then return nil end
  if handle < 2 ^ 8 and row < 2 ^ 24 then return string.char(PACKED_GUARD, handle) .. packUint(row, 3) .. packUint(ms, 6) end
  if handle < 2 ^ 16 and row < 2 ^ 32 then return string.char(PACKED_GUARD_WIDE) .. packUint(handle, 2) .. packUint(row, 4) .. packUint(ms, 6) end
  return nil
end

local function unpackGuardValue(value)
  local tag = string.byte(value, 1)
  if tag == PACKED_GUARD and #value == 11 then return unpackUint(value, 2, 1), unpackUint(value, 3, 3), unpackUint(value, 6, 6) end
  if tag == PACKED_GUARD_WIDE and #value == 13 then return unpackUint(value, 2, 2), unpackUint(value, 4, 4), unpackUint(value, 8, 6) end
  return nil
end
