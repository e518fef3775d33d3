import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CampaignEvent } from '../../src/events/campaign-event.js';

/** One POST a hook receiver got. */
export interface ReceivedBatch {
  /** What it answered. */
  status: number;
  events: CampaignEvent[];
  /** X-Campaign-Signature checked as docs/events.md does, with the hook's secret. */
  signatureValid: boolean;
  /** X-Campaign-Timestamp is the body's sent_at, in seconds. */
  timestampMatches: boolean;
  hook: string | undefined;
  userAgent: string | undefined;
}

/**
 * A hook's receiver on a local port: answers each POST with what `answer()` says (a 2xx takes
 * the batch), checks every signature with the secret it is given, and keeps the events it took,
 * by ID (duplicates counted, as a receiver deduplicating by ID would see them).
 */
export class HookReceiver {
  readonly batches: ReceivedBatch[] = [];
  /** The events taken (answered 2xx), by ID. */
  readonly taken = new Map<string, CampaignEvent>();
  /** Events taken again under an ID already taken. */
  duplicates = 0;
  secret = '';
  answer: () => number = () => 200;
  #server: Server | undefined;

  static async start(): Promise<HookReceiver> {
    const receiver = new HookReceiver();
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const status = receiver.answer();
        receiver.#record(Buffer.concat(chunks), req.headers, status);
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    receiver.#server = server;
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server?.address() as AddressInfo).port}/hooks/in`;
  }

  /** Events taken, of one campaign. */
  takenOf(campaignId: string): CampaignEvent[] {
    return [...this.taken.values()].filter((event) => event.campaign_id === campaignId);
  }

  async close(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  #record(raw: Buffer, headers: Record<string, string | string[] | undefined>, status: number): void {
    const body = JSON.parse(raw.toString('utf8')) as { hook: string; sent_at: string; events: CampaignEvent[] };
    // docs/events.md's three lines of Node.
    const sig = Buffer.from(String(headers['x-campaign-signature'] ?? ''));
    const mac = Buffer.from('sha256=' + createHmac('sha256', this.secret).update(raw).digest('hex'));
    const signatureValid = sig.length === mac.length && timingSafeEqual(sig, mac);
    const timestampMatches = Number(headers['x-campaign-timestamp']) * 1000 === Date.parse(body.sent_at);
    const hook = typeof headers['x-campaign-hook'] === 'string' ? headers['x-campaign-hook'] : undefined;
    const userAgent = headers['user-agent'] as string | undefined;
    this.batches.push({ status, events: body.events, signatureValid, timestampMatches, hook, userAgent });
    if (status < 200 || status >= 300) return;
    for (const event of body.events) {
      if (this.taken.has(event.id)) this.duplicates += 1;
      else this.taken.set(event.id, event);
    }
  }
}
