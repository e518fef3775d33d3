import { createHash } from 'node:crypto';
import type { RedisClient } from '../../src/redis/key-scope.js';
import { loadLuaInclude } from '../../src/redis/lua-scripts.js';

/**
 * Every entry of a number's duplicate guard (includes/sent-guard.lua): its buckets and any older
 * one-hash guard, read by its own Lua, each as "<campaign ID>/<row>/<ms>" (the campaign's handle
 * and the compact time read back).
 */
const READ_ALL = `${loadLuaInclude('sent-guard')}
local state = guardMap(KEYS[1])
local out = {}
local function add(entries)
  for j = 1, #entries, 2 do
    local cid, row, at = guardOwner(KEYS[1], entries[j + 1])
    out[#out + 1] = entries[j]
    out[#out + 1] = cid and (cid .. '/' .. row .. '/' .. string.format('%d', at)) or ('unreadable: ' .. entries[j + 1])
  end
end
for i = 0, state.n - 1 do add(redis.call('HGETALL', state.key .. ':' .. i)) end
add(redis.call('HGETALL', KEYS[1]))
return out`;

/** Writes one entry ("<campaign ID>/<row>/<ms>") as the claim would (no time to live): a test's way to age or plant a send. */
const PUT = `${loadLuaInclude('sent-guard-write')}
local cid, row, at = string.match(ARGV[2], '^(.*)/(%d+)/(%d+)$')
guardRecord(KEYS[1], ARGV[1], cid, row, tonumber(at), 0)
return 1`;

/** A fingerprint of the product's shape (22 characters of base64url of a SHA-256), so the guard's buckets spread as they do for real. */
export function testFingerprint(seed: string): string {
  return createHash('sha256').update(seed).digest('base64url').slice(0, 22);
}

/**
 * Every entry as {field: "<campaign ID>/<row>/<ms>"}, a field of 12 bytes (a fingerprint's first 16 characters, as
 * the guard keys it) as those 16 characters: what putGuardEntry takes to write the same entry again.
 */
export async function guardEntries(redis: RedisClient, sentKey: string): Promise<Record<string, string>> {
  const flat = (await redis.callBuffer('EVAL', READ_ALL, 1, sentKey)) as Buffer[];
  const entries: Record<string, string> = {};
  for (let i = 0; i < flat.length; i += 2) {
    const field = flat[i] ?? Buffer.alloc(0);
    entries[field.length === 12 ? field.toString('base64url') : field.toString()] = flat[i + 1]?.toString() ?? '';
  }
  return entries;
}

export async function putGuardEntry(redis: RedisClient, sentKey: string, fingerprint: string, entry: string): Promise<void> {
  await redis.eval(PUT, 1, sentKey, fingerprint, entry);
}
