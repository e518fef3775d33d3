import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { MAX_DELAY_MS, retriesExhausted, retryDelayMs } from '../../src/outbound/retry-schedule.js';
import { postDelivery, signatureOf } from '../../src/outbound/signed-post.js';

describe('outbound deliveries', () => {
  it('waits 1 s after the first failure, twice as long after each next, at most 30 s, with at most a tenth more', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 40].map((n) => retryDelayMs(n, () => 0))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000,
    ]);
    expect(retryDelayMs(1, () => 0.999)).toBe(1100);
    expect(retryDelayMs(9, () => 0.999)).toBeLessThanOrEqual(MAX_DELAY_MS * 1.1);
    expect(retriesExhausted(1000, 1000 + 3_600_000, 3_600_000)).toBe(true);
    expect(retriesExhausted(1000, 999 + 3_600_000, 3_600_000)).toBe(false);
  });

  it("signs as Meta does: sha256= and the body's HMAC-SHA256 in hex", () => {
    const body = Buffer.from('{"a":1}');
    expect(signatureOf(body, 'k')).toBe(`sha256=${createHmac('sha256', 'k').update(body).digest('hex')}`);
  });

  it('answers ok for a 2xx, the status for another, and status 0 with a reason when nothing answers', async () => {
    const statuses = [204, 500];
    const server = createServer((request, response) => {
      request.resume();
      response.statusCode = statuses.shift() ?? 200;
      response.end('ignored');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      expect(await postDelivery(url, '{}', {})).toEqual({ ok: true, status: 204 });
      expect(await postDelivery(url, '{}', {})).toEqual({ ok: false, status: 500, reason: 'HTTP 500' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const refused = await postDelivery(url, '{}', {}, 2000);
    expect(refused).toMatchObject({ ok: false, status: 0 });
  });
});
