import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENV_VARIABLES, loadConfig } from '../../src/config/config.js';
import { proseLines } from '../support/markdown.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The variables docs/configuration.md documents: the first column of its table rows. */
function documentedVariables(markdown: string): string[] {
  return proseLines(markdown).flatMap((line) => {
    const name = /^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|/.exec(line)?.[1];
    return name === undefined ? [] : [name];
  });
}

/** The variables .env.example sets (`NAME=value` lines), and any other `NAME=` it mentions in its comments. */
function exampleVariables(envFile: string): { set: string[]; mentioned: string[] } {
  const lines = envFile.split('\n');
  const set = lines.flatMap((line) => {
    const name = /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1];
    return name === undefined ? [] : [name];
  });
  const mentioned = lines
    .filter((line) => line.startsWith('#'))
    .flatMap((line) => [...line.matchAll(/\b([A-Z][A-Z0-9]*_[A-Z0-9_]+)=/g)].map((m) => m[1] ?? ''));
  return { set, mentioned };
}

const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

describe('the config schema', () => {
  it('lists its variables, and reads each one it lists', () => {
    expect(ENV_VARIABLES).toContain('REDIS_URL');
    expect(ENV_VARIABLES).toContain('DASHBOARD_PASSWORD');
    // A name in the list is one the schema parses: a bad value for it is refused by name.
    expect(() => loadConfig({ SEND_RATE: 'fast' })).toThrow(/SEND_RATE/);
  });
});

describe('docs/configuration.md', () => {
  const documented = documentedVariables(read('docs/configuration.md'));

  it('documents every variable of the schema, and nothing else, once each', () => {
    expect(sorted(documented)).toEqual(sorted(ENV_VARIABLES));
    expect(documented.length).toBe(new Set(documented).size);
  });

  it('a variable missing from the table, or one the schema does not have, is seen', () => {
    const page = '| `REDIS_URL` | x | y |\n| `NOT_A_SETTING` | x | y |\n```\n| `IN_CODE` | x |\n```';
    expect(documentedVariables(page)).toEqual(['REDIS_URL', 'NOT_A_SETTING']);
  });
});

describe('.env.example', () => {
  const example = exampleVariables(read('.env.example'));

  it('sets every variable of the schema, and nothing else, once each', () => {
    expect(sorted(example.set)).toEqual(sorted(ENV_VARIABLES));
    expect(example.set.length).toBe(new Set(example.set).size);
  });

  it('mentions no other variable in its comments', () => {
    expect(example.mentioned.filter((name) => !ENV_VARIABLES.includes(name))).toEqual([]);
  });

  it('reads NAME= lines and names in comments, not values', () => {
    const file = '# With compose: REDIS_URL=redis://:<REDIS_PASSWORD>@host\nREDIS_URL=redis://x\n# OLD_SETTING=1\nFOO_BAR=a=b';
    expect(exampleVariables(file)).toEqual({ set: ['REDIS_URL', 'FOO_BAR'], mentioned: ['REDIS_URL', 'OLD_SETTING'] });
  });
});
