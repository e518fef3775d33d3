import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { hookBatchRequest } from '../../src/hooks/hook-batch.js';

/**
 * docs/events.md's three lines of Node and of Python, run as printed, on a batch signed as
 * `serve` signs it: they accept it, and refuse it tampered with, under another secret, or old.
 */
const PAGE = readFileSync(new URL('../../docs/events.md', import.meta.url), 'utf8');
const SECTION = PAGE.slice(PAGE.indexOf('### Verifying a signature'));

function block(language: string): string {
  const match = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(SECTION);
  if (match?.[1] === undefined) throw new Error(`docs/events.md has no ${language} block under "Verifying a signature"`);
  return match[1];
}

const SECRET = 'hook-secret-from-hooks-add';
const fresh = () => hookBatchRequest('crm', [{ id: 'evt_1', type: 'row.sent' }], SECRET, Date.now());
const old = () => hookBatchRequest('crm', [{ id: 'evt_1', type: 'row.sent' }], SECRET, Date.now() - 6 * 60_000);

function hasPython(): boolean {
  try {
    execFileSync('python3', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('verifying a batch as docs/events.md shows', () => {
  it('has three lines of each', () => {
    expect(block('js').trim().split('\n')).toHaveLength(3);
    expect(block('python').trim().split('\n')).toHaveLength(3);
  });

  it('in Node', () => {
    const code = block('js');
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the page's own lines, run as a reader would
    const verify = new Function('require', 'req', 'rawBody', 'secret', `${code}\nreturn valid;`) as (...args: unknown[]) => boolean;
    const run = (request: { body: string; headers: Record<string, string> }, body = request.body, secret = SECRET) =>
      verify(createRequire(import.meta.url), { headers: request.headers }, Buffer.from(body), secret);
    const batch = fresh();
    expect(run(batch)).toBe(true);
    expect(run(batch, batch.body.replace('row.sent', 'row.read'))).toBe(false);
    expect(run(batch, batch.body, 'another-secret')).toBe(false);
    expect(run(old())).toBe(false);
    expect(run({ body: batch.body, headers: {} })).toBe(false);
  });

  it.skipIf(!hasPython())('in Python', () => {
    const prelude = `import sys\nraw_body = sys.stdin.buffer.read()\nheaders = {"X-Campaign-Signature": sys.argv[1]}\n`;
    const script = `${prelude}secret = sys.argv[2]\n${block('python')}print(valid)\n`;
    const run = (request: { body: string; headers: Record<string, string> }, body = request.body, secret = SECRET) =>
      execFileSync('python3', ['-c', script, request.headers['x-campaign-signature'] ?? '', secret], { input: body })
        .toString()
        .trim();
    const batch = fresh();
    expect(run(batch)).toBe('True');
    expect(run(batch, batch.body.replace('row.sent', 'row.read'))).toBe('False');
    expect(run(batch, batch.body, 'another-secret')).toBe('False');
    expect(run(old())).toBe('False');
  });
});
