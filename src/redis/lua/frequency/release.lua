#!lua
--[[
  Takes back sends take.lua counted that never reached Meta (refused before the request, a
  failed answer, a row put back for another attempt): each entry once, by the text take.lua
  returned for it.

  Input:
    KEYS[1] frequency  hash     <portfolio scope>:frequency (phone → its sends)

    then 2 per row, from ARGV[1] on:
    ARGV[1] phone    the recipient, E.164
    ARGV[2] entry    the entry take.lua recorded

  Output:
    The number of entries taken back.
]]

local frequencyKey = KEYS[1]
local released = 0
for i = 1, #ARGV, 2 do
  local phone, entry = ARGV[i], ARGV[i + 1]
  local field = redis.call('HGET', frequencyKey, phone)
  if field then
    local kept, dropped = {}, false
    for part in string.gmatch(field, '[^,]+') do
      if not dropped and part == entry then dropped = true else kept[#kept + 1] = part end
    end
    if dropped then
      released = released + 1
      if #kept == 0 then redis.call('HDEL', frequencyKey, phone) else redis.call('HSET', frequencyKey, phone, table.concat(kept, ',')) end
    end
  end
end
return released
