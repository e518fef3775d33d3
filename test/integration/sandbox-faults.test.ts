import { errors } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { orderUpdate, postJson, send, startTestSandbox } from './sandbox-helpers.js';

/** Fault injection over real HTTP: 5xx answers, held answers, added latency. */
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

    const closing = performance.now();
    await s.close();
    expect(performance.now() - closing).toBeLessThan(1000);
    expect(await heldForever).toBeInstanceOf(Error);
    sandbox = undefined;
  });
});
