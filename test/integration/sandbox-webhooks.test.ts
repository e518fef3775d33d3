import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { parseWebhook } from '../../src/webhooks/webhook-events.js';
import { PHONE_NUMBER_ID, orderUpdate, postJson, send, startTestSandbox, template, text } from './sandbox-helpers.js';

/**
 * The sandbox posts webhooks as Meta does: signed with the app secret over the raw bytes;
 * statuses sent → delivered → read (for a share), or sent → failed for what Meta reports only
 * by webhook, several per POST, some twice or out of order when asked, retried until the
 * receiver answers 200; and the inbound messages POST /_sandbox/inbound plays.
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
        onPost({
          statuses: payload.entry.flatMap((e) => e.changes.flatMap((c) => c.value.statuses)),
          signedOk: req.headers['x-hub-signature-256'] === expected,
        });
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
        sandbox = await startTestSandbox({
          messagesPerSecond: 0,
          webhooks: { url, appSecret: SECRET, sentAfterMs: 10, deliveredAfterMs: 30, readAfterMs: 60, readShare: 0.5, batchMs: 20 },
        });
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

  /** Every POST's parsed body, whether it was signed right; `until` resolves once the predicate holds (checked on each POST). */
  async function recorder(): Promise<{
    url: string;
    bodies: WebhookBody[];
    until(what: string, done: (bodies: WebhookBody[]) => boolean): Promise<void>;
  }> {
    const bodies: WebhookBody[] = [];
    const waiters = new Set<() => void>();
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const signedOk = req.headers['x-hub-signature-256'] === `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;
        bodies.push({ ...(JSON.parse(raw.toString('utf8')) as Omit<WebhookBody, 'signedOk'>), signedOk });
        res.writeHead(200).end();
        for (const wake of waiters) wake();
      });
    });
    await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', () => resolve()));
    const url = `http://127.0.0.1:${(receiver?.address() as AddressInfo).port}/webhook`;
    const until = (what: string, done: (all: WebhookBody[]) => boolean) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(bodies)}`)), 10_000);
        const check = () => {
          if (!done(bodies)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      });
    return { url, bodies, until };
  }

  const fast = { sentAfterMs: 5, deliveredAfterMs: 20, readAfterMs: 40, readShare: 0, batchMs: 10 };
  const statusesOf = (bodies: WebhookBody[]) =>
    bodies.flatMap((b) => b.entry.flatMap((e) => e.changes.flatMap((c) => c.value.statuses ?? [])));
  const spring = (to: string) =>
    template(
      'spring_promo',
      [
        { type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/spring.jpg' } }] },
        { type: 'body', parameters: [text('Ana'), text('25%')] },
      ],
      to,
    );

  it('answers webhook-only failures 200 with a wamid, then posts sent and a signed failed status with the code', async () => {
    const r = await recorder();
    sandbox = await startTestSandbox({
      messagesPerSecond: 0,
      webhooks: { url: r.url, appSecret: SECRET, ...fast },
      faults: { recipientErrors: [{ waId: '447700900121', code: 131026, times: 1 }], optedOut: ['447700900122'] },
    });
    const sends = {
      window: { messaging_product: 'whatsapp', to: '+447700900120', type: 'text', text: { body: 'Hi' } },
      forced: orderUpdate('+447700900121'),
      optedOutMarketing: spring('+447700900122'),
      optedOutUtility: orderUpdate('+447700900122'),
    };
    const wamids: Record<string, string> = {};
    for (const [name, body] of Object.entries(sends)) {
      const reply = await send(sandbox, body);
      expect(reply.status, name).toBe(200);
      wamids[name] = reply.body.messages?.[0]?.id ?? '';
    }
    const ofMessage = (name: string) => statusesOf(r.bodies).filter((s) => s.id === wamids[name]);
    await r.until('a final status for every send', () =>
      Object.keys(sends).every((name) => ofMessage(name).some((s) => s.status !== 'sent')),
    );
    expect(r.bodies.every((b) => b.signedOk)).toBe(true);
    // Sorted by status: two POSTs 15 ms apart may land in either order on a loaded machine.
    const outcome = (name: string) =>
      ofMessage(name)
        .map((s) => [s.status, s.errors?.[0]?.code])
        .sort((a, b) => String(b[0]).localeCompare(String(a[0])));
    expect(outcome('window')).toEqual([
      ['sent', undefined],
      ['failed', 131047],
    ]);
    expect(outcome('forced')).toEqual([
      ['sent', undefined],
      ['failed', 131026],
    ]);
    expect(outcome('optedOutMarketing')).toEqual([
      ['sent', undefined],
      ['failed', 131050],
    ]);
    expect(outcome('optedOutUtility')).toEqual([
      ['sent', undefined],
      ['delivered', undefined],
    ]);
    expect(ofMessage('window').find((s) => s.status === 'failed')?.errors?.[0]).toMatchObject({
      title: 'Re-engagement message',
      message: 'Re-engagement message',
      error_data: { details: expect.stringMatching(/24 hours/) as unknown },
    });
    expect(sandbox.stats()).toMatchObject({ accepted: 4, rejectedByCode: {}, failedByCode: { '131026': 1, '131047': 1, '131050': 1 } });
  });

  it('delivers every status twice at duplicateShare 1 and reverses arrival at reorderShare 1', async () => {
    const r = await recorder();
    // delivered and sent 300 ms apart, so reversed arrival cannot be a race between two POSTs.
    sandbox = await startTestSandbox({
      messagesPerSecond: 0,
      webhooks: { url: r.url, appSecret: SECRET, ...fast, deliveredAfterMs: 300, duplicateShare: 1, reorderShare: 1 },
    });
    const wamid = (await send(sandbox, orderUpdate())).body.messages?.[0]?.id ?? '';
    await r.until('two copies of sent and delivered', () => statusesOf(r.bodies).length >= 4);
    const arrived = statusesOf(r.bodies)
      .filter((s) => s.id === wamid)
      .map((s) => s.status);
    expect(arrived).toHaveLength(4);
    expect(arrived.filter((s) => s === 'sent')).toHaveLength(2);
    expect(arrived[0]).toBe('delivered');
  });

  it('POST /_sandbox/inbound opens the window and posts a signed inbound message: text, or a button reply with its context', async () => {
    const r = await recorder();
    sandbox = await startTestSandbox({
      webhooks: { url: r.url, appSecret: SECRET, ...fast },
      phoneNumberIds: [PHONE_NUMBER_ID, '106540352242923'],
    });
    const stop = await postJson<{ id: string; wa_id: string; window_open_until: string }>(`${sandbox.url}/_sandbox/inbound`, {
      from: '+44 7700 900123',
      text: 'STOP',
    });
    expect(stop.status).toBe(200);
    expect(stop.body).toMatchObject({ id: expect.stringMatching(/^wamid\./) as unknown, wa_id: '447700900123' });
    const tap = await postJson<{ id: string }>(`${sandbox.url}/_sandbox/inbound`, {
      from: '+447700900124',
      button: { payload: 'STOP_PROMOS', text: 'Stop promotions' },
      contextId: 'wamid.TEMPLATE1',
      phoneNumberId: '106540352242923',
      name: 'Bo',
    });
    expect(tap.status).toBe(200);
    await r.until('both inbound messages', () => r.bodies.length >= 2);
    expect(r.bodies.every((b) => b.signedOk)).toBe(true);
    const values = r.bodies.map((b) => b.entry[0]?.changes[0]?.value);
    const byId = (id: string) => values.find((v) => v?.messages?.[0]?.id === id);
    expect(byId(stop.body.id)).toMatchObject({
      metadata: { phone_number_id: PHONE_NUMBER_ID },
      contacts: [{ profile: { name: 'Sandbox user' }, wa_id: '447700900123' }],
      messages: [{ from: '447700900123', type: 'text', text: { body: 'STOP' }, timestamp: expect.stringMatching(/^\d+$/) as unknown }],
    });
    expect(byId(tap.body.id)).toMatchObject({
      metadata: { phone_number_id: '106540352242923' },
      contacts: [{ profile: { name: 'Bo' }, wa_id: '447700900124' }],
      messages: [
        {
          from: '447700900124',
          type: 'button',
          button: { payload: 'STOP_PROMOS', text: 'Stop promotions' },
          context: { id: 'wamid.TEMPLATE1' },
        },
      ],
    });
    // The window is open now: a text to that user is not marked to fail.
    expect(
      (await send(sandbox, { messaging_product: 'whatsapp', to: '+447700900123', type: 'text', text: { body: 'Sorry to see you go' } }))
        .status,
    ).toBe(200);
    expect(sandbox.accepted()[0]?.failure).toBeUndefined();
  });

  it('POST /_sandbox/inbound refuses bad input with 400 saying why, and answers 409 without a webhook URL', async () => {
    const r = await recorder();
    sandbox = await startTestSandbox({ webhooks: { url: r.url, appSecret: SECRET, ...fast } });
    const inbound = (body: unknown) => postJson<{ error: string }>(`${sandbox?.url ?? ''}/_sandbox/inbound`, body);
    const cases: [unknown, RegExp][] = [
      [{ from: '+447700900123' }, /one of text .*, button .* or flow/],
      [{ from: '+447700900123', text: 'hi', button: { payload: 'P', text: 'T' }, contextId: 'wamid.X' }, /not two or none/],
      [{ from: '+447700900123', button: { payload: 'P', text: 'T' } }, /contextId/],
      [{ from: 'nobody', text: 'hi' }, /from/],
      [{ from: '+447700900123', text: '' }, /text must not be empty/],
      [
        { from: '+447700900123', text: 'hi', phoneNumberId: '999' },
        /phoneNumberId 999 is not one of the sandbox's numbers \(106540352242922\)/,
      ],
      [{ from: '+447700900123', txt: 'hi' }, /txt/],
    ];
    for (const [body, why] of cases) {
      const reply = await inbound(body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.error, JSON.stringify(body)).toMatch(why);
    }
    await sandbox.close();

    sandbox = await startTestSandbox();
    const none = await inbound({ from: '+447700900123', text: 'hi' });
    expect(none.status).toBe(409);
    expect(none.body.error).toMatch(/No webhook URL is configured/);
    expect(r.bodies).toHaveLength(0);
  });

  it('POST /_sandbox/user-preferences posts a signed user_preferences webhook; a username user’s carries user_id only', async () => {
    const r = await recorder();
    sandbox = await startTestSandbox({ webhooks: { url: r.url, appSecret: SECRET, ...fast }, faults: { usernameUsers: ['447700900124'] } });
    const prefs = (body: unknown) =>
      postJson<{ wa_id: string; user_id: string; error: string }>(`${sandbox?.url ?? ''}/_sandbox/user-preferences`, body);
    const ana = await prefs({ from: '+447700900123', value: 'stop' });
    const bo = await prefs({ from: '+447700900124', value: 'resume', name: 'Bo' });
    expect([ana.status, bo.status]).toEqual([200, 200]);
    expect(ana.body.user_id).toMatch(/^GB\.\d{20}$/);
    await r.until('both preference webhooks', () => r.bodies.length >= 2);
    expect(r.bodies.every((b) => b.signedOk)).toBe(true);
    const values = r.bodies.map((b) => b.entry[0]?.changes[0] as { field: string; value: { user_preferences: object[] } });
    expect(values.map((v) => v.field)).toEqual(['user_preferences', 'user_preferences']);
    expect(values.map((v) => v.value.user_preferences[0])).toEqual([
      expect.objectContaining({ wa_id: '447700900123', user_id: ana.body.user_id, value: 'stop', category: 'marketing_messages' }),
      {
        user_id: bo.body.user_id,
        value: 'resume',
        category: 'marketing_messages',
        detail: expect.any(String) as unknown,
        timestamp: expect.any(Number) as unknown,
      },
    ]);
    expect((await prefs({ from: '+447700900123', value: 'pause' })).status).toBe(400);
    expect((await prefs({ from: '+447700900123', value: 'stop', phoneNumberId: '999' })).body.error).toMatch(
      /not one of the sandbox's numbers/,
    );
    await sandbox.close();
    sandbox = await startTestSandbox();
    expect((await prefs({ from: '+447700900123', value: 'stop' })).status).toBe(409);
  });

  it('POST /_sandbox/template-status changes the template (its sends answer 132015) and posts the signed template webhook', async () => {
    const r = await recorder();
    sandbox = await startTestSandbox({ webhooks: { url: r.url, appSecret: SECRET, ...fast } });
    const paused = await postJson(`${sandbox.url}/_sandbox/template-status`, {
      name: 'order_update',
      language: 'en_US',
      event: 'PAUSED',
      reason: 'LOW_QUALITY',
    });
    expect(paused.body).toEqual({ name: 'order_update', language: 'en_US', status: 'PAUSED', webhook: 'posted' });
    expect((await send(sandbox, orderUpdate())).body).toMatchObject({ error: { code: 132015 } });
    await r.until('the template webhook', () => r.bodies.length >= 1);
    const [body] = r.bodies;
    expect(body?.signedOk).toBe(true);
    // Read by the service's own parser: the sandbox's shape is the one serve acts on.
    const parsed = parseWebhook(JSON.stringify(body));
    expect(parsed.ok && parsed.events.templates).toEqual([
      { event: 'PAUSED', name: 'order_update', language: 'en_US', detail: 'LOW_QUALITY' },
    ]);

    const back = await postJson(`${sandbox.url}/_sandbox/template-status`, {
      name: 'order_update',
      language: 'en_US',
      event: 'REINSTATED',
    });
    expect(back.body).toMatchObject({ status: 'APPROVED' });
    expect((await send(sandbox, orderUpdate())).status).toBe(200);
    const unknown = await postJson(`${sandbox.url}/_sandbox/template-status`, { name: 'nope', language: 'en_US', event: 'PAUSED' });
    expect(unknown.status).toBe(404);
    expect((await postJson(`${sandbox.url}/_sandbox/template-status`, { name: 'order_update', event: 'PAUSED' })).status).toBe(400);

    await postJson(`${sandbox.url}/_sandbox/template-status`, { name: 'order_update', language: 'en_US', event: 'DISABLED' });
    await postJson(`${sandbox.url}/_sandbox/reset`, {});
    expect((await send(sandbox, orderUpdate())).status).toBe(200);
  });
});

interface WebhookBody {
  signedOk: boolean;
  entry: {
    changes: {
      value: {
        metadata?: { phone_number_id: string };
        statuses?: { id: string; status: string; errors?: { code: number }[] }[];
        contacts?: unknown[];
        messages?: { id: string }[];
      };
    }[];
  }[];
}
