import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CapturedExchange, CapturedLine, CapturedWebhook, Sandbox } from '../../src/sandbox/index.js';
import { PHONE_NUMBER_ID, TOKEN, startTestSandbox } from './sandbox-helpers.js';
import { waitFor } from '../support/waiting.js';

/**
 * The sandbox's capture (`requestLog`, default SANDBOX_REQUEST_LOG; src/sandbox/request-log.ts):
 * one NDJSON line per exchange on Meta's routes and per webhook posted, in a file of the
 * sandbox's own; off, nothing is written; a failure to write is logged, never the request's.
 */
const dirs: string[] = [];
function newDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'request-log-test-'));
  dirs.push(dir);
  return dir;
}

function captured(dir: string, sandbox: Sandbox): CapturedLine[] {
  const text = readFileSync(join(dir, `sandbox-${process.pid}-${sandbox.port}.ndjson`), 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as CapturedLine);
}

const exchanges = (lines: CapturedLine[]): CapturedExchange[] => lines.filter((l): l is CapturedExchange => l.kind === 'exchange');

const SEND = {
  messaging_product: 'whatsapp',
  to: '+447700900123',
  type: 'template',
  template: {
    name: 'order_update',
    language: { code: 'en_US' },
    components: [
      {
        type: 'body',
        parameters: [
          { type: 'text', text: 'Ana' },
          { type: 'text', text: 'A-1' },
        ],
      },
    ],
  },
};

afterEach(() => {
  vi.unstubAllEnvs();
});

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the capture of exchanges', () => {
  let receiver: Server;
  let received: string[];
  let receiverUrl: string;

  beforeAll(async () => {
    received = [];
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const address = receiver.address();
    receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/webhook`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('each request with its answer, the query without access_token, multipart without its bytes, each webhook as signed', async () => {
    const dir = newDir();
    const sandbox = await startTestSandbox({ requestLog: dir, webhooks: { url: receiverUrl, appSecret: 's3cret' } });
    const base = `${sandbox.url}/v25.0/${PHONE_NUMBER_ID}`;
    const json = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'user-agent': 'campaign-worker/9.9.9' };
    try {
      await (await request(`${base}/messages`, { method: 'POST', headers: json, body: JSON.stringify(SEND) })).body.json();
      await (await request(`${base}/messages`, { method: 'POST', headers: json, body: '{not json' })).body.json();
      await (await request(`${sandbox.url}/v25.0/${PHONE_NUMBER_ID}?fields=id&access_token=${TOKEN}`)).body.json();
      await (await request(`${sandbox.url}/v25.0/nowhere/at/all`)).body.json();
      await (await request(`${sandbox.url}/_sandbox/stats`)).body.json();
      const form = new FormData();
      form.append('messaging_product', 'whatsapp');
      form.append('file', new Blob([Buffer.alloc(2048, 7)], { type: 'image/png' }), 'logo.png');
      const upload = (await (
        await fetch(`${base}/media`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: form })
      ).json()) as {
        id: string;
      };
      const info = (await (await request(`${sandbox.url}/v25.0/${upload.id}`, { headers: json })).body.json()) as { url: string };
      await (await request(info.url, { headers: { authorization: `Bearer ${TOKEN}` } })).body.arrayBuffer();
      const status = await request(`${sandbox.url}/_sandbox/template-status`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'order_update', language: 'en_US', event: 'PAUSED' }),
      });
      await status.body.json();
      await waitFor(() => received.find((body) => body.includes('message_template_status_update')), {
        what: 'the template status webhook at the receiver',
      });
    } finally {
      await sandbox.close();
    }

    expect(readdirSync(dir)).toEqual([`sandbox-${process.pid}-${sandbox.port}.ndjson`]);
    const lines = captured(dir, sandbox);
    const all = exchanges(lines);
    expect(all.map((l) => `${l.method} ${l.path.replace(/\d{6,}/g, 'ID')} ${String(l.status)}`)).toEqual([
      'POST /v25.0/ID/messages 200',
      'POST /v25.0/ID/messages 400',
      'GET /v25.0/ID 200',
      'GET /v25.0/nowhere/at/all 400',
      'POST /v25.0/ID/media 200',
      'GET /v25.0/ID 200',
      'GET /whatsapp_business/attachments/ 200',
    ]);
    const [send, notJson, get, , upload, , download] = all;
    expect(send).toMatchObject({ userAgent: 'campaign-worker/9.9.9', contentType: 'application/json', query: {}, body: SEND });
    expect(send?.answer).toMatchObject({ messaging_product: 'whatsapp', messages: [{ id: expect.stringMatching(/^wamid\./) as unknown }] });
    expect(notJson).toMatchObject({ bodyNotJson: true, answer: { error: { code: 100 } } });
    expect(notJson).not.toHaveProperty('body');
    expect(get?.query).toEqual({ fields: 'id' });
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
    expect(upload?.multipart).toEqual({
      fields: [{ name: 'messaging_product', value: 'whatsapp' }],
      files: [{ name: 'file', filename: 'logo.png', type: 'image/png', size: 2048 }],
    });
    expect(download).toMatchObject({ answerContentType: 'image/png', answerBytes: 2048 });
    expect(download).not.toHaveProperty('answer');

    const hooks = lines.filter((l): l is CapturedWebhook => l.kind === 'webhook');
    expect(hooks.length).toBeGreaterThan(0);
    for (const hook of hooks) {
      expect(hook.url).toBe(receiverUrl);
      expect(received).toContain(hook.payload);
    }
  });

  it('a request the timeout fault never answers is captured, without an answer, when the sandbox closes', async () => {
    const dir = newDir();
    const sandbox = await startTestSandbox({ requestLog: dir });
    sandbox.setFaults({ timeoutRate: 1 });
    const pending = request(`${sandbox.url}/v25.0/${PHONE_NUMBER_ID}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(SEND),
    }).catch(() => undefined);
    await waitFor(() => sandbox.stats().requests > 0, { what: 'the request to be held' });
    await sandbox.close();
    await pending;
    expect(exchanges(captured(dir, sandbox))).toEqual([expect.objectContaining({ method: 'POST', status: null, body: SEND })]);
  });
});

