--[[
  Meta's marketing cap (131049, src/campaigns/marketing-cap-wait.ts): a user whose MARKETING
  template failed with it gets no MARKETING template from any number of the business portfolio
  until the wait after that failure is over. Texts, utility and authentication templates are
  not capped. Caps are kept as the opt-outs are (src/redis/ledger-marketing-caps.ts): the
  portfolio's record, and a copy per number in its own scope, each a sorted set
  phone → the time the wait ends (ms, the ledger's clock). A copy keeps the later end when two
  arrive, drops the ended ones whenever it is written, and expires once its last one has ended.

  Defines: MARKETING_CAP_CODE, marketingCapApplies(campaignKey), capEnd(capsKey, phone, now),
    recordCap(capsKey, phone, endsAt, now), marketingCapDetail(endsAt)
]]

-- Includes
--- @include "campaign-kind"
--- @include "iso-time"

local MARKETING_CAP_CODE = '131049'

local function marketingCapApplies(campaignKey)
  return campaignKind(campaignKey) == 'MARKETING'
end

-- When the user's cap ends, while it holds at `now`; nil when none holds.
local function capEnd(capsKey, phone, now)
  local endsAt = tonumber(redis.call('ZSCORE', capsKey, phone) or '0')
  if endsAt > now then return endsAt end
  return nil
end

-- 1 if the copy changed. An end already past changes nothing (a late webhook of an old failure).
local function recordCap(capsKey, phone, endsAt, now)
  redis.call('ZREMRANGEBYSCORE', capsKey, '-inf', now)
  if endsAt <= now then return 0 end
  local changed = redis.call('ZADD', capsKey, 'GT', 'CH', endsAt, phone)
  -- Every cap has ended once the last one has (Redis's clock, the ledger's in production): the
  -- key goes then. Never shortened: a later end set it.
  if redis.call('PTTL', capsKey) < endsAt - now then redis.call('PEXPIRE', capsKey, endsAt - now) end
  return changed
end

local function marketingCapDetail(endsAt)
  return 'Meta answered 131049 (its marketing cap for this user) to a recent MARKETING template of this business; ' ..
    'no MARKETING template goes to them before ' .. isoTime(endsAt)
end
