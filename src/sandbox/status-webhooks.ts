import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import type { AcceptedMessage } from './accepted-log.js';

/** When each status follows the accepted send, and how many messages get read. */
export interface StatusWebhookSettings {
  /** The receiver's callback URL (`campaign serve`'s /webhook). */
  url: string;
  /** Signs each POST (X-Hub-Signature-256), as Meta does with the app secret. */
  appSecret: string;
  /** ms after the send (defaults: sent 100, delivered 500, read 2000). */
  sentAfterMs?: number;
  deliveredAfterMs?: number;
  readAfterMs?: number;
  /** Share of delivered messages that are also read (default 0.5: not everyone reads, or has read receipts on). */
  readShare?: number;
  /** Statuses due within this many ms go out in one POST (default 50); at most 1,000 per POST, as Meta. */
  batchMs?: number;
}

interface DueStatus {
  phoneNumberId: string;
  item: Record<string, unknown>;
}

const MAX_PER_POST = 1000;
const RETRY_FIRST_MS = 200;
const RETRY_MOST_MS = 30_000;

/**
 * The sandbox's status webhooks, as Meta sends them (reference §3): after an accepted send,
 * `sent`, then `delivered`, then (for a share) `read`, each as a signed POST to the callback
 * URL, several statuses per POST when they fall due together, retried with backoff until the
 * receiver answers 200 (Meta retries for days; the sandbox until it stops).
 */
export class StatusWebhookSender {
  readonly #s: Required<StatusWebhookSettings>;
  readonly #logger: Logger | undefined;
  readonly #timers = new Set<NodeJS.Timeout>();
  #due: DueStatus[] = [];
  #flushTimer: NodeJS.Timeout | undefined;
  readonly #posting = new Set<Promise<void>>();
  readonly #wakers = new Set<() => void>();
  #closed = false;
  #lastWarning = 0;
  #read = 0;
  #delivered = 0;

  constructor(settings: StatusWebhookSettings, logger?: Logger) {
    this.#s = { sentAfterMs: 100, deliveredAfterMs: 500, readAfterMs: 2000, readShare: 0.5, batchMs: 50, ...settings };
    this.#logger = logger;
  }

  /** An accepted send: its statuses are scheduled. */
  accepted(message: AcceptedMessage): void {
    if (this.#closed) return;
    const body = message.body as { biz_opaque_callback_data?: unknown };
    const base = {
      id: message.wamid,
      recipient_id: message.waId,
      ...(typeof body.biz_opaque_callback_data === 'string' ? { biz_opaque_callback_data: body.biz_opaque_callback_data } : {}),
    };
    const at = (delay: number, status: string) => this.#later(delay, () => this.#enqueue(message.phoneNumberId, { ...base, status, timestamp: String(Math.floor(Date.now() / 1000)) }));
    at(this.#s.sentAfterMs, 'sent');
    at(this.#s.deliveredAfterMs, 'delivered');
    // An even spread, not a coin toss: the same share every run.
    this.#delivered++;
    if (this.#read < Math.floor(this.#delivered * this.#s.readShare)) {
      this.#read++;
      at(this.#s.readAfterMs, 'read');
    }
  }

  #later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      run();
    }, ms);
    this.#timers.add(timer);
  }

  #enqueue(phoneNumberId: string, item: Record<string, unknown>): void {
    this.#due.push({ phoneNumberId, item });
    if (this.#due.length >= MAX_PER_POST) this.#flush();
    else this.#flushTimer ??= setTimeout(() => this.#flush(), this.#s.batchMs);
  }

  #flush(): void {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    while (this.#due.length > 0) {
      const batch = this.#due.splice(0, MAX_PER_POST);
      const posting = this.#post(payloadOf(batch), RETRY_FIRST_MS).finally(() => this.#posting.delete(posting));
      this.#posting.add(posting);
    }
  }

  async #post(payload: string, retryMs: number): Promise<void> {
    if (this.#closed) return;
    const signature = createHmac('sha256', this.#s.appSecret).update(payload).digest('hex');
    let status = 0;
    try {
      const response = await fetch(this.#s.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${signature}` },
        body: payload,
      });
      status = response.status;
      await response.arrayBuffer().catch(() => undefined);
    } catch {
      status = 0;
    }
    if (status === 200 || this.#closed) return;
    // One line per 10 s at most: a receiver that is down would otherwise log every retry of every POST.
    if (Date.now() - this.#lastWarning >= 10_000) {
      this.#lastWarning = Date.now();
      this.#logger?.warn({ status, url: this.#s.url }, 'status webhooks not accepted by the receiver; retrying with backoff');
    }
    // close() wakes a waiting retry, which then gives up.
    await new Promise<void>((resolve) => {
      this.#wakers.add(resolve);
      this.#later(retryMs, () => {
        this.#wakers.delete(resolve);
        resolve();
      });
    });
    await this.#post(payload, Math.min(RETRY_MOST_MS, retryMs * 2));
  }

  /** Statuses not yet due are dropped; POSTs under way end at their next retry. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    clearTimeout(this.#flushTimer);
    for (const wake of this.#wakers) wake();
    this.#wakers.clear();
    await Promise.allSettled([...this.#posting]);
  }
}

/** One POST as Meta sends it: one entry, one change per phone number. */
function payloadOf(batch: readonly DueStatus[]): string {
  const byNumber = new Map<string, Record<string, unknown>[]>();
  for (const { phoneNumberId, item } of batch) {
    const items = byNumber.get(phoneNumberId) ?? [];
    items.push(item);
    byNumber.set(phoneNumberId, items);
  }
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '100000000000001',
        changes: [...byNumber].map(([phoneNumberId, statuses]) => ({
          field: 'messages',
          value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550000000', phone_number_id: phoneNumberId }, statuses },
        })),
      },
    ],
  });
}
