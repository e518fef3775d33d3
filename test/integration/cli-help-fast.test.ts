import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHelp } from '../support/cli-help.js';
import { runCli, type CliResult } from '../support/cli-process.js';

/**
 * bin/campaign.js prints help from dist/cli/help.json, which the build takes from the CLI's own
 * definitions, without loading the CLI's bundle. Every entry of that table must print what the
 * CLI itself prints for the same words (stdout, stderr, exit code), and wherever the CLI could
 * print something else (another terminal width, a `.env` it refuses), bin must let the CLI answer.
 */
interface HelpTable {
  width: number;
  texts: string[];
  argv: Record<string, number>;
}

const TABLE_FILE = fileURLToPath(new URL('../../dist/cli/help.json', import.meta.url));

/**
 * Loaded with --require into bin/campaign.js: HIDE_FILE makes reading files of that name fail
 * (help.json: the CLI answers as if there were no table; campaign.cjs: only the table can
 * answer), FAKE_COLUMNS makes stdout a terminal that wide.
 */
const PRELOAD = `'use strict';
const fs = require('node:fs');
const read = fs.readFileSync;
const hidden = process.env.HIDE_FILE;
fs.readFileSync = function (path, ...rest) {
  if (hidden && String(path).endsWith('/dist/cli/' + hidden)) throw Object.assign(new Error('hidden by the test'), { code: 'ENOENT' });
  return read.call(this, path, ...rest);
};
if (process.env.FAKE_COLUMNS) {
  Object.defineProperty(process.stdout, 'isTTY', { value: true });
  Object.defineProperty(process.stdout, 'columns', { value: Number(process.env.FAKE_COLUMNS) });
}
`;

/** Read while the tests are collected: it.each needs its entries then. */
const table = JSON.parse(await readFile(TABLE_FILE, 'utf8')) as HelpTable;
let scratch: string;
let cwd: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'cli-help-fast-'));
  cwd = join(scratch, 'work');
  await mkdir(cwd);
  await writeFile(join(scratch, 'preload.cjs'), PRELOAD);
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** `campaign ARGS` in a directory of its own, with the test's preload set as `env` says. */
function campaign(args: string[], env: { HIDE_FILE?: string; FAKE_COLUMNS?: string } = {}, dir = cwd): Promise<CliResult> {
  const nodeOptions = `${process.env.NODE_OPTIONS ?? ''} --require ${JSON.stringify(join(scratch, 'preload.cjs'))}`.trim();
  return runCli(args, { NODE_OPTIONS: nodeOptions, HIDE_FILE: env.HIDE_FILE, FAKE_COLUMNS: env.FAKE_COLUMNS }, { cwd: dir });
}

/** What the CLI itself prints: bin/campaign.js with the table hidden, so it runs the bundle. */
const fullCli = (args: string[], env: { FAKE_COLUMNS?: string } = {}) => campaign(args, { ...env, HIDE_FILE: 'help.json' });

/** Only the table can answer: reading the bundle fails. */
const tableOnly = (args: string[], env: { FAKE_COLUMNS?: string } = {}, dir = cwd) =>
  campaign(args, { ...env, HIDE_FILE: 'campaign.cjs' }, dir);

describe('the help table', () => {
  it('covers --help and -h of every command and subcommand, and `help <command>`', () => {
    expect(table.width).toBe(80);
    const missing: string[] = [];
    for (const [words, index] of Object.entries(table.argv)) {
      if (!words.endsWith(' --help') && words !== '--help') continue;
      const path = words.split(' ').slice(0, -1);
      const help = parseHelp(path, table.texts[index] ?? '');
      for (const name of help.subcommands) {
        for (const flag of ['--help', '-h'])
          if (!([...path, name, flag].join(' ') in table.argv)) missing.push([...path, name, flag].join(' '));
        if (path.length === 0 && !(`help ${name}` in table.argv)) missing.push(`help ${name}`);
      }
    }
    expect(missing).toEqual([]);
    expect(Object.keys(table.argv)).toEqual(expect.arrayContaining(['--help', '-h', 'help', 'send --help', 'optouts add -h']));
  });
});

/** Every command's and subcommand's `--help`, and each other form of asking on a few: the rest are checked against these in the table. */
const COMPARED = [
  ...Object.keys(table.argv).filter((words) => words === '--help' || words.endsWith(' --help')),
  ...['-h', 'optouts add -h', 'help', 'help send'],
];

describe.concurrent('the table prints what the CLI prints, without the bundle', () => {
  it.each(COMPARED)('campaign %s', async (words) => {
    const args = words.split(' ');
    const [fast, full] = await Promise.all([tableOnly(args), fullCli(args)]);
    expect(full.code, full.stderr).toBe(0);
    expect(fast).toEqual(full);
    expect(fast.stdout).toBe(table.texts[table.argv[words] ?? -1]);
  });

  it('prints for `X -h` and `help X` what it prints for `X --help`, as the CLI does for those above', () => {
    const textOf = (words: string) => table.texts[table.argv[words] ?? -1];
    const unlike = Object.keys(table.argv).filter((words) => {
      const asked = words
        .replace(/(^| )-h$/, '$1--help')
        .replace(/^help( (.*))?$/, (_, __, name?: string) => `${name ?? ''} --help`.trim());
      return textOf(words) !== textOf(asked);
    });
    expect(unlike).toEqual([]);
  });
});

describe.concurrent('the CLI answers what the table cannot', () => {
  /** bin went on to the bundle: with the bundle unreadable, it fails. */
  const expectTheBundle = (result: CliResult) => {
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('hidden by the test');
  };

  it('on a terminal of another width (commander wraps at its width)', async () => {
    expectTheBundle(await campaign(['send', '--help'], { HIDE_FILE: 'campaign.cjs', FAKE_COLUMNS: '120' }));
  });

  it('with a .env it cannot read: CONFIG_INVALID, exit 1, as before', async () => {
    const dir = join(scratch, 'unreadable-env');
    await mkdir(join(dir, '.env'), { recursive: true });
    const result = await campaign(['--help'], {}, dir);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^campaign: CONFIG_INVALID: \.env in .* cannot be read: /);
  });

  it.each([[['--help', 'send']], [['send', '--json', '--help']], [['send', 'x y', '--help']], [['constructor', '--help']], [[]]])(
    'for words the table has no entry for: %j',
    async (args) => {
      expectTheBundle(await campaign(args, { HIDE_FILE: 'campaign.cjs' }));
    },
  );
});

describe.concurrent('the table answers', () => {
  it('on a terminal 80 wide', async () => {
    const result = await tableOnly(['--help'], { FAKE_COLUMNS: '80' });
    expect(result).toEqual({ code: 0, stdout: table.texts[table.argv['--help'] ?? -1], stderr: '' });
  });

  it('with a .env it reads', async () => {
    const dir = join(scratch, 'good-env');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, '.env'), 'LOG_LEVEL=warn\n');
    const result = await tableOnly(['status', '-h'], {}, dir);
    expect(result).toEqual({ code: 0, stdout: table.texts[table.argv['status -h'] ?? -1], stderr: '' });
  });
});
