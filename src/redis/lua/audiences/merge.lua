#!lua
--[[
  Upserts contacts into an audience, keeping the values of the columns the file does not have.

  Input:
    KEYS[1] contacts  hash     <portfolio scope>:audience:<name>:contacts

    ARGV[1] columns   how many columns the audience has
    ARGV[2] given     how many of them the file gives (k)
    then k positions (1-based) of the file's columns, then 1 + k per contact (phone, its values)
  Output:
    the number of contacts that were not in the audience before
]]
local columns = tonumber(ARGV[1])
local given = tonumber(ARGV[2])
local positions = {}
for j = 1, given do positions[j] = tonumber(ARGV[2 + j]) end
local added = 0
local i = 3 + given
while i <= #ARGV do
  local phone = ARGV[i]
  local old = redis.call('HGET', KEYS[1], phone)
  local values = {}
  if old then
    local ok, decoded = pcall(cjson.decode, old)
    if ok and type(decoded) == 'table' then values = decoded end
  else
    added = added + 1
  end
  for c = 1, columns do
    if type(values[c]) ~= 'string' then values[c] = '' end
  end
  for j = 1, given do values[positions[j]] = ARGV[i + j] end
  redis.call('HSET', KEYS[1], phone, cjson.encode(values))
  i = i + 1 + given
end
return added
