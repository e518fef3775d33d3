--[[
  A time as the details stored on rows write it, ISO 8601 in UTC to the second (as
  src/campaigns/marketing-cap-wait.ts writes it in TypeScript). Redis's Lua has no date
  library: the civil date of a day count is Howard Hinnant's `civil_from_days`.

  Defines: isoTime(ms)
]]
local function isoTime(ms)
  local seconds = math.floor(ms / 1000)
  local days = math.floor(seconds / 86400)
  local rest = seconds - days * 86400
  local z = days + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local day = doy - math.floor((153 * mp + 2) / 5) + 1
  local month = mp + 3
  if month > 12 then month = month - 12 end
  local year = yoe + era * 400
  if month <= 2 then year = year + 1 end
  return string.format('%04d-%02d-%02dT%02d:%02d:%02dZ', year, month, day, math.floor(rest / 3600), math.floor(rest / 60) % 60, rest % 60)
end