describe('on, off, and failing', () => {
  it('takes SANDBOX_REQUEST_LOG by default; `requestLog: false` writes nothing whatever it says', async () => {
    const dir = newDir();
    vi.stubEnv('SANDBOX_REQUEST_LOG', dir);
    const on = await startTestSandbox();
    const off = await startTestSandbox({ requestLog: false });
    for (const sandbox of [on, off]) await (await request(`${sandbox.url}/v25.0/${PHONE_NUMBER_ID}`)).body.json();
    await Promise.all([on.close(), off.close()]);
    expect(readdirSync(dir)).toEqual([`sandbox-${process.pid}-${on.port}.ndjson`]);
  });

  it('a directory it cannot write is logged once, and every request is still answered', async () => {
    const blocker = join(newDir(), 'a-file');
    writeFileSync(blocker, '');
    const logged: string[] = [];
    const logger = pino(
      { level: 'warn' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          logged.push(chunk.toString('utf8'));
          done();
        },
      }),
    );
    const sandbox = await startTestSandbox({ requestLog: join(blocker, 'captures'), logger });
    try {
      for (let i = 0; i < 3; i += 1) {
        const answer = await request(`${sandbox.url}/v25.0/${PHONE_NUMBER_ID}/messages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ ...SEND, to: `+44770090012${i}` }),
        });
        expect(answer.statusCode).toBe(200);
        await answer.body.json();
      }
    } finally {
      await sandbox.close();
    }
    const failures = logged.filter((line) => line.includes('sandbox request log: cannot write'));
    expect(failures).toHaveLength(1);
  });
});
