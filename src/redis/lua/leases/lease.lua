#!lua
--[[
  Who does a piece of `serve`'s background work: one replica at a time (forwarding to a relay
  target, fanning the numbers' events out, delivering a hook's batches), so it is done in order.
  The replica takes the lease when no one holds it, renews it well before it expires, and gives
  it back when it stops; a replica that died (SIGKILL) loses it when it expires, and another
  takes over from what Redis records of the work (a cursor, an outbox), never from the lease.

  Input:
    KEYS[1] lease   string   <shared>:relay:lease:<target>, <prefix>:hooks:fanout-lease or <prefix>:{hook:<name>}:lease (the holder's owner ID)

    ARGV[1] owner   this replica's owner ID (host, process and a random part)
    ARGV[2] ttl     ms the lease lasts from now; '0': give it back

  Output:
    1 when `owner` holds the lease now (taken or renewed; given back: 1 too), 0 when another replica holds it
]]
local holder = redis.call('GET', KEYS[1])
if ARGV[2] == '0' then
  if holder == ARGV[1] then redis.call('DEL', KEYS[1]) end
  return 1
end
if holder == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
