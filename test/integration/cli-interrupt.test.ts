import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadTemplatesFile, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { openContext, type AppContext } from '../../src/app/app-context.js';
import { startWorker, type RunningWorker } from '../../workers/worker.js';
import { runCli } from '../support/cli-process.js';
import { tempDir, writeCampaignCsv } from '../support/csv-files.js';
import { PHONE_NUMBER_ID, SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix, redisUrl, removePrefix } from '../support/redis.js';
import { waitFor } from '../support/waiting.js';

const CLI = fileURLToPath(new URL('../../bin/campaign.js', import.meta.url));
const TOKEN = 'interrupt-token';
const ROWS = 10_000;

/**
 * Ctrl-C in `campaign send`, as an operator presses it: a real SIGINT to the CLI process while
 * it reads a file, with a worker sending. Then the command it prints is run, and the sandbox
 * must have accepted exactly one message per recipient.
 */
describe('campaign send: Ctrl-C and the printed command to continue', () => {
  const prefix = freshPrefix('cli-interrupt');
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let sandbox: Sandbox;
  let context: AppContext;
  let worker: RunningWorker | undefined;
  let env: Record<string, string>;

  beforeEach(async () => {
    dir = await tempDir();
    sandbox = await startSandbox({ templates: await loadTemplatesFile(SAMPLE_TEMPLATES), accessToken: TOKEN, messagesPerSecond: 0 });
    env = {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      WHATSAPP_API_URL: sandbox.url,
      WHATSAPP_ACCESS_TOKEN: TOKEN,
      WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
      SEND_RATE: '0',
      LOG_LEVEL: 'warn',
      REPORTS_DIR: join(dir.dir, 'reports'),
    };
    context = await openContext([], { ...env, LOG_LEVEL: 'silent' });
  });

  afterEach(async () => {
    await worker?.close();
    await removePrefix(context.redis, prefix);
    await context.close();
    await sandbox.close();
    await dir.cleanup();
  });

  it(
    'SIGINT while reading: exit 130, the campaign paused with the row it stopped at; the ' +
      'printed command finishes it with 0 duplicate recipients',
    async () => {
      const file = join(dir.dir, 'big.csv');
      await writeCampaignCsv(file, ROWS);
      worker = await startWorker(context);
      const args = [
        'send',
        file,
        '--template',
        'order_update',
        '--language',
        'en_US',
        '--params',
        'first_name,order_id',
        '--templates',
        SAMPLE_TEMPLATES,
      ];

      const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      // The campaign ID and how to stop come before the first row is read: Ctrl-C right then.
      const id = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
          const match = /Campaign (\S+): reading .*Ctrl-C stops reading/.exec(stderr);
          if (match !== null) resolve(match[1] ?? '');
        });
        child.on('exit', () => reject(new Error(`send exited before printing its campaign ID:\n${stderr}`)));
      });
      child.kill('SIGINT');
      expect(await exited, stderr).toBe(130);

      const stopped = /campaign: INGEST_INTERRUPTED: reading .* stopped at row (\d+);[\s\S]*\n {2}(campaign send .*--campaign \S+)\n/.exec(
        stderr,
      );
      expect(stopped, stderr).not.toBeNull();
      const row = Number(stopped?.[1]);
      expect(row).toBeGreaterThan(0);
      expect(row).toBeLessThan(ROWS);
      expect(stdout).toContain(`Campaign ${id} "big": ${row} rows read`);
      expect(await context.ledger.status(id)).toMatchObject({ state: 'paused', pausedReason: `ingest interrupted at row ${row}` });

      // The command it printed, as the operator would paste it.
      const printed = (stopped?.[2] ?? '')
        .split(' ')
        .slice(1)
        .map((arg) => arg.replace(/^'(.*)'$/, '$1'));
      expect(printed).toStrictEqual([...args, '--campaign', id]);
      const continued = await runCli(printed, env);
      expect(continued.code, continued.stderr).toBe(0);
      expect(continued.stderr).toContain(`Continuing campaign ${id}`);

      await waitFor(() => context.ledger.status(id), {
        what: `campaign ${id} completed`,
        timeoutMs: 60_000,
        intervalMs: 100,
        until: (status) => status?.state === 'completed',
      });
      const perRecipient = new Map<string, number>();
      for (const message of sandbox.accepted()) perRecipient.set(message.to, (perRecipient.get(message.to) ?? 0) + 1);
      expect(perRecipient.size).toBe(ROWS);
      expect([...perRecipient.values()].filter((n) => n > 1)).toStrictEqual([]);
      expect((await context.ledger.status(id))?.counts).toMatchObject({ total: ROWS, sent: ROWS });
    },
  );
});
