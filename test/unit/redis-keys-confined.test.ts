import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Redis's key names and the ledger's stored layout are known in src/redis alone: everything
 * else goes through the ledger's roles and the readers src/redis implements. This reads every
 * TypeScript file of src/ outside src/redis, and of workers/, and fails on a line (code or
 * comment) that holds one of these:
 *
 * - a key segment of the ledger (`:campaign:`, `:campaigns`, `:campaign-numbers`, `:numbers`,
 *   `:rows`, `:pending`, `:lanes`, `:recent`, `:history`, `:feed:`, `:sent:`, `:wamids`,
 *   `:confirm:`, `:status-seen:`, `:reach`, `:reach-pending:`, `:leases`, `:lease-expiry`,
 *   `:messaging-limit`, `:optouts:`, `:optout-prefs:`, `:service-window:`, `:retention-lock`),
 *   of the metrics (`:metrics`), or of the other stores (`:webhooks`, `:pacer:`, `:dashboard:`);
 * - a key built from the prefix (`${prefix}:`, `${…Prefix}:`) or a cluster hash tag (`:{`);
 * - the key scope helpers `numberScope` and `sharedScope`;
 * - an import of src/redis's key names and layouts: ledger-keys, metric-keys, stored-row,
 *   key-scope (its `type RedisClient` alone is allowed);
 * - a read of a stored hash field by field or record by record (`hscan`, `hgetall`, `hmget`);
 * - a counter field of the campaign hash (`'n:…'`, `` `n:${…}` ``).
 *
 * The check is checked too: each pattern must catch a sample line, and src/redis must hold
 * the ledger's and the metrics' key segments (so the patterns describe the real names).
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const SEGMENTS = [
  ':campaign:',
  ':campaigns',
  ':campaign-numbers',
  ':numbers',
  ':rows',
  ':pending',
  ':lanes',
  ':recent',
  ':history',
  ':feed:',
  ':sent:',
  ':wamids',
  ':confirm:',
  ':status-seen:',
  ':reach',
  ':reach-pending:',
  ':leases',
  ':lease-expiry',
  ':messaging-limit',
  ':optouts:',
  ':optout-prefs:',
  ':service-window:',
  ':retention-lock',
  ':metrics',
  ':webhooks',
  ':pacer:',
  ':dashboard:',
];
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const PATTERNS: { what: string; pattern: RegExp; sample: string }[] = [
  ...SEGMENTS.map((segment) => ({
    what: `the key segment ${segment}`,
    pattern: new RegExp(`${escape(segment)}(?![\\w-])`),
    sample: `const key = \`\${scope}${segment}\${id}\`;`,
  })),
  { what: 'a key built from the prefix', pattern: /\$\{[\w.#\s]*[pP]refix\w*\s*\}:/, sample: 'const lock = `${config.queuePrefix}:lock`;' },
  { what: 'a cluster hash tag', pattern: /:\{/, sample: 'const key = `${prefix}:{${number}}:x`;' },
  { what: 'a key scope helper', pattern: /\b(?:numberScope|sharedScope)\b/, sample: 'const scope = numberScope(prefix, number);' },
  {
    what: 'an import of src/redis key names or layouts',
    pattern: /from '[./]*(?:src\/)?redis\/(?:ledger-keys|metric-keys|stored-row)\.js'/,
    sample: "import { feedKeys } from '../redis/ledger-keys.js';",
  },
  {
    what: 'an import of the key scope other than its RedisClient type',
    pattern: /import (?!type \{ RedisClient \} from)[^;]*redis\/key-scope\.js'/,
    sample: "import { numberScope, type RedisClient } from '../redis/key-scope.js';",
  },
  {
    what: 'a stored hash read field by field or record by record',
    pattern: /\.(?:hscan|hgetall|hmget)\(/,
    sample: 'const [next, flat] = await redis.hscan(rowsKey, cursor);',
  },
  { what: 'a counter field of the campaign hash', pattern: /['"`]n:(?:\$\{|[a-z])/, sample: "const sent = fields['n:sent'];" },
];

/** Every .ts file under `dir`, paths from the repository's root. */
function typescriptFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(ROOT, dir))) {
    const path = join(dir, entry);
    if (statSync(join(ROOT, path)).isDirectory()) found.push(...typescriptFiles(path));
    else if (path.endsWith('.ts')) found.push(path);
  }
  return found;
}

/** `file:line: text (what)` for each line of the files that matches a pattern. */
function findings(files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .forEach((line, index) => {
        for (const { what, pattern } of PATTERNS)
          if (pattern.test(line)) found.push(`${relative('.', file)}:${index + 1}: ${line.trim()} (${what})`);
      });
  }
  return found;
}

const outside = [...typescriptFiles('src').filter((file) => !file.startsWith(join('src', 'redis'))), ...typescriptFiles('workers')];
const inside = typescriptFiles(join('src', 'redis'));

describe('Redis keys and the stored layout stay in src/redis', () => {
  it('reads the files it should: src/ without src/redis, and workers/', () => {
    expect(outside.length).toBeGreaterThan(100);
    expect(outside).toEqual(
      expect.arrayContaining([
        join('src', 'dashboard', 'dashboard.ts'),
        join('src', 'metrics', 'scrape-reader.ts'),
        join('src', 'app', 'campaign-purge.ts'),
        join('workers', 'worker.ts'),
      ]),
    );
    expect(outside.filter((file) => file.startsWith(join('src', 'redis')))).toEqual([]);
  });

  it.each(PATTERNS.map((p) => [p.what, p] as const))('catches %s', (_what, { pattern, sample }) => {
    expect(pattern.test(sample)).toBe(true);
  });

  it('describes the real key names: src/redis holds the ledger’s and the metrics’ segments', () => {
    const text = inside.map((file) => readFileSync(join(ROOT, file), 'utf8')).join('\n');
    for (const segment of [
      ':campaign:',
      ':rows',
      ':pending',
      ':feed:',
      ':sent:',
      ':wamids',
      ':optouts:',
      ':service-window:',
      ':metrics',
      ':campaign-numbers',
    ])
      expect(text, segment).toContain(segment);
    expect(findings(inside).length).toBeGreaterThan(20);
  });

  it('finds none of them outside src/redis', () => {
    expect(findings(outside)).toEqual([]);
  });
});
