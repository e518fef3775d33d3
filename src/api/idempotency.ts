import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from '../errors/app-error.js';
import { IdempotencyStore, type StoredAnswer } from '../redis/access/idempotency-keys.js';
import type { RedisClient } from '../redis/key-scope.js';
import { callerKey, type ApiCaller } from './api-principal.js';
import { ProblemsError } from './problem.js';

/** The request header naming a retry-safe request. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Set on an answer replayed from an earlier request with the same key. */
export const REPLAYED_HEADER = 'idempotent-replayed';

/** 1 to 200 printable ASCII characters, as clients generate them (a UUID, a hash). */
const KEY_PATTERN = /^[\x20-\x7e]{1,200}$/;

/** The header's form, as the OpenAPI document states it. */
export const idempotencyKeySchema = z.string().min(1).max(200).regex(KEY_PATTERN);

/** The request's Idempotency-Key, or undefined; a malformed one is refused (400). */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const key = request.headers[IDEMPOTENCY_HEADER];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
    throw new ProblemsError(
      [
        {
          code: 'API_REQUEST_INVALID',
          detail: 'Idempotency-Key: give 1 to 200 printable ASCII characters, once (a UUID does)',
          field: 'Idempotency-Key',
        },
      ],
      { code: 'API_REQUEST_INVALID', status: 400 },
    );
  }
  return key;
}

/** A request as read, ready to run: what makes it the same request as another (its fingerprint), and its work. */
export interface IdempotentRequest {
  fingerprint: string;
  run(): Promise<StoredAnswer>;
}

/**
 * The fingerprint of a request: a SHA-256 of its parts in order (method, path, query, the hash
 * of its body's bytes), so a retry of the same request matches and any other does not.
 */
export function requestFingerprint(parts: readonly (string | null)[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** An answer to give: the request's own, or the first one given to its key (`replayed`). */
export interface IdempotentAnswer extends StoredAnswer {
  replayed: boolean;
}

/**
 * Runs a request once per caller and Idempotency-Key: a retry of the same request gets the
 * first answer again (sendAnswer marks it `Idempotent-Replayed: true`); the key reused with
 * another request is refused (422 IDEMPOTENCY_KEY_REUSED, as draft-ietf-httpapi-idempotency-key-header says); a
 * duplicate while the first is at work 409 IDEMPOTENCY_KEY_IN_USE; a failure frees the key so
 * the client can retry. Without a key, the request just runs. `read` reads the request (a retry
 * is read too: its fingerprint is compared); `discard` drops the body of a request not read.
 */
export async function answerIdempotent(
  target: { redis: RedisClient; prefix: string; caller: ApiCaller; key: string | undefined },
  read: () => Promise<IdempotentRequest>,
  discard: () => void,
): Promise<IdempotentAnswer> {
  const { key } = target;
  if (key === undefined) return { ...(await (await read()).run()), replayed: false };
  const store = new IdempotencyStore(target.redis, target.prefix);
  const who = callerKey(target.caller);
  const earlier = await store.claim(who, key);
  if (earlier?.state === 'pending') {
    discard();
    throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still at work; retry once it has answered');
  }
  if (earlier !== undefined) {
    const { fingerprint } = await read();
    // A record kept before fingerprints were stored has none: it replays as it did.
    if (earlier.fingerprint !== undefined && earlier.fingerprint !== fingerprint) throw keyReused(earlier.answer);
    return { ...earlier.answer, replayed: true };
  }
  let done: { answer: StoredAnswer; fingerprint: string };
  try {
    const request = await read();
    done = { answer: await request.run(), fingerprint: request.fingerprint };
  } catch (error) {
    // The request's own error is the one to answer with; a key left pending expires with its day.
    await store.release(who, key).catch(() => undefined);
    throw error;
  }
  await store.complete(who, key, done.answer, done.fingerprint);
  return { ...done.answer, replayed: false };
}

/** The refusal of a key already used for another request, naming what that request made. */
function keyReused(first: StoredAnswer): ProblemsError {
  const id = typeof first.body === 'object' && first.body !== null ? (first.body as { id?: unknown }).id : undefined;
  const made =
    typeof id === 'string'
      ? `campaign ${id}${first.headers.location === undefined ? '' : ` (${first.headers.location})`}`
      : `an answer of status ${first.status} (a dry run creates nothing)`;
  const detail =
    `Idempotency-Key: the key was used for another request (another file, spec or query), which made ${made}; ` +
    'a retry repeats its request exactly: give a new key for a new request';
  return new ProblemsError([{ code: 'IDEMPOTENCY_KEY_REUSED', detail, field: 'Idempotency-Key' }], { status: 422 });
}

/** Sends an answer of answerIdempotent, a replayed one marked so. */
export function sendAnswer(reply: FastifyReply, answer: IdempotentAnswer): FastifyReply {
  if (answer.replayed) reply.header(REPLAYED_HEADER, 'true');
  return reply.code(answer.status).headers(answer.headers).send(answer.body);
}
