import { errors } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { getJson, orderUpdate, postJson, send, startTestSandbox, type JsonReply } from './sandbox-helpers.js';

/**
 * Fault injection over real HTTP: 5xx answers, held answers, added latency, throttle bursts,
 * forced per-recipient errors, and the request and duplicate counts in the stats.
 */
let sandbox: Sandbox | undefined;

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('sandbox faults', () => {
  it('answers every send with a 5xx Graph error at errorRate 1 and accepts nothing', async () => {
    sandbox = await startTestSandbox({ faults: { errorRate: 1 } });
    const s = sandbox;
    const replies = await Promise.all(Array.from({ length: 20 }, () => send(s, orderUpdate())));
    for (const reply of replies) {
      expect([500, 503]).toContain(reply.status);
      expect(reply.body.error?.code).toBe(reply.status === 503 ? 133004 : 131000);
    }
    expect(s.accepted()).toHaveLength(0);
    expect(s.stats().accepted).toBe(0);
  });

  it('takes faults from POST /_sandbox/faults and refuses bad settings with 400', async () => {
    sandbox = await startTestSandbox();
    const bad = await postJson(`${sandbox.url}/_sandbox/faults`, { errorRate: 3 });
    expect(bad.status).toBe(400);
    expect(bad.body?.['error']).toMatch(/errorRate/);
    expect((await postJson(`${sandbox.url}/_sandbox/faults`, { erorRate: 1 })).status).toBe(400);

    const ok = await postJson(`${sandbox.url}/_sandbox/faults`, { errorRate: 1, errorStatuses: [503] });
    expect(ok.status).toBe(200);
    const reply = await send(sandbox, orderUpdate());
    expect(reply.status).toBe(503);
    expect(reply.body.error?.code).toBe(133004);

    await postJson(`${sandbox.url}/_sandbox/faults`, {});
    expect((await send(sandbox, orderUpdate())).status).toBe(200);
  });

  it('still checks the token before injecting a fault', async () => {
    sandbox = await startTestSandbox({ faults: { errorRate: 1 } });
    const reply = await send(sandbox, orderUpdate(), { token: 'wrong' });
    expect(reply.status).toBe(401);
  });

  it('adds latencyMs before answering', async () => {
    sandbox = await startTestSandbox({ faults: { latencyMs: 150 } });
    const started = performance.now();
    const reply = await send(sandbox, orderUpdate());
    expect(reply.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('never answers at timeoutRate 1, accepts nothing, and close() still returns promptly', async () => {
    sandbox = await startTestSandbox({ faults: { timeoutRate: 1 } });
    const s = sandbox;
    // One request held with no client timeout (only close() can end it) and one the client gives up on.
    const heldForever = send(s, orderUpdate()).then(
      () => 'answered',
      (error: unknown) => error,
    );
    await expect(send(s, orderUpdate(), { headersTimeout: 300 })).rejects.toBeInstanceOf(errors.HeadersTimeoutError);
    expect(s.accepted()).toHaveLength(0);

    // Returns at all: waiting for the held request would never end (the test's timeout would catch it).
    await s.close();
    expect(await heldForever).toBeInstanceOf(Error);
    sandbox = undefined;
  });

  it('refuses every send with 130429 inside a throttle burst and accepts outside it', async () => {
    // Bursts are aligned on the sandbox's clock; the test moves it into and out of the bursts.
    const start = Math.ceil(Date.now() / 400) * 400;
    let now = start;
    sandbox = await startTestSandbox({ faults: { throttleBursts: { everyMs: 400, forMs: 200 } }, clock: () => now });
    const s = sandbox;
    const inside: JsonReply[] = [];
    const outside: JsonReply[] = [];
    for (let period = 0; period < 10; period++) {
      // Distinct recipients, and one accepted send per 400 ms, keep the pair and throughput limits out of the picture.
      now = start + period * 400 + 50;
      inside.push(await send(s, orderUpdate(`+4477009${String(2 * period).padStart(5, '0')}`)));
      now = start + period * 400 + 250;
      outside.push(await send(s, orderUpdate(`+4477009${String(2 * period + 1).padStart(5, '0')}`)));
    }
    for (const reply of inside) {
      expect(reply.status).toBe(400);
      expect(reply.body.error?.code).toBe(130429);
    }
    for (const reply of outside) expect(reply.status).toBe(200);
    const stats = s.stats();
    expect(stats.rejectedByCode['130429']).toBe(inside.length);
    expect(stats.accepted).toBe(stats.requests - (stats.rejectedByCode['130429'] ?? 0));

    // The burst's answer is worded exactly as the real throughput limiter's.
    const burstError = inside[0]?.body.error;
    s.setFaults({});
    const flood = await Promise.all(Array.from({ length: 120 }, (_, i) => send(s, orderUpdate(`+4477008${String(i).padStart(5, '0')}`))));
    const realError = flood.find((reply) => reply.status === 400)?.body.error;
    expect(realError?.code).toBe(130429);
    expect(burstError?.message).toBe(realError?.message);
    expect(burstError?.error_data).toEqual(realError?.error_data);
  });

  it("answers a recipient's forced error exactly `times` times, then accepts", async () => {
    sandbox = await startTestSandbox();
    sandbox.setFaults({ recipientErrors: [{ waId: '447700900123', code: 131056, times: 3 }] });
    const pairLimited = (await send(sandbox, orderUpdate('+44 7700 900123'))).body;
    expect(pairLimited.error).toMatchObject({
      code: 131056,
      message: '(#131056) (Business Account, Consumer Account) pair rate limit hit',
      error_data: { details: 'Too many messages were sent from this business number to the same recipient in a short time.' },
    });
    // Other recipients flow meanwhile, and a malformed send does not use up a forced error.
    expect((await send(sandbox, orderUpdate('+447700900999'))).status).toBe(200);
    expect((await send(sandbox, { ...orderUpdate('447700900123'), type: 'bogus' })).body.error?.code).toBe(100);
    const rest = [await send(sandbox, orderUpdate('447700900123')), await send(sandbox, orderUpdate('+447700900123'))];
    expect(rest.map((reply) => [reply.status, reply.body.error?.code])).toEqual([
      [400, 131056],
      [400, 131056],
    ]);
    expect((await send(sandbox, orderUpdate('+447700900123'))).status).toBe(200);
    expect((await send(sandbox, orderUpdate('+447700900123'))).status).toBe(200);
    expect(sandbox.stats()).toMatchObject({ accepted: 3, rejectedByCode: { '100': 1, '131056': 3 } });

    // Setting faults over HTTP restarts the counters.
    const body = { recipientErrors: [{ waId: '447700900123', code: 131030, times: 1 }] };
    for (let round = 0; round < 2; round++) {
      expect((await postJson(`${sandbox.url}/_sandbox/faults`, body)).status).toBe(200);
      const forced = await send(sandbox, orderUpdate());
      expect([forced.status, forced.body.error?.code]).toEqual([400, 131030]);
      expect((await send(sandbox, orderUpdate())).status).toBe(200);
    }
    expect((await getJson(`${sandbox.url}/_sandbox/faults`, null)).body).toEqual(body);
  });

  it('answers every send from the number 500 / 131057 during maintenance, then accepts again', async () => {
    sandbox = await startTestSandbox({ phoneNumberIds: ['106540352242922', '106540352242923'] });
    const set = await postJson(`${sandbox.url}/_sandbox/faults`, { maintenance: { forMs: 60_000, phoneNumberId: '106540352242922' } });
    expect(set.status).toBe(200);
    const during = await send(sandbox, orderUpdate());
    expect(during.status).toBe(500);
    expect(during.body.error).toMatchObject({ code: 131057, message: '(#131057) Account in maintenance mode' });
    expect((await send(sandbox, orderUpdate('+447700900999'), { phoneNumberId: '106540352242923' })).status).toBe(200);
    sandbox.setFaults({});
    expect((await send(sandbox, orderUpdate())).status).toBe(200);
    expect(sandbox.stats()).toMatchObject({ accepted: 2, rejectedByCode: { '131057': 1 } });
  });

  it('accepts every send at failureShare rate 1 and marks each to fail by webhook with a chosen code', async () => {
    sandbox = await startTestSandbox();
    expect((await postJson(`${sandbox.url}/_sandbox/faults`, { failureShare: { rate: 1, codes: [131049] } })).status).toBe(200);
    const s = sandbox;
    const replies = await Promise.all([1, 2, 3].map((n) => send(s, orderUpdate(`+44770090012${n}`))));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(s.accepted().map((m) => m.failure?.code)).toEqual([131049, 131049, 131049]);
    const refused = await postJson(`${s.url}/_sandbox/faults`, { failureShare: { rate: 1, codes: [131056] } });
    expect(refused.status).toBe(400);
    expect(refused.body?.['error']).toMatch(/only by webhook/);
  });

  it('refuses bad burst and recipient settings over HTTP with a clear message', async () => {
    sandbox = await startTestSandbox();
    const url = `${sandbox.url}/_sandbox/faults`;
    const longBurst = await postJson(url, { throttleBursts: { everyMs: 100, forMs: 200 } });
    expect(longBurst.status).toBe(400);
    expect(longBurst.body?.['error']).toMatch(/forMs must not exceed everyMs/);
    const plus = await postJson(url, { recipientErrors: [{ waId: '+447700900123', code: 131026, times: 1 }] });
    expect(plus.status).toBe(400);
    expect(plus.body?.['error']).toMatch(/waId.*digits only/s);
    expect((await postJson(url, { recipientErrors: [{ waId: '447700900123', code: 131026 }] })).status).toBe(400);
    // Nothing was applied by the refused settings.
    expect((await send(sandbox, orderUpdate())).status).toBe(200);
  });

  it('counts requests past the token check, their busiest second, and accepted duplicates', async () => {
    // The sandbox's clock stands still until the test moves it: the quiet second below is a move, not a wait.
    let now = Date.now();
    sandbox = await startTestSandbox({ messagesPerSecond: 10, clock: () => now });
    const s = sandbox;
    await send(s, orderUpdate(), { token: 'wrong' }); // not a request: refused at the token check
    await send(s, '{not json'); // 100
    await send(s, { ...orderUpdate(), type: 'bogus' }); // 100
    // Three identical sends: two are duplicates. `to` is compared as the sandbox normalises it.
    await send(s, orderUpdate('+447700900123'));
    await send(s, orderUpdate('447700900123'));
    await send(s, orderUpdate('+44 7700 900123'));
    // Same callback data, different content: the callback data is the send's identity.
    await send(s, { ...orderUpdate('+447700900124', 'Ana'), biz_opaque_callback_data: 'row-7' });
    await send(s, { ...orderUpdate('+447700900124', 'Bo'), biz_opaque_callback_data: 'row-7' });
    await send(s, { ...orderUpdate('+447700900124', 'Cy'), biz_opaque_callback_data: 'row-8' });
    await send(s, orderUpdate('+447700900125'));
    const counted = s.stats();
    expect(counted).toMatchObject({ accepted: 7, requests: 9, duplicates: 3, rejectedByCode: { '100': 2, '190': 1 } });

    // A held request counts at arrival.
    s.setFaults({ timeoutRate: 1 });
    await expect(send(s, orderUpdate(), { headersTimeout: 200 })).rejects.toBeInstanceOf(errors.HeadersTimeoutError);
    expect(s.stats().requests).toBe(10);
    s.setFaults({});

    // 30 at once after a quiet second: 10 fit the throughput cap (one more is a repeat of an
    // earlier accepted send), 20 are refused, and all 30 are requests within one second.
    now += 1100;
    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, i) => send(s, orderUpdate(i === 0 ? '+447700900125' : `+4477009${String(i).padStart(5, '0')}`))),
    );
    expect(burst.filter((reply) => reply.status === 200)).toHaveLength(10);
    const stats = s.stats();
    expect(stats).toMatchObject({ requests: 40, busiestRequestSecond: 30, busiestSecond: 10, accepted: 17 });
    expect(stats.duplicates).toBe(burst[0]?.status === 200 ? 4 : 3);
    expect((await getJson(`${s.url}/_sandbox/stats`, null)).body).toEqual(stats);

    s.reset();
    expect(s.stats()).toMatchObject({ requests: 0, busiestRequestSecond: 0, duplicates: 0 });
    await send(s, orderUpdate('+447700900125'));
    expect(s.stats()).toMatchObject({ requests: 1, busiestRequestSecond: 1, duplicates: 0 });
  });
});
