#!lua
--[[
  One login to the dashboard, after its password was compared: a refusal while the client's
  address or the user tried has reached its limit of failures this window, else a failure
  counted (a wrong password) or nothing (the right one). Read and counted in one step, so a
  flood of logins sent at once, to one `serve` or several, gets no more answers that say
  "wrong" than the limit: Redis runs the steps one after the other. A login refused is not a
  failure counted: a lock ends with its window however long a client keeps trying, and an
  address already locked adds nothing to the user's count, so it cannot lock the user out.

  Input:
    KEYS[1] address    string   <prefix>:{<prefix>:dashboard-login}:address:<address>:<window> (failures)
    KEYS[2] user       string   <prefix>:{<prefix>:dashboard-login}:user:<digest>:<window> (failures)
    KEYS[3] refusals   hash     <prefix>:{<prefix>:dashboard-login}:refusals (reason → how many)

    ARGV[1] login          'right' (the password matched) or 'wrong'
    ARGV[2] address-limit  failures an address may have in a window
    ARGV[3] user-limit     failures a user may have in a window
    ARGV[4] expires-in     ms until a new count expires (the rest of the window and some)

  Output:
    {'address'} | {'user'}: refused, that count has reached its limit (counted in refusals as
    throttled_address / throttled_user);
    {'open'}: the right password, nothing counted;
    {'failed', address reached, user reached}: a failure counted (wrong_credentials in
    refusals); each reached is 1 when this failure brought its count to the limit, else 0
]]
local addressLimit, userLimit = tonumber(ARGV[2]), tonumber(ARGV[3])
if tonumber(redis.call('GET', KEYS[1]) or '0') >= addressLimit then
  redis.call('HINCRBY', KEYS[3], 'throttled_address', 1)
  return {'address'}
end
if tonumber(redis.call('GET', KEYS[2]) or '0') >= userLimit then
  redis.call('HINCRBY', KEYS[3], 'throttled_user', 1)
  return {'user'}
end
if ARGV[1] == 'right' then
  return {'open'}
end
local function fail(key)
  local n = redis.call('INCR', key)
  if n == 1 then
    redis.call('PEXPIRE', key, ARGV[4])
  end
  return n
end
local addressFailures, userFailures = fail(KEYS[1]), fail(KEYS[2])
redis.call('HINCRBY', KEYS[3], 'wrong_credentials', 1)
return {'failed', addressFailures == addressLimit and 1 or 0, userFailures == userLimit and 1 or 0}
