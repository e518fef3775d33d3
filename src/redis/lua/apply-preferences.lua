--[[
  Marketing stop / resume from `user_preferences` webhooks (reference §3.5): stop adds the
  user to the number's opt-outs, resume removes them. The newest event per user wins (its
  time is kept in `optout-prefs`), so a late, older `stop` cannot undo a newer `resume`, and
  duplicates change nothing. Keys are built here from the prefix and each event's phone
  number ID.

  Input:
    KEYS[1] optouts    hash     <scope>:optouts:<number> (names the slot; every event of a call is for this number)

    ARGV[1] the number's key scope, <prefix>:{<number>} (src/redis/key-scope.ts)
    then 4 per event, from ARGV[2] on:
    ARGV[2] phone number ID
    ARGV[3] the user's WhatsApp ID (digits)
    ARGV[4] 'stop' | 'resume'
    ARGV[5] Meta's timestamp (ms)

  Output:
    How many events changed something.
]]

local prefix = ARGV[1]
local changed = 0
for i = 2, #ARGV, 4 do
  local numberId, waId, value, at = ARGV[i], ARGV[i + 1], ARGV[i + 2], tonumber(ARGV[i + 3])
  local prefsKey = prefix .. ':optout-prefs:' .. numberId
  local optouts = prefix .. ':optouts:' .. numberId
  local phone = '+' .. waId
  local last = tonumber(redis.call('HGET', prefsKey, phone) or '-1')
  if at > last then
    redis.call('HSET', prefsKey, phone, at)
    if value == 'stop' then
      redis.call('HSET', optouts, phone, cjson.encode({ campaignId = '', row = 0, at = at, via = 'user_preferences' }))
    else
      redis.call('HDEL', optouts, phone)
    end
    changed = changed + 1
  end
end
return changed
