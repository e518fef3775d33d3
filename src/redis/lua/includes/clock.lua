--[[
  The ledger's clock, the one every script judges time by: Redis's TIME in ms, plus an
  offset the caller passes as the script's `clock` argument. Production passes 0, so every
  worker and command of every host shares Redis's clock. Tests move the clock by changing
  the offset, or stop it with '@<ms>' (the clock then stands at that time and TIME is not
  read), so no test has to wait for time to pass (src/redis/ledger-clock.ts).

  Defines: ledgerNow(clock) → the time now, ms
]]
local function ledgerNow(clock)
  local stopped = string.match(clock or '', '^@(%-?%d+)$')
  if stopped then return tonumber(stopped) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + (tonumber(clock) or 0)
end
