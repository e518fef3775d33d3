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

  Input:
    KEYS[1] inbox      stream   <shared>:webhooks:inbox (fields body, at, sig)
    KEYS[2] held       hash     <shared>:webhooks:inbox-held (signature → entry ID)
    KEYS[3] intake     hash     <shared>:webhooks:intake (replays, full → how many)

    ARGV[1] signature  the body's HMAC-SHA256, 64 lowercase hex digits
    ARGV[2] body       the bytes as received
    ARGV[3] at         ms received
    ARGV[4] max        entries the inbox may hold (WEBHOOK_INBOX_MAX)

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
return {'stored', id}
