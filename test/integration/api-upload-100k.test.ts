import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TARGET_SEND_PEAK_RSS_MB } from '../../bench/feeder/targets.js';
import { CliProcess, runCli } from '../support/cli-process.js';
import { tempDir, writeCampaignCsv } from '../support/csv-files.js';
import { PHONE_NUMBER_ID, SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix, redisUrl, removePrefix } from '../support/redis.js';
import { waitFor } from '../support/waiting.js';
import type { RecordedAnswer } from '../support/api-answers.js';
import { checkRecorded, recorded } from '../support/api-service.js';

const ROWS = 100_000;
const SPEC = { name: 'upload-100k', template: 'order_update', language: 'en_US', params: ['first_name', 'order_id'] };
const IDEMPOTENCY_KEY = 'upload-100k-first-try';

/**
 * The API's heavy path, each part its own process as an operator runs them: `campaign serve`,
 * `campaign sandbox` (accepting at any rate) and `campaign worker` (pacing off). A 100,000-row
 * CSV streamed from disk to POST /api/v1/campaigns as text/csv; the campaign sent to the end;
 * its report downloaded from the API and written by `campaign report` must be the same file.
 * serve's peak RSS up to the upload's answer (the kernel's VmHWM, as the bench reads it: the
 * ingest, which is what `campaign send` does) must stay under the limit `campaign send` of the
 * same size is held to (bench/feeder/targets.ts, docs/performance.md): an upload through the
 * API costs no more memory than one through the CLI. The peak of the whole test, the report
 * download included, is printed beside it (docs/performance.md has both).
 */
