--[[
  Where a campaign's rows are kept: lists of ROW_CHUNK records, `<rows>:<n>` holding rows
  n × ROW_CHUNK to (n + 1) × ROW_CHUNK - 1, each at its place (row mod ROW_CHUNK), an empty
  string where a row is not stored. Redis keeps a short list as one listpack: a record costs its
  bytes and about 3 more, where an entry of one big hash cost about 55 more; and a list, unlike a
  small hash, keeps it so at any length. Rows an older version kept in one hash, `<rows>` itself,
  are read there until a script writes them again: then they move to their list.
  src/redis/ledger/row-chunks.ts reads the same lists.

  Defines: ROW_CHUNK; rowChunk(rowsKey, row) → list key, place (from 0); rowStored(rowsKey, row) → the record
    as stored, or false; storeRow(rowsKey, row, stored)
]]
--- @include "older-hash"

local ROW_CHUNK = 64

local function rowChunk(rowsKey, row)
  local n = tonumber(row)
  return rowsKey .. ':' .. math.floor(n / ROW_CHUNK), n % ROW_CHUNK
end

local function rowStored(rowsKey, row)
  local key, place = rowChunk(rowsKey, row)
  local stored = redis.call('LINDEX', key, place)
  if stored and stored ~= '' then return stored end
  return olderHashGet(rowsKey, row)
end

-- A row stored again (a claim, a settle, a status) is an LSET in place; only a new row's list
-- grows, up to its place.
local function storeRow(rowsKey, row, stored)
  local key, place = rowChunk(rowsKey, row)
  local set = redis.pcall('LSET', key, place, stored)
  if type(set) == 'table' and set.err then
    local tail = {}
    for _ = redis.call('LLEN', key), place - 1 do tail[#tail + 1] = '' end
    tail[#tail + 1] = stored
    redis.call('RPUSH', key, unpack(tail))
  end
  if olderHashExists(rowsKey) then redis.call('HDEL', rowsKey, row) end
end
