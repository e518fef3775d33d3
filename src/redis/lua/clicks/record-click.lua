#!lua
--[[
  Records a click on a row's tracked link (src/redis/clicks/redis-click-links.ts): the row's
  click count `kn` goes up by one, its first click's time `kt` is set once (the report's
  `clicked_at`), and the campaign's `n:clicked` counts the row at its first click only, in the
  same step as the `row.clicked` event (includes/events.lua) with the destination as its `url`.
  A token the campaign's links do not hold (purged), or a row that is gone, records nothing.

  Input:
    KEYS[1] campaign  hash     <scope>:campaign:<id>
    KEYS[2] rows      hash     <scope>:campaign:<id>:rows (and its lists `:<n>`: includes/row-store.lua)
    KEYS[3] links     hash     <scope>:campaign:<id>:clicks (token → "<row>/<destination>")

    ARGV[1] clock  ms added to Redis's TIME (0 in production), or '@<ms>': a stopped clock (includes/clock.lua)
    ARGV[2] token  the link's token

  Output:
    { destination, 1 if this was the row's first click else 0, the row's clicks } or {} when nothing was recorded.
]]

-- Includes
--- @include "clock"
--- @include "row-codec"
--- @include "row-store"
--- @include "events"

local campaignKey, rowsKey, linksKey = KEYS[1], KEYS[2], KEYS[3]
local link = redis.call('HGET', linksKey, ARGV[2])
if not link then return {} end
local row, destination = string.match(link, '^(%d+)/(.*)$')
if not row then return {} end
local json = rowStored(rowsKey, row)
if not json then return {} end
local now = ledgerNow(ARGV[1])
local rec = decodeRow(json)
rec.kn = (tonumber(rec.kn) or 0) + 1
local first = 0
if not rec.kt then
  rec.kt = now
  first = 1
end
storeRow(rowsKey, row, encodeRow(rec))
if first == 1 then
  redis.call('HINCRBY', campaignKey, 'n:clicked', 1)
  emitRowEvent(campaignKey, row, 'row.clicked', rec, now, { url = destination })
end
return { destination, first, rec.kn }
