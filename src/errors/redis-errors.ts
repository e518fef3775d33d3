/**
 * Redis's own refusals, by the code its error reply starts with (the protocol's convention:
 * `OOM command not allowed …`), never by the rest of the text.
 */

/** Redis refused a write because its maxmemory is reached and its policy evicts nothing (noeviction). */
export function isRedisOutOfMemory(error: unknown): boolean {
  return error instanceof Error && error.name === 'ReplyError' && /^OOM\b/.test(error.message);
}

/** What to do about it, for every command's message. */
export const REDIS_FULL_ADVICE =
  'Free memory in Redis (`campaign purge` finished campaigns, or a lower RETENTION_DAYS) or raise its maxmemory';
