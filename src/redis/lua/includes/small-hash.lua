--[[
  A hash stored as many small ones, so that Redis keeps each as a listpack (about 40 B a field
  of the guard's size instead of about 120 in one big hash table) whatever its size: linear
  hashing. The fields live in `<base>:<n>`, n from 0 to the number of buckets - 1, and
  `<base>:meta` keeps `level`, `split` and `count` (absent: 0, 0, 0). A field's bucket is its
  code mod 2^level, or its code mod 2^(level + 1) when the first is below `split`; the code is
  the first 32 bits of the field's SHA-1. Once the count passes SMALL_HASH_FILL a bucket, bucket
  `split` splits: the fields the wider mod sends to `split` + 2^level move there, and `split`
  moves on (at 2^level the level grows and `split` is 0 again). A lookup reads one bucket; a
  split moves about SMALL_HASH_FILL / 2 fields, once for every SMALL_HASH_FILL new ones. A bucket
  not split yet in its round holds up to twice the fill: 80 at 40, under the 128 fields that
  hash-max-listpack-entries allows by default. Buckets are never merged.

  Reading it is includes/small-hash-read.lua.

  Defines: smallHashCounted(base, change): adds change to the count (fields removed another way);
    smallHashSplit(base, level, split); smallHashSet(base, field, value) → the field's bucket key,
    1 when the field is new (else 0); smallHashDel(base, field) → 1 when it removed the field, else 0
]]

-- Includes
--- @include "small-hash-read"

local function smallHashCounted(base, change)
  if tonumber(redis.call('HINCRBY', base .. ':meta', 'count', change)) < 0 then redis.call('HSET', base .. ':meta', 'count', 0) end
end

-- Splits bucket `split`: the fields whose code mod 2^(level + 1) is the new bucket move there.
local function smallHashSplit(base, level, split)
  local from, to = base .. ':' .. string.format('%d', split), base .. ':' .. string.format('%d', split + 2 ^ level)
  local fields = redis.call('HGETALL', from)
  local moved, gone = {}, {}
  for i = 1, #fields, 2 do
    if smallHashCode(fields[i]) % 2 ^ (level + 1) ~= split then
      moved[#moved + 1] = fields[i]
      moved[#moved + 1] = fields[i + 1]
      gone[#gone + 1] = fields[i]
    end
  end
  if #gone > 0 then
    redis.call('HSET', to, unpack(moved))
    redis.call('HDEL', from, unpack(gone))
    local ttl = redis.call('PTTL', from)
    if ttl > 0 then redis.call('PEXPIRE', to, ttl) end
  end
  split = split + 1
  if split == 2 ^ level then level, split = level + 1, 0 end
  redis.call('HSET', base .. ':meta', 'level', level, 'split', split)
end

local function smallHashSet(base, field, value)
  local level, split, count = smallHashLayout(base)
  local bucket = smallHashBucket(base, field, level, split)
  local new = redis.call('HSET', bucket, field, value)
  if new == 1 then
    redis.call('HINCRBY', base .. ':meta', 'count', 1)
    if count + 1 > SMALL_HASH_FILL * smallHashBuckets(level, split) then
      smallHashSplit(base, level, split)
      level, split = smallHashLayout(base)
      bucket = smallHashBucket(base, field, level, split)
    end
  end
  return bucket, new
end

local function smallHashDel(base, field)
  local level, split = smallHashLayout(base)
  local removed = redis.call('HDEL', smallHashBucket(base, field, level, split), field)
  if removed == 1 then smallHashCounted(base, -1) end
  return removed
end
