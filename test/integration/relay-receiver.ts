import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST a relay receiver got, as it got it. */
export interface Received {
  body: Buffer;
  headers: IncomingHttpHeaders;
  /** The status it answered (0: it never answered). */
  status: number;
}

/** How a receiver answers: 200, 500, never (holds the request open), or 200 after SLOW_MS. */
export type ReceiverMode = 'ok' | 'fail' | 'hang' | 'slow';

/** How long a `slow` receiver takes to answer. */
const SLOW_MS = 150;

/**
 * A chat inbox or bot behind RELAY_WEBHOOKS, on a local port: records every POST (bytes and
 * headers) and answers as its mode says, which a test changes while it runs.
 */
export class RelayReceiver {
  readonly received: Received[] = [];
  mode: ReceiverMode = 'ok';
  /** The most requests it held open at once (answered or not yet). */
  mostInFlight = 0;
  #inFlight = 0;
  readonly #server: Server;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(mode: ReceiverMode = 'ok'): Promise<RelayReceiver> {
    const server = createServer();
    const receiver = new RelayReceiver(server);
    receiver.mode = mode;
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const got: Received = { body: Buffer.concat(chunks), headers: request.headers, status: 0 };
        receiver.received.push(got);
        receiver.#inFlight += 1;
        receiver.mostInFlight = Math.max(receiver.mostInFlight, receiver.#inFlight);
        if (receiver.mode === 'hang') return;
        const answer = (status: number) => {
          receiver.#inFlight -= 1;
          got.status = status;
          response.writeHead(status).end();
        };
        if (receiver.mode === 'slow') setTimeout(() => answer(200), SLOW_MS);
        else answer(receiver.mode === 'ok' ? 200 : 500);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    return receiver;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** The bodies it answered 2xx, in the order they came. */
  accepted(): Buffer[] {
    return this.received.filter((r) => r.status >= 200 && r.status < 300).map((r) => r.body);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** Whether `X-Hub-Signature-256` is the HMAC-SHA256 of the exact bytes with `secret`, checked as a receiver would. */
export function signedWith(received: Received, secret: string): boolean {
  const header = received.headers['x-hub-signature-256'];
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const expected = createHmac('sha256', secret).update(received.body).digest();
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
