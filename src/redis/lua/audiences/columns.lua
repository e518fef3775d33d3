#!lua
--[[
  Appends the file's columns the audience does not have yet to its column list.

  Input:
    KEYS[1] meta      hash     <portfolio scope>:audience:<name>:meta

    ARGV: the file's columns, in order
  Output:
    the audience's columns after (JSON), or false when the audience does not exist
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local columns = {}
local stored = redis.call('HGET', KEYS[1], 'columns')
if stored then
  local ok, decoded = pcall(cjson.decode, stored)
  if ok and type(decoded) == 'table' then columns = decoded end
end
local seen = {}
for _, column in ipairs(columns) do seen[column] = true end
local grown = false
for i = 1, #ARGV do
  if not seen[ARGV[i]] then
    columns[#columns + 1] = ARGV[i]
    seen[ARGV[i]] = true
    grown = true
  end
end
if #columns == 0 then return '[]' end
local encoded = cjson.encode(columns)
if grown then redis.call('HSET', KEYS[1], 'columns', encoded) end
return encoded
