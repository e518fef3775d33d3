import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { IdempotencyStore, type StoredAnswer } from '../redis/idempotency-keys.js';
import type { RedisClient } from '../redis/key-scope.js';
import { callerKey, type ApiCaller } from './api-principal.js';
import { ProblemsError } from './problem.js';

/** The request header naming a retry-safe request. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Set on an answer replayed from an earlier request with the same key. */
export const REPLAYED_HEADER = 'idempotent-replayed';

/** 1 to 200 printable ASCII characters, as clients generate them (a UUID, a hash). */
const KEY_PATTERN = /^[\x20-\x7e]{1,200}$/;

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

/**
 * Runs `work` once per caller and Idempotency-Key: a retry gets the first answer again
 * (`Idempotent-Replayed: true`), a duplicate while the first is at work 409
 * IDEMPOTENCY_KEY_IN_USE; a failure frees the key so the client can retry. Without a key,
 * `work` just runs. `discard`: drops the body of a request that is not read.
 */
export async function sendIdempotent(
  target: { redis: RedisClient; prefix: string; caller: ApiCaller; key: string | undefined },
  reply: FastifyReply,
  work: () => Promise<StoredAnswer>,
  discard: () => void,
): Promise<FastifyReply> {
  const { key } = target;
  if (key === undefined) return send(reply, await work());
  const store = new IdempotencyStore(target.redis, target.prefix);
  const who = callerKey(target.caller);
  const earlier = await store.claim(who, key);
  if (earlier !== undefined) {
    discard();
    if (earlier.state === 'pending') {
      throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still at work; retry once it has answered');
    }
    return send(reply.header(REPLAYED_HEADER, 'true'), earlier.answer);
  }
  let answer: StoredAnswer;
  try {
    answer = await work();
  } catch (error) {
    // The request's own error is the one to answer with; a key left pending expires with its day.
    await store.release(who, key).catch(() => undefined);
    throw error;
  }
  await store.complete(who, key, answer);
  return send(reply, answer);
}

function send(reply: FastifyReply, answer: StoredAnswer): FastifyReply {
  return reply.code(answer.status).headers(answer.headers).send(answer.body);
}
