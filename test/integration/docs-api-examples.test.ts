import { spawn } from 'node:child_process';
import { chmod, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiTestService } from '../support/api-service.js';
import { CliProcess } from '../support/cli-process.js';
import { tempDir } from '../support/csv-files.js';
import { examplesScript, outputsOf, printsDisagreement, shellExamples } from '../support/doc-examples.js';
import { PHONE_NUMBER_ID, SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { redisUrl } from '../support/redis.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const API_MD = join(ROOT, 'docs/api.md');
const ACCESS_TOKEN = 'docs-api-token';

/** What docs/api.md must show by example (its reference promises one of each). */
const REQUIRED = [
  'token',
  'dry-run',
  'create-csv',
  'create',
  'list',
  'status',
  'report',
  'rejects',
  'pause',
  'resume',
  'reschedule',
  'cancel',
  'retry',
  'retarget',
  'templates',
  'numbers',
  'optouts',
  'problem',
];

/**
 * docs/api.md's curl examples, run by bash as written, in one shell and in the page's order,
 * against a real `campaign serve` (its API under CW_API with an admin token in CW_TOKEN), a
 * `campaign worker` and `campaign sandbox` (the built CLI: `npm run build` first, as `npm test`
 * does), from a directory holding the repository's samples/. Each must exit 0 and print what
 * its `# prints:` lines say.
 */
describe('docs/api.md examples', () => {
  const api = new ApiTestService('docs-api');
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let sandbox: CliProcess;
  let worker: CliProcess;
  let cliEnv: Record<string, string>;

  beforeAll(async () => {
    dir = await tempDir();
    cliEnv = {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: api.prefix,
      WHATSAPP_ACCESS_TOKEN: ACCESS_TOKEN,
      WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
      TEMPLATES_FILE: SAMPLE_TEMPLATES,
      LOG_LEVEL: 'info',
    };
    sandbox = new CliProcess(['sandbox', '--port', '0', '--mps', '0', '--templates', SAMPLE_TEMPLATES], cliEnv);
    const [, url] = await sandbox.waitFor(/listening on (http:\/\/[^\s)]+)/);
    cliEnv.WHATSAPP_API_URL = url ?? '';
    await api.start({ ...cliEnv, LOG_LEVEL: 'silent' });
    cliEnv.REPORTS_DIR = api.reportsDir;
    worker = new CliProcess(['worker'], { ...cliEnv, SEND_RATE: '0' });
    await worker.waitFor(/send worker started/);
    await symlink(join(ROOT, 'samples'), join(dir.dir, 'samples'));
    // `campaign` as a reader has it on the PATH after `npm install -g` (or as `npx campaign`).
    await mkdir(join(dir.dir, 'bin'));
    await writeFile(join(dir.dir, 'bin/campaign'), `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'bin/campaign.js')}" "$@"\n`);
    await chmod(join(dir.dir, 'bin/campaign'), 0o755);
  });

  afterAll(async () => {
    await worker?.stop();
    await sandbox?.stop();
    await api.close();
    await dir?.cleanup();
  });

  it('has an example of every route the page documents', async () => {
    const names = shellExamples(await readFile(API_MD, 'utf8')).map((e) => e.name);
    expect(new Set(names).size, 'example names are unique').toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(REQUIRED));
  });

  it('runs every example; each exits 0 and prints what the page says', async () => {
    const examples = shellExamples(await readFile(API_MD, 'utf8'));
    const env = {
      ...process.env,
      ...cliEnv,
      CW_API: api.url,
      CW_TOKEN: api.tokens.admin ?? '',
      PATH: `${join(dir.dir, 'bin')}:${process.env.PATH ?? ''}`,
    };
    const run = await runBash(examplesScript(examples), dir.dir, env, 150_000);
    const outputs = outputsOf(run.stdout);
    const ran = [...outputs.keys()];
    const failed = ran.at(-1) === 'end' ? undefined : ran.at(-1);
    expect(failed, `example "${failed}" failed (exit ${run.code}):\n${outputs.get(failed ?? '')}\n${run.stderr}`).toBeUndefined();
    expect(run.code, run.stderr).toBe(0);
    const wrong = examples.flatMap((example) => {
      const output = outputs.get(example.name) ?? '';
      const why = printsDisagreement(example.prints, output);
      return why === undefined ? [] : [`docs/api.md:${example.line} (${example.name}): ${why}; it printed:\n${output}`];
    });
    expect(wrong, run.stderr).toStrictEqual([]);
  }, 200_000);
});

/** bash running `script` to its end (killed by its own PID after `timeoutMs`). */
function runBash(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr: stderr.slice(-4000) });
    });
  });
}
