import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The code says what it does and why, now; how it got there is git's and CHANGELOG.md's.
 * A tracker's issue number in a comment or a name means nothing to the next reader.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FOLDERS = ['src', 'workers', 'bench', 'bin'];
// Spelt in pieces so that a grep for these over the repository finds the code, not this guard.
const HISTORY = [new RegExp(String.raw`\bissue ?#?\d+`, 'i'), new RegExp(`BEFORE${'_'}ISSUE`)];

function filesUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.parentPath !== undefined)
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** `file:line: text` for each line that names an issue. */
function historyLines(file: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, index) => (HISTORY.some((pattern) => pattern.test(line)) ? [`${file}:${index + 1}: ${line.trim()}`] : []));
}

describe('no history in the code', () => {
  it.each(FOLDERS)('%s/ names no issue number, in comments or in names', (folder) => {
    const files = filesUnder(folder);
    expect(files.length).toBeGreaterThan(0);
    expect(files.flatMap((file) => historyLines(file, readFileSync(join(ROOT, file), 'utf8')))).toEqual([]);
  });

  it('sees an issue number in a comment and in a name, and not the word alone', () => {
    expect(historyLines('x.ts', `// GET /metrics (${'issue'} 12): read at each scrape\nconst BEFORE${'_'}ISSUE_10_MB = 962;`)).toHaveLength(
      2,
    );
    expect(historyLines('x.ts', `// ${'Issue'} #7 item 2\n// ${'issue'}13`)).toHaveLength(2);
    expect(historyLines('x.ts', 'for (const issue of parsed.error.issues) {}\n// tokens we did not issue')).toEqual([]);
  });
});
