import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { machineLookups } from '../support/browser-finder.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * An `expect(…)` that bounds a clock difference from above: a duration asserted in a test,
 * which a loaded machine breaks (a lower bound, such as an injected delay, only grows under
 * load). Durations are figures of `npm run bench`; a test waits on events and lets its
 * timeout catch a hang.
 */
const TIMED_EXPECT = /expect\([^;]*(?:Date\.now\(\)|performance\.now\(\)|process\.hrtime)[^;]*\)\s*\.toBeLessThan/;

/** A timed assertion split over lines (`const took = Date.now() - started; expect(took).toBeLessThan(…)`). */
function timedAssertions(source: string): string[] {
  const durations = [...source.matchAll(/const (\w+) = (?:Date\.now\(\)|performance\.now\(\)) - \w+;/g)].map((m) => m[1] ?? '');
  const lines = source.split('\n');
  return lines.filter(
    (line) => TIMED_EXPECT.test(line) || durations.some((name) => new RegExp(`expect\\(${name}[,)].*toBe(?:LessThan)`).test(line)),
  );
}

describe('what `npm test` needs, as the README says', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

  it('the README names the browser the browser tests drive, and the variable the tests read to find it', () => {
    const section = readme.slice(readme.indexOf('## Two commands'), readme.indexOf('## A first real campaign'));
    expect(section).toMatch(/npm test[^\n]*\n?[^\n]*Chromium/);
    expect(section).toContain('apt-get install chromium');
    expect(section).toContain('`CHROMIUM_PATH`');
    const before = process.env.CHROMIUM_PATH;
    process.env.CHROMIUM_PATH = '/opt/some/chromium';
    try {
      expect(machineLookups().chromiumPath).toBe('/opt/some/chromium');
    } finally {
      if (before === undefined) delete process.env.CHROMIUM_PATH;
      else process.env.CHROMIUM_PATH = before;
    }
  });

  it('no test asserts how long something took (a loaded machine is not a failure)', () => {
    const self = fileURLToPath(import.meta.url);
    const found = testFiles(join(ROOT, 'test'))
      .filter((file) => file !== self)
      .flatMap((file) => timedAssertions(readFileSync(file, 'utf8')).map((line) => `${relative(ROOT, file)}: ${line.trim()}`));
    expect(found).toEqual([]);
  });

  it('the check sees a timed assertion, in one line or two', () => {
    expect(timedAssertions('    expect(Date.now() - started).toBeLessThan(5000);')).toHaveLength(1);
    expect(timedAssertions('const tookMs = Date.now() - started;\nexpect(tookMs).toBeLessThan(10_000);')).toHaveLength(1);
    expect(timedAssertions('expect(performance.now() - closing).toBeLessThan(1000);')).toHaveLength(1);
    expect(timedAssertions('expect(performance.now() - started).toBeGreaterThanOrEqual(140);')).toHaveLength(0);
    expect(timedAssertions('expect(status.sent).toBeLessThan(10);')).toHaveLength(0);
  });
});
