--[[
  A map of many entries kept in small hashes, so that each stays a listpack in Redis
  (hash-max-listpack-entries, 128 by default): an entry costs its field, its value and about
  4 B, instead of about 60 B more in one big hash table. Linear hashing: the map's own hash
  `<map>` holds `n` (its buckets), `count` (its entries) and its walk's `#cursor`, `#walked`
  (includes/bucket-map-write.lua); the entries are in `<map>:<i>`, i from 0 to n - 1. An
  entry's address is the first 32 bits of its field's SHA-1; its bucket, the address's last
  L + 1 bits (2^L <= n < 2^(L+1)), or its last L when those name a bucket not yet split off.
  A map whose fields are digests already may give its own address function (their first bits).
  A lookup is one HGET. The map's state is read once a script run, and kept in step with the
  run's own writes.

  Defines: bucketAddress(field) → 32-bit number; bucketMaps, bucketMapState(key, address) → { key, address,
    n, low (2^L), count }; bucketOf(state, field) → bucket key; bucketMapGet(state, field) → value or nil
]]

local function bucketAddress(field)
  return tonumber(string.sub(redis.sha1hex(field), 1, 8), 16)
end

local bucketMaps = {}
local function bucketMapState(key, address)
  local state = bucketMaps[key]
  if state then return state end
  local stored = redis.call('HMGET', key, 'n', 'count')
  state = { key = key, address = address or bucketAddress, n = math.max(tonumber(stored[1] or '1') or 1, 1), count = math.max(tonumber(stored[2] or '0') or 0, 0), low = 1 }
  while state.low * 2 <= state.n do state.low = state.low * 2 end
  bucketMaps[key] = state
  return state
end

local function bucketOf(state, field)
  local address = state.address(field)
  local b = address % (state.low * 2)
  if b >= state.n then b = address % state.low end
  return state.key .. ':' .. b
end

local function bucketMapGet(state, field)
  return redis.call('HGET', bucketOf(state, field), field) or nil
end
