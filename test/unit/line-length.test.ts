import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * No line of the TypeScript sources is wider than Prettier's printWidth. Prettier wraps code but
 * leaves string literals, template literals and comments as they are, so a long message or
 * comment would otherwise slip through `npm run format:check`.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAX_LINE_LENGTH = 140;
/** The folders whose .ts files are held to the limit. */
const CHECKED_FOLDERS = ['src', 'workers', 'bench', 'test'];

/** Every line of `text` longer than `max` characters, as `where:line (length)`. */
function longLines(where: string, text: string, max = MAX_LINE_LENGTH): string[] {
  return text.split('\n').flatMap((line, i) => {
    const length = [...line].length;
    return length > max ? [`${where}:${i + 1} (${length} characters)`] : [];
  });
}

function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : typeScriptFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('line length', () => {
  it(`no line of a .ts file in ${CHECKED_FOLDERS.join(', ')} is over ${MAX_LINE_LENGTH} characters`, () => {
    const files = CHECKED_FOLDERS.flatMap((folder) => typeScriptFiles(join(ROOT, folder)));
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((file) => longLines(relative(ROOT, file), readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('the scanner names each line over the limit by file and line number, and only those', () => {
    const sample = ['short', 'x'.repeat(MAX_LINE_LENGTH), 'y'.repeat(MAX_LINE_LENGTH + 1), '', `// ${'z'.repeat(200)}`].join('\n');
    expect(longLines('src/sample.ts', sample)).toEqual(['src/sample.ts:3 (141 characters)', 'src/sample.ts:5 (203 characters)']);
  });

  it('counts characters, not UTF-16 units or bytes: a line of 140 emoji or arrows fits', () => {
    expect(longLines('a.ts', '😀'.repeat(MAX_LINE_LENGTH))).toEqual([]);
    expect(longLines('a.ts', '→'.repeat(MAX_LINE_LENGTH + 1))).toEqual(['a.ts:1 (141 characters)']);
  });
});
