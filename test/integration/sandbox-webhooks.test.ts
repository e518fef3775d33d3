import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { orderUpdate, send, startTestSandbox } from './sandbox-helpers.js';

/**
 * The sandbox posts status webhooks as Meta does: signed with the app secret over the raw
 * bytes, sent → delivered → read (for a share), several statuses per POST, retried until the
 * receiver answers 200.
 */
const SECRET = 'sandbox-webhook-secret';

interface Received {
  statuses: { id: string; status: string; timestamp: string; biz_opaque_callback_data?: string }[];
  signedOk: boolean;
}

describe('sandbox status webhooks', () => {
  let sandbox: Sandbox | undefined;
  let receiver: Server | undefined;

  afterEach(async () => {
    await sandbox?.close();
    await new Promise<void>((resolve) => (receiver === undefined ? resolve() : receiver.close(() => resolve())));
    sandbox = undefined;
    receiver = undefined;
  });

  /** A receiver that refuses the first `refuse` POSTs with 503, then records every POST. */
  async function startReceiver(refuse: number, onPost: (r: Received) => void): Promise<string> {
    let refused = 0;
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (refused < refuse) {
          refused++;
          res.writeHead(503).end();
          return;
        }
        const raw = Buffer.concat(chunks);
        const expected = `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;
        const payload = JSON.parse(raw.toString('utf8')) as { entry: { changes: { value: { statuses: Received['statuses'] } }[] }[] };
        onPost({ statuses: payload.entry.flatMap((e) => e.changes.flatMap((c) => c.value.statuses)), signedOk: req.headers['x-hub-signature-256'] === expected });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', () => resolve()));
    return `http://127.0.0.1:${(receiver?.address() as AddressInfo).port}/webhook`;
  }

  it('sent, delivered and read for a share, signed, batched, retried after 503s until answered', async () => {
    const posts: Received[] = [];
    const all: Received['statuses'] = [];
    // 4 sends, read share 0.5: 4 sent + 4 delivered + 2 read = 10 statuses.
    const done = new Promise<void>((resolve) => {
      void startReceiver(2, (r) => {
        posts.push(r);
        all.push(...r.statuses);
        if (all.length >= 10) resolve();
      }).then(async (url) => {
        sandbox = await startTestSandbox({ messagesPerSecond: 0, webhooks: { url, appSecret: SECRET, sentAfterMs: 10, deliveredAfterMs: 30, readAfterMs: 60, readShare: 0.5, batchMs: 20 } });
        for (let i = 0; i < 4; i++) {
          const reply = await send(sandbox, { ...orderUpdate(`+4477009001${20 + i}`), biz_opaque_callback_data: `c/${i + 1}` });
          expect(reply.status).toBe(200);
        }
      });
    });
    await done;
    expect(posts.every((p) => p.signedOk)).toBe(true);
    // Batched: fewer POSTs than statuses.
    expect(posts.length).toBeLessThan(all.length);
    const kinds = (status: string) => all.filter((s) => s.status === status);
    expect(kinds('sent')).toHaveLength(4);
    expect(kinds('delivered')).toHaveLength(4);
    expect(kinds('read')).toHaveLength(2);
    expect(new Set(kinds('delivered').map((s) => s.biz_opaque_callback_data))).toEqual(new Set(['c/1', 'c/2', 'c/3', 'c/4']));
    expect(all.every((s) => /^\d+$/.test(s.timestamp) && s.id.startsWith('wamid.'))).toBe(true);
  });
});
