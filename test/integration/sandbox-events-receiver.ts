import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The receiver the sandbox-events tests start: a local HTTP server that records every POST
 * the sandbox makes, with whether its X-Hub-Signature-256 is the HMAC of the exact bytes
 * under the app secret (as sandbox-webhooks.test.ts checks it), and wakes waiters on each
 * one, so a test waits for the webhook it expects rather than for time to pass.
 */
export const SECRET = 'sandbox-events-secret';

/** Statuses, batches and retries come quickly; nothing here waits on them for long. */
export const FAST = { sentAfterMs: 5, deliveredAfterMs: 20, readAfterMs: 40, readShare: 0, batchMs: 10 };

export interface Posted {
  /** The parsed body. */
  body: { object: string; entry: { id: string; time?: number; changes: { field: string; value: Record<string, unknown> }[] }[] };
  signedOk: boolean;
}

export interface Receiver {
  url: string;
  posts: Posted[];
  /** Resolves once `done` holds over the POSTs so far (checked on each one); rejects after 10 s naming `what`. */
  until(what: string, done: (posts: readonly Posted[]) => boolean): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const posts: Posted[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const signedOk = req.headers['x-hub-signature-256'] === `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;
      posts.push({ body: JSON.parse(raw.toString('utf8')) as Posted['body'], signedOk });
      res.writeHead(200).end();
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;
  const until = (what: string, done: (posts: readonly Posted[]) => boolean) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(posts.map((p) => p.body))}`));
      }, 10_000);
      function check(): void {
        if (!done(posts)) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve();
      }
      waiters.add(check);
      check();
    });
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return { url, posts, until, close };
}

/** Every change of every POST whose field is `field`, in arrival order. */
export function changesOf(posts: readonly Posted[], field: string): { field: string; value: Record<string, unknown> }[] {
  return posts.flatMap((p) => p.body.entry.flatMap((e) => e.changes.filter((c) => c.field === field)));
}

/** Every status of every `messages` change, in arrival order. */
export function statusesOf(posts: readonly Posted[]): { id: string; status: string; errors?: Record<string, unknown>[] }[] {
  return changesOf(posts, 'messages').flatMap((c) => (c.value['statuses'] ?? []) as { id: string; status: string }[]);
}
