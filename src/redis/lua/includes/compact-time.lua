--[[
  A time (ms since the epoch) in the bucket maps' values, written short in base 36: exact to
  the ms in 8 characters (until 2059: the duplicate guard's claims, whose window is exact), or
  as whole seconds in 6 (until 2038, then 7: the user links, whose times Meta gives in
  seconds), instead of 13 digits of ms. The length tells them apart when read; a time written in decimal ms by an
  older version (12 digits or more) is still read.

  Defines: COMPACT_DIGITS; base36(n) → text; compactTime(ms) → 8 characters; compactSeconds(ms) → 6 or 7
    characters; timeOfCompact(text) → ms, or nil when it is not a time; timeAtEnd(value) → ms of the time
    that ends a value ("… <time>" or "…/<time>"), or nil
]]
local COMPACT_DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz'

local function base36(n)
  n = math.floor(tonumber(n) or 0)
  if n <= 0 then return '0' end
  local out = ''
  while n > 0 do
    local d = n % 36
    out = string.sub(COMPACT_DIGITS, d + 1, d + 1) .. out
    n = (n - d) / 36
  end
  return out
end

-- At least 8 characters, so an early time (a test's clock) still reads as ms.
local function compactTime(ms)
  local text = base36(ms)
  return string.rep('0', 8 - #text) .. text
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
  return timeOfCompact(string.match(value, '(%w+)$'))
end
