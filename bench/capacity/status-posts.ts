import { createHmac } from 'node:crypto';
import type { Redis } from 'ioredis';
import { request } from 'undici';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import type { SandboxChild } from '../support/sandbox.js';
import { statusWebhookBody } from '../support/status-webhook.js';

/**
 * Meta's side of the statuses: sent, delivered and read for every message the sandbox
 * accepted, each in a POST of its own (Meta batches, but does not promise to: one per POST is
 * the worst case), signed with the app secret, from SENDERS concurrent senders. Statuses of
 * one message may arrive out of order, as from Meta.
 */
const SENDERS = 16;
/** How often the ledger is asked whether every row is read (each question is a Redis command: not often). */
const POLL_MS = 200;

export interface AcceptedSend {
  wamid: string;
  waId: string;
  phoneNumberId: string;
}

export async function acceptedMessages(sandbox: SandboxChild): Promise<AcceptedSend[]> {
  const response = await request(`${sandbox.url}/_sandbox/accepted`);
  const list = (await response.body.json()) as AcceptedSend[];
  if (!Array.isArray(list)) throw new Error('sandbox /_sandbox/accepted did not return a list');
  return list.map(({ wamid, waId, phoneNumberId }) => ({ wamid, waId, phoneNumberId }));
}

export async function postStatuses(options: {
  url: string;
  appSecret: string;
  messages: readonly AcceptedSend[];
  redis: Redis;
  prefix: string;
  campaignId: string;
  rows: number;
}): Promise<{ events: number; perSecond: number }> {
  const bodies = bodiesOf(options.messages);
  const ledger = new RedisLedger(options.redis, options.prefix);
  let next = 0;
  const started = performance.now();
  const sender = async () => {
    while (next < bodies.length) {
      const body = bodies[next++] ?? '';
      const response = await request(options.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-hub-signature-256': `sha256=${createHmac('sha256', options.appSecret).update(body).digest('hex')}`,
        },
        body,
      });
      await response.body.dump();
      if (response.statusCode !== 200) throw new Error(`campaign serve answered ${response.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: SENDERS }, sender));
  const deadline = Date.now() + 180_000;
  while (((await ledger.status(options.campaignId))?.counts.read ?? 0) < options.rows) {
    if (Date.now() > deadline) throw new Error('the statuses were not all applied within 3 minutes');
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return { events: bodies.length, perSecond: bodies.length / ((performance.now() - started) / 1000) };
}

function bodiesOf(messages: readonly AcceptedSend[]): string[] {
  const now = Math.floor(Date.now() / 1000);
  const bodies: string[] = [];
  // Round by round (every sent, then every delivered, then every read): the order Meta's statuses come in overall.
  for (const [status, offset] of [
    ['sent', 0],
    ['delivered', 1],
    ['read', 2],
  ] as const) {
    for (const m of messages) {
      const item = { id: m.wamid, status, timestamp: String(now + offset), recipient_id: m.waId };
      bodies.push(statusWebhookBody(m.phoneNumberId, [item]));
    }
  }
  return bodies;
}
