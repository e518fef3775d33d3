#!lua
--[[
  Adds consent entries (opt-ins and opt-outs) to their recipients' histories in one business
  portfolio: each history newest first, at most `keep` entries (the oldest go). In one step, so
  two writers (an import and a webhook) adding to the same person at once cannot lose each
  other's entry, and the bound holds.

  A history is one hash field, phone digits → its entries joined by ',', each
  `<kind><at>.<source id>`: kind '+' (opt-in) or '-' (opt-out), at as 9 base-36 digits (fixed
  width, so comparing the text compares the times), and the source's number in `sources`
  (base 36). A source's words are kept once per portfolio: a million people who signed up
  through one form share one copy of "consent file signup.csv: web form".

  An entry is placed before every entry of the same time or older (of two at the same time, the
  one recorded later is newer). An entry equal to one already kept (kind, time and source) is
  not added again: a webhook delivered twice, or opt-outs replayed onto a new number, leave
  one entry.

  Input:
    KEYS[1] consent  hash  <portfolio scope>:consent (phone digits → entries, newest first)
    KEYS[2] sources  hash  <portfolio scope>:consent-sources (s:<words> → id, i:<id> → words, n → the last id)

    ARGV[1] keep     entries kept per person
    then 4 per entry, from ARGV[2] on:
    ARGV[2] phone    the recipient's phone, digits without '+'
    ARGV[3] kind     '+' opt-in or '-' opt-out
    ARGV[4] at       ms since the epoch as 9 base-36 digits
    ARGV[5] source   how it was given, in words

  Output:
    How many entries were added (an entry equal to one kept is not).
]]

local consent, sources = KEYS[1], KEYS[2]
local keep = tonumber(ARGV[1])
local DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz'

local function base36(n)
  local text = ''
  repeat
    local digit = n % 36
    text = string.sub(DIGITS, digit + 1, digit + 1) .. text
    n = (n - digit) / 36
  until n == 0
  return text
end

-- Each source's id, looked up or given once per call.
local ids = {}
local function sourceId(words)
  local id = ids[words]
  if id then return id end
  id = redis.call('HGET', sources, 's:' .. words)
  if not id then
    id = base36(redis.call('HINCRBY', sources, 'n', 1))
    redis.call('HSET', sources, 's:' .. words, id, 'i:' .. id, words)
  end
  ids[words] = id
  return id
end

-- Each touched history, read once, written once at the end.
local histories, touched = {}, {}
local function historyOf(phone)
  local entries = histories[phone]
  if entries then return entries end
  entries = {}
  local stored = redis.call('HGET', consent, phone)
  if stored then
    for entry in string.gmatch(stored, '[^,]+') do entries[#entries + 1] = entry end
  end
  histories[phone] = entries
  touched[#touched + 1] = phone
  return entries
end

local added = 0
for i = 2, #ARGV, 4 do
  local phone, kind, at, words = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local entry = kind .. at .. '.' .. sourceId(words)
  local entries = historyOf(phone)
  local place, duplicate = #entries + 1, false
  for j = 1, #entries do
    if entries[j] == entry then
      duplicate = true
      break
    end
    if place > #entries and string.sub(entries[j], 2, 10) <= at then place = j end
  end
  if not duplicate then
    table.insert(entries, place, entry)
    while #entries > keep do table.remove(entries) end
    added = added + 1
  end
end

for _, phone in ipairs(touched) do
  redis.call('HSET', consent, phone, table.concat(histories[phone], ','))
end
return added
