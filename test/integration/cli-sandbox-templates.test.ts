import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { CliProcess } from '../support/cli-process.js';
import { tempDir } from '../support/csv-files.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { DEFAULT_BUSINESS_ACCOUNT_IDS } from '../../src/sandbox/index.js';

/**
 * `campaign sandbox` started from a directory that is not the repository, as after
 * `npm install -g` or in a script: with no --templates it serves TEMPLATES_FILE when set, else
 * the package's own samples/templates.json (found beside the compiled code, not in the
 * working directory).
 */
const LISTENING = /Sandbox Cloud API listening on (http:\/\/\S+) \((\d+) templates from (.+), accepts/;

describe('campaign sandbox templates, run outside the repository', () => {
  let sandbox: CliProcess | undefined;
  let dir: Awaited<ReturnType<typeof tempDir>> | undefined;

  afterEach(async () => {
    await sandbox?.stop();
    await dir?.cleanup();
  });

  /** The names the sandbox's template list answers with. */
  async function servedNames(url: string): Promise<string[]> {
    const response = await fetch(`${url}/v23.0/${DEFAULT_BUSINESS_ACCOUNT_IDS[0] ?? ''}/message_templates?limit=100`, {
      headers: { authorization: 'Bearer sandbox-token' },
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: { name: string; language: string }[] }).data.map((t) => `${t.name}/${t.language}`).sort();
  }

  async function start(env: Record<string, string>): Promise<{ url: string; count: number; file: string }> {
    dir = await tempDir();
    sandbox = new CliProcess(
      ['sandbox', '--port', '0'],
      { WHATSAPP_ACCESS_TOKEN: '', WHATSAPP_PHONE_NUMBER_ID: '', LOG_LEVEL: 'warn', TEMPLATES_FILE: '', ...env },
      { cwd: dir.dir },
    );
    const [, url = '', count = '', file = ''] = await sandbox.waitFor(LISTENING);
    return { url, count: Number(count), file };
  }

  it('with neither --templates nor TEMPLATES_FILE: the package’s samples/templates.json', async () => {
    const { url, count, file } = await start({});
    const samples = (JSON.parse(await readFile(SAMPLE_TEMPLATES, 'utf8')) as { data: { name: string; language: string }[] }).data;
    expect(file).toBe(SAMPLE_TEMPLATES);
    expect(count).toBe(samples.length);
    expect(await servedNames(url)).toEqual(samples.map((t) => `${t.name}/${t.language}`).sort());
  });

  it('TEMPLATES_FILE, when set, is the list it serves', async () => {
    const ownDir = await tempDir();
    onTestFinished(() => ownDir.cleanup());
    const own = join(ownDir.dir, 'own-templates.json');
    await writeFile(
      own,
      JSON.stringify({
        data: [
          {
            name: 'own_greeting',
            language: 'de',
            status: 'APPROVED',
            category: 'UTILITY',
            id: '9001',
            parameter_format: 'POSITIONAL',
            components: [{ type: 'BODY', text: 'Hallo {{1}}', example: { body_text: [['Ana']] } }],
          },
        ],
      }),
    );
    const { url, count, file } = await start({ TEMPLATES_FILE: own });
    expect(file).toBe(own);
    expect(count).toBe(1);
    expect(await servedNames(url)).toEqual(['own_greeting/de']);
  });
});