describe('POST /api/v1/campaigns: 100,000 rows through serve', () => {
  const prefix = freshPrefix('api-100k');
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let env: Record<string, string>;
  let sandbox: CliProcess | undefined;
  let serve: CliProcess | undefined;
  let worker: CliProcess | undefined;
  let api = '';
  let token = '';
  let file = '';

  beforeAll(async () => {
    dir = await tempDir();
    file = join(dir.dir, 'upload-100k.csv');
    await writeCampaignCsv(file, ROWS);
    env = {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      WHATSAPP_ACCESS_TOKEN: 'upload-100k-token',
      WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
      TEMPLATES_FILE: SAMPLE_TEMPLATES,
      WHATSAPP_APP_SECRET: 'upload-100k-secret',
      WEBHOOK_VERIFY_TOKEN: 'upload-100k-verify',
      REPORTS_DIR: join(dir.dir, 'reports'),
      LOG_LEVEL: 'info',
      SEND_RATE: '0',
    };
    // --retain-accepted: the sandbox need not keep 100,000 messages for a test that reads none of them.
    sandbox = new CliProcess(['sandbox', '--port', '0', '--mps', '0', '--templates', SAMPLE_TEMPLATES, '--retain-accepted', '100'], env);
    env.WHATSAPP_API_URL = (await sandbox.waitFor(/listening on (http:\/\/[^\s)]+)/))[1] ?? '';
    serve = new CliProcess(['serve', '--port', '0', '--host', '127.0.0.1'], env);
    api = `${(await serve.waitFor(/listening on (http:\/\/[\d.]+:\d+)/))[1]}/api/v1`;
    const created = await runCli(['tokens', 'create', '--name', 'crm', '--scope', 'send', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    token = (JSON.parse(created.stdout) as { token: string }).token;
    worker = new CliProcess(['worker'], env);
    await worker.waitFor(/send worker started/);
  });

  afterAll(async () => {
    await worker?.stop();
    await serve?.stop();
    await sandbox?.stop();
    const redis = new Redis(redisUrl());
    await removePrefix(redis, prefix);
    await redis.quit();
    await dir?.cleanup();
  });

  /** Every answer, checked at the end against the OpenAPI document. */
  const answers: RecordedAnswer[] = [];
  const call = async (path: string, init: RequestInit = {}) => {
    const answer = await fetch(`${api}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) },
    });
    answers.push(await recorded(init.method ?? 'GET', path, answer));
    return answer;
  };

  /** The CSV streamed from disk, never read whole: what a client uploading a large file does. */
  const upload = () =>
    call(`/campaigns?spec=${encodeURIComponent(JSON.stringify(SPEC))}`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv', 'idempotency-key': IDEMPOTENCY_KEY },
      body: Readable.toWeb(createReadStream(file)),
      duplex: 'half',
    });

  it('sends the upload to the end; the API report is the CLI report; serve ingests under the CLI ingest RSS limit', async () => {
    const pid = serve?.child.pid ?? 0;
    const idleRssMb = memoryMb(pid, 'VmRSS');
    const started = Date.now();
    const answer = await upload();
    const body = await answer.text();
    expect(answer.status, body).toBe(201);
    const summary = JSON.parse(body) as { id: string; rows: number; queued: number; rejected: number; skipped: number };
    expect(summary).toMatchObject({ rows: ROWS, queued: ROWS, rejected: 0, skipped: 0 });
    const uploadMs = Date.now() - started;
    const afterUploadMb = memoryMb(pid, 'VmHWM');

    const status = await waitFor(async () => (await (await call(`/campaigns/${summary.id}`)).json()) as Record<string, unknown>, {
      what: `campaign ${summary.id} completed`,
      until: (s) => s.state === 'completed',
      timeoutMs: 150_000,
      intervalMs: 500,
      explain: () => worker?.output.slice(-2000) ?? '',
    });
    expect(status).toMatchObject({ total: ROWS, sent: ROWS, failed: 0 });
    const sentMs = Date.now() - started;
    const afterSendMb = memoryMb(pid, 'VmHWM');

    const fromApi = join(dir.dir, 'api-report.csv');
    const download = await call(`/campaigns/${summary.id}/report`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toMatch(/^text\/csv/);
    await pipeline(Readable.fromWeb(download.body as WebReadableStream), createWriteStream(fromApi));
    const fromCli = join(dir.dir, 'cli-report.csv');
    const report = await runCli(['report', summary.id, '--out', fromCli], env);
    expect(report.code, report.stderr).toBe(0);
    // No field may differ: without webhooks (the sandbox posts none here) nothing changes a
    // completed campaign's rows between the two reads, and both run the same report code.
    const [apiLines, cliLines] = [(await readFile(fromApi, 'utf8')).split('\n'), (await readFile(fromCli, 'utf8')).split('\n')];
    expect(cliLines.filter((line) => line !== '')).toHaveLength(ROWS + 1);
    const firstDifference = apiLines.findIndex((line, i) => line !== cliLines[i]);
    expect(
      firstDifference === -1 ? undefined : { line: firstDifference + 1, api: apiLines[firstDifference], cli: cliLines[firstDifference] },
    ).toBeUndefined();
    expect(apiLines).toHaveLength(cliLines.length);

    const peakRssMb = memoryMb(pid, 'VmHWM');
    console.log(
      `API upload of ${ROWS} rows: serve peak RSS ${peakRssMb.toFixed(0)} MB (idle before it ${idleRssMb.toFixed(0)} MB; ` +
        `peak by the 201 ${afterUploadMb.toFixed(0)} MB, by the end of the send ${afterSendMb.toFixed(0)} MB, then the report download); ` +
        `201 after ${(uploadMs / 1000).toFixed(1)} s, all sent after ${(sentMs / 1000).toFixed(1)} s; ` +
        `CLI ingest limit ${TARGET_SEND_PEAK_RSS_MB} MB`,
    );
    expect(afterUploadMb, 'serve peak RSS by the 201 (MB)').toBeLessThan(TARGET_SEND_PEAK_RSS_MB);

    // The client did not see the first answer (a timeout): the same key again is the same campaign.
    const again = await upload();
    const againBody = await again.text();
    expect(again.status, againBody).toBeLessThan(300);
    expect((JSON.parse(againBody) as { id: string }).id).toBe(summary.id);
    const list = (await (await call('/campaigns?limit=200')).json()) as { campaigns: { id: string }[] };
    expect(list.campaigns.map((c) => c.id)).toStrictEqual([summary.id]);
    // Every answer of this test, the 201, the polls, the report, the replay and the list, as documented.
    expect(answers.length).toBeGreaterThan(4);
    expect(checkRecorded(answers)).toStrictEqual([]);
  }, 240_000);
});

/** A figure of /proc/PID/status, in MB (VmHWM: the peak resident set since the process started). */
function memoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const kb = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  if (!Number.isFinite(kb)) throw new Error(`no ${field} for process ${pid}`);
  return kb / 1024;
}
