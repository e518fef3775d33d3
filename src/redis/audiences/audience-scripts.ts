import { defineLuaCommandsLazily } from '../lua-scripts.js';
import type { RedisClient } from '../key-scope.js';

/**
 * A re-import whose file lacks some of the audience's columns: each contact keeps its values
 * of those columns and takes the file's for the others, so the packed array is read and
 * rewritten in Redis, one chunk of contacts per call (no round trip per contact).
 */
const MERGE_LUA = `--[[
  Upserts contacts into an audience, keeping the values of the columns the file does not have.
  Input:
    KEYS[1] contacts  hash  <portfolio scope>:audience:<name>:contacts
    ARGV[1] columns   how many columns the audience has
    ARGV[2] given     how many of them the file gives (k)
    then k positions (1-based) of the file's columns, then 1 + k per contact: phone, values
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
`;

/**
 * A re-import's new columns join the audience's list (at its end, each once) before any
 * contact is written with them: two imports at once each see the other's columns.
 */
const COLUMNS_LUA = `--[[
  Appends the file's columns the audience does not have yet to its column list.
  Input:
    KEYS[1] meta  hash  <portfolio scope>:audience:<name>:meta
    ARGV    the file's columns, in order
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
`;

interface AudienceCommands {
  cwAudienceMerge(contacts: string, ...args: (string | number)[]): Promise<number>;
  cwAudienceColumns(meta: string, ...columns: string[]): Promise<string | null>;
}

/** The audience scripts on this connection (each defined at its first use). */
export function audienceScripts(redis: RedisClient): AudienceCommands {
  defineLuaCommandsLazily(redis, {
    cwAudienceMerge: () => ({ lua: MERGE_LUA, numberOfKeys: 1 }),
    cwAudienceColumns: () => ({ lua: COLUMNS_LUA, numberOfKeys: 1 }),
  });
  const commands = redis as unknown as AudienceCommands;
  return {
    cwAudienceMerge: (contacts, ...args) => commands.cwAudienceMerge(contacts, ...args),
    cwAudienceColumns: (meta, ...columns) => commands.cwAudienceColumns(meta, ...columns),
  };
}
