--[[
  A user link's value packed as bytes: the bucket maps hold one per user and the retention keeps
  them long, so each byte counts. A packed value starts with a tag byte below 0x20 (the text
  an older version wrote starts with a digit or a letter) and ends in the time Meta confirmed
  the link, whole seconds as 4 bytes (big-endian, until 2106):
    PACKED_DIGITS   a phone's digits ("16505551234") as BCD, 2 a byte (an odd count ends in 0xF)
    PACKED_USER_ID  a business-scoped user ID "<2 letters>.<digits>" (Meta's form: US.13491208655302741918)
                    as the 2 letters, then the digits as BCD
  Anything else (a user ID of letters too, digits past PACKED_MAX_DIGITS) is kept as text
  "<value> <time>" (includes/compact-time.lua), and read both ways. A phone of 12 digits packs
  in 11 bytes instead of 19, a user ID of 20 digits in 17 instead of 30.

  Defines: PACKED_DIGITS, PACKED_USER_ID, PACKED_MAX_DIGITS, PACKED_TAG_BELOW; packUint(n, width) → bytes;
    unpackUint(bytes, from, width) → number; packDigits(digits) → bytes; unpackDigits(bytes, from, to) → digits;
    packLinkValue(text, ms) → bytes, or nil when it does not pack; isPacked(value) → boolean;
    unpackLinkValue(value) → text, ms, or nil; packedTime(value) → ms
]]
local PACKED_DIGITS = 1
local PACKED_USER_ID = 2
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
