--[[
  A time (ms since the epoch) in the bucket maps' values, written short in base 36: exact to
  the ms in 8 characters (until 2059: the duplicate guard's claims, whose window is exact), or
  as whole seconds in 6 (until 2038, then 7: the user links, whose times Meta gives in
  seconds; a campaign's last use of its guard handle), instead of 13 digits of ms. The length
  tells them apart when read; a time written in decimal ms by an older version (12 digits or
  more) is still read. A value packed as bytes (includes/packed-value.lua) ends in its time too.

  Defines: COMPACT_DIGITS; compactScratch, base36(n, width) → text (at least `width` characters);
    compactTime(ms) → 8 characters; compactSeconds(ms) → 6 or 7 characters; timeOfCompact(text) → ms, or nil
    when it is not a time; timeAtEnd(value) → ms of the time that ends a value ("… <time>" or "…/<time>"), or nil
]]
--- @include "packed-value"

local COMPACT_DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz'

-- Digits gathered as bytes and made a string once: a claim writes a time, and a string a digit cost 2.1 µs, this 0.95.
local compactScratch = {}
local function base36(n, width)
  n = math.max(math.floor(tonumber(n) or 0), 0)
  local k = 0
  repeat
    local d = n % 36
    k = k + 1
    compactScratch[k] = string.byte(COMPACT_DIGITS, d + 1)
    n = (n - d) / 36
  until n == 0
  while k < (width or 0) do
    k = k + 1
    compactScratch[k] = 48
  end
  local lo, hi = 1, k
  while lo < hi do
    compactScratch[lo], compactScratch[hi] = compactScratch[hi], compactScratch[lo]
    lo, hi = lo + 1, hi - 1
  end
  return string.char(unpack(compactScratch, 1, k))
end

-- At least 8 characters, so an early time (a test's clock) still reads as ms.
local function compactTime(ms)
  return base36(ms, 8)
end

local function compactSeconds(ms)
  return base36((tonumber(ms) or 0) / 1000)
end

local function timeOfCompact(text)
  if not text or text == '' then return nil end
  if #text >= 12 and string.match(text, '^%d+$') then return tonumber(text) end
  local n = tonumber(text, 36)
  if not n or #text >= 8 then return n end
  return n * 1000
end

local function timeAtEnd(value)
  if isPacked(value) then return packedTime(value) end
  return timeOfCompact(string.match(value, '(%w+)$'))
end
