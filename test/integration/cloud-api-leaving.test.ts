import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import diagnosticsChannel from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { CloudApiClient } from '../../src/cloud-api/cloud-api-client.js';
import type { OutboundMessage } from '../../src/cloud-api/outbound-message.js';
import type { RequestWrite } from '../../src/cloud-api/post-exchange.js';
import { Secret } from '../../src/config/secret.js';

const message: OutboundMessage = { kind: 'text', to: '+4915112345678', body: 'Hello' };

function accepted(index: number): string {
  return JSON.stringify({
    messaging_product: 'whatsapp',
    contacts: [{ input: '+4915112345678', wa_id: '4915112345678' }],
    messages: [{ id: `wamid.leaving-${index}` }],
  });
}

/**
 * The pacer corrects a send's stamp by when it really left; these tests check that the
 * client reports that moment: once, before the server sees the request, spanning the whole
 * write, and only when a request waiting for a connection is finally written.
 */
describe('CloudApiClient: the moment a request leaves', () => {
  let server: Server | undefined;
  let client: CloudApiClient | undefined;
  afterEach(async () => {
    await client?.close();
    server?.closeAllConnections();
    if (server !== undefined) await new Promise((resolve) => server?.close(resolve));
  });

  /** A server that holds every request until its `release` is called. */
  async function holdingServer(): Promise<{ url: string; arrivals: { at: number; release: () => void }[]; arrived: () => Promise<void> }> {
    const arrivals: { at: number; release: () => void }[] = [];
    let notify: (() => void) | undefined;
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      request.resume();
      const index = arrivals.length + 1;
      arrivals.push({
        at: performance.now(),
        release: () => response.writeHead(200, { 'content-type': 'application/json' }).end(accepted(index)),
      });
      notify?.();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const arrived = () => new Promise<void>((resolve) => (notify = resolve));
    return { url: `http://127.0.0.1:${port}`, arrivals, arrived };
  }

  function clientOf(url: string, connections: number): CloudApiClient {
    return new CloudApiClient({
      baseUrl: url,
      apiVersion: 'v23.0',
      accessToken: new Secret('EAAG-leaving-test'),
      timeoutMs: 5_000,
      connections,
    });
  }

  it('tells the caller once, before the server has the request', async () => {
    const rig = await holdingServer();
    client = clientOf(rig.url, 1);
    const writes: RequestWrite[] = [];
    const arrival = rig.arrived();
    const asked = performance.now();
    const sent = client.send('100000000000001', message, (write) => writes.push(write));
    await arrival;
    rig.arrivals[0]?.release();
    expect((await sent).wamid).toBe('wamid.leaving-1');
    expect(writes).toHaveLength(1);
    const [write] = writes;
    expect(write?.endedAt).toBeGreaterThanOrEqual(asked);
    expect(write?.endedAt).toBeLessThanOrEqual(rig.arrivals[0]?.at ?? 0);
  });

  it('a pause in the middle of the write moves the moment it reports past the pause: the bytes may have left anywhere in it', async () => {
    const rig = await holdingServer();
    client = clientOf(rig.url, 1);
    // undici publishes this between the write's start (its onConnect) and the socket's write:
    // holding the thread here stands for the process losing its core in the middle.
    const pause = () => {
      const from = performance.now();
      while (performance.now() - from < 20);
    };
    diagnosticsChannel.subscribe('undici:client:sendHeaders', pause);
    try {
      const writes: RequestWrite[] = [];
      const arrival = rig.arrived();
      const asked = performance.now();
      const sent = client.send('100000000000001', message, (write) => writes.push(write));
      await arrival;
      rig.arrivals[0]?.release();
      await sent;
      expect(writes).toHaveLength(1);
      expect((writes[0]?.endedAt ?? 0) - asked).toBeGreaterThanOrEqual(20);
    } finally {
      diagnosticsChannel.unsubscribe('undici:client:sendHeaders', pause);
    }
  });

  it('a request that waits for a free connection leaves when it is written, not when it was asked for', async () => {
    const rig = await holdingServer();
    client = clientOf(rig.url, 1);
    const left: string[] = [];
    const firstArrival = rig.arrived();
    const first = client.send('100000000000001', message, () => left.push('first'));
    await firstArrival;
    const secondArrival = rig.arrived();
    const second = client.send('100000000000001', message, () => left.push('second'));
    // The only connection is busy: the second request is queued, not written.
    for (let turn = 0; turn < 5; turn++) await nextTurn();
    expect(left).toEqual(['first']);
    rig.arrivals[0]?.release();
    await first;
    await secondArrival;
    expect(left).toEqual(['first', 'second']);
    rig.arrivals[1]?.release();
    expect((await second).wamid).toBe('wamid.leaving-2');
  });
});
