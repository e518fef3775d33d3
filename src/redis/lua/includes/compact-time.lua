--[[
  A time (ms since the epoch) in the bucket maps' values, written short: base 36, 8 characters
  until 2059 instead of 13 digits. A time written in decimal by an older version (12 digits or
  more, where base 36 has 8 or 9) is still read.

  Defines: COMPACT_DIGITS; compactTime(ms) → text; timeOfCompact(text) → ms, or nil when it is not a time; timeAtEnd(value)
    → ms of the time that ends a value ("… <time>" or "…/<time>"), or nil
]]
local COMPACT_DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz'

local function compactTime(ms)
  local n = math.floor(tonumber(ms) or 0)
  if n <= 0 then return '0' end
  local out = ''
  while n > 0 do
    local d = n % 36
    out = string.sub(COMPACT_DIGITS, d + 1, d + 1) .. out
    n = (n - d) / 36
  end
  return out
end

local function timeOfCompact(text)
  if not text or text == '' then return nil end
  if #text >= 12 and string.match(text, '^%d+$') then return tonumber(text) end
  return tonumber(text, 36)
end

local function timeAtEnd(value)
  return timeOfCompact(string.match(value, '(%w+)$'))
end
