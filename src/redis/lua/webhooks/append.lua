#!lua
--[[
  The webhook intake's one step, between a signature checked and Meta's answer. Meta's
  signatures carry no timestamp, so a captured body can be posted again without end: a body
  whose signature the inbox holds unconsumed is not stored again (Meta is answered 200: the
  inbox has it). Past `max` entries nothing is stored (Meta is answered 503 and retries
  later), so a flood cannot fill Redis and stop the sends. Checked and stored in one step, so
  two replicas of `serve` taking the same body at once store it once, and the bound holds
  whatever their number.

  A signature is held from the append until the consumer acknowledges its entry (it deletes
  the signature in the same MULTI as the entry). A signature whose entry is gone without that
  (the stream deleted by hand, an older consumer) is not a replay: the body is stored again.

  With relay on (RELAY_WEBHOOKS), a stored body is also appended to the relay stream in the
  same step, numbered by the relay's `appended` count: it is forwarded exactly when the inbox
  took it, and a replay or a refused body is not. The relay stream is not bounded here: its
  forwarder trims it once every target is past an entry.

  Input:
    KEYS[1] inbox        stream   <shared>:webhooks:inbox (fields body, at, sig)
    KEYS[2] held         hash     <shared>:webhooks:inbox-held (signature → entry ID)
    KEYS[3] intake       hash     <shared>:webhooks:intake (replays, full → how many)
    KEYS[4] relay        stream   <shared>:webhooks:relay (fields body, at, type, n)
    KEYS[5] relay-stats  hash     <shared>:relay:stats (appended → how many)

    ARGV[1] signature     the body's HMAC-SHA256, 64 lowercase hex digits
    ARGV[2] body          the bytes as received
    ARGV[3] at            ms received
    ARGV[4] max           entries the inbox may hold (WEBHOOK_INBOX_MAX)
    ARGV[5] relay         '1': append a stored body to the relay stream too; '0': relay is off
    ARGV[6] content-type  the request's Content-Type, forwarded with the body

  Output:
    {'stored', entry ID} | {'replay', the held entry's ID} | {'full', entries held}
]]
local held = redis.call('HGET', KEYS[2], ARGV[1])
if held then
  if #redis.call('XRANGE', KEYS[1], held, held) > 0 then
    redis.call('HINCRBY', KEYS[3], 'replays', 1)
    return {'replay', held}
  end
end
local length = redis.call('XLEN', KEYS[1])
if length >= tonumber(ARGV[4]) then
  redis.call('HINCRBY', KEYS[3], 'full', 1)
  return {'full', tostring(length)}
end
local id = redis.call('XADD', KEYS[1], '*', 'body', ARGV[2], 'at', ARGV[3], 'sig', ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], id)
if ARGV[5] == '1' then
  local n = redis.call('HINCRBY', KEYS[5], 'appended', 1)
  redis.call('XADD', KEYS[4], '*', 'body', ARGV[2], 'at', ARGV[3], 'type', ARGV[6], 'n', n)
end
return {'stored', id}
