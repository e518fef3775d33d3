#!lua
--[[
  Changes one copy of a business portfolio's opt-outs: the portfolio's own record (in its
  scope) or a number's copy (in the number's scope, read by claim, retry and ingest). Every
  opt-out or lift is applied to the record and to each copy by this one script, one call per
  copy (on Redis Cluster each copy is in a slot of its own), so the rules below are the same
  everywhere and the copies agree whatever order the calls run in:
    - `stop` / `resume` (`user_preferences`, reference §3.5): the newest event per user wins
      (its time is kept in `prefs`), so a late, older `stop` cannot undo a newer `resume`, and
      duplicates change nothing;
    - `add` (131050, an opt-out keyword, an operator): records the opt-out unless one is
      there already (its first source is kept);
    - `remove` (an operator): takes it off.

  Input:
    KEYS[1] optouts    hash     <scope>:optouts:<number> or <portfolio scope>:optouts (phone → source JSON)
    KEYS[2] prefs      hash     <scope>:optout-prefs:<number> or <portfolio scope>:optout-prefs (phone → ms of the newest stop/resume)

    then 4 per event, from ARGV[1] on:
    ARGV[1] phone   the recipient's phone (+digits)
    ARGV[2] action  'stop' | 'resume' | 'add' | 'remove'
    ARGV[3] at      the event's time (ms; what stop and resume compare)
    ARGV[4] source  the opt-out's source JSON (stop, add; '' otherwise)

  Output:
    Per event, 1 if it changed this copy, else 0.
]]

local optouts, prefs = KEYS[1], KEYS[2]
local out = {}
for i = 1, #ARGV, 4 do
  local phone, action, at, source = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2]), ARGV[i + 3]
  local changed = 0
  if action == 'stop' or action == 'resume' then
    local last = tonumber(redis.call('HGET', prefs, phone) or '-1')
    if at > last then
      redis.call('HSET', prefs, phone, at)
      if action == 'stop' then
        redis.call('HSET', optouts, phone, source)
      else
        redis.call('HDEL', optouts, phone)
      end
      changed = 1
    end
  elseif action == 'add' then
    changed = redis.call('HSETNX', optouts, phone, source)
  elseif action == 'remove' then
    changed = redis.call('HDEL', optouts, phone)
  end
  out[#out + 1] = changed
end
return out
