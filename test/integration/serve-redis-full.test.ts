import { createHmac } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logging/logger.js';
import { startService, type RunningService } from '../../workers/serve.js';
import { RedisServer } from '../support/fault-redis-server.js';

const SECRET = 'full-app-secret';

/** A status webhook as Meta posts it (reference §3), signed with the app secret. */
function statusWebhook(wamid: string): string {
  const status = { id: wamid, status: 'delivered', timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: '4915112345678' };
  const value = { messaging_product: 'whatsapp', metadata: { phone_number_id: '1234567' }, statuses: [status] };
  return JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: 'waba', changes: [{ field: 'messages', value }] }] });
}

/**
 * `serve` with Redis full (maxmemory reached, noeviction): a webhook it cannot store is
 * answered 503, which Meta retries; once Redis has room the same POST is stored (200).
 */
describe('serve: webhooks while Redis is full', () => {
  let redis: RedisServer;
  let admin: Redis;
  let service: RunningService;

  beforeAll(async () => {
    redis = await RedisServer.start();
    admin = new Redis(redis.url);
    service = await startService(
      { port: 0, host: '127.0.0.1' },
      { REDIS_URL: redis.url, QUEUE_PREFIX: 'full', LOG_LEVEL: 'silent', WHATSAPP_APP_SECRET: SECRET, WEBHOOK_VERIFY_TOKEN: 'full-verify' },
      silentLogger(),
    );
  });
  afterAll(async () => {
    await service.close();
    admin.disconnect();
    await redis.cleanup();
  });

  const post = async (body: string): Promise<number> => {
    const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    const answer = await fetch(`${service.url}/webhook`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
    });
    return answer.status;
  };

  it('answers 503 while the webhook cannot be stored, and 200 once it can', async () => {
    const body = statusWebhook('wamid.full-1');
    await admin.config('SET', 'maxmemory', '1');
    expect(await post(body)).toBe(503);
    await admin.config('SET', 'maxmemory', '0');
    expect(await post(body)).toBe(200);
  });
});
