import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

/**
 * Finds the sleeps in test code that wait longer than a second for time to pass: a test waits
 * on an event, a polled state (waiting.ts), or a moved clock (test-clock.ts, the sandbox's
 * `clock`), never on time. What counts as a sleep:
 *   - `sleep(ms)`, `pause(ms)`, `delay(ms)`: a free function (not a method: `ledger.pause(id)`);
 *   - `setTimeout(resolve, ms)`: a timer whose callback is a bare function, the promisified sleep;
 *   - `setTimeout(ms)`: node:timers/promises' own.
 * A timer whose callback is written out (`setTimeout(() => reject(…), ms)`) is a deadline, not a
 * sleep, and is not counted. The delay is counted when it is a number literal, a constant of the
 * file (`const STEP_MS = 5_000`), or a product of those; a delay computed at run time is not known.
 */

export interface LongSleep {
  /** Line number (1-based). */
  line: number;
  ms: number;
  text: string;
}

export const LONGEST_SLEEP_MS = 1000;

const SLEEP_CALL = /(?<![.\w])(?:sleep|pause|delay)\(\s*([^,()]+?)\s*\)/g;
const TIMER_CALL = /(?<![.\w])setTimeout\(\s*(?:[A-Za-z_$][\w$]*\s*,\s*)?([^,()]+?)\s*\)/g;
const NUMERIC_CONSTANT = /\bconst\s+([A-Za-z_$][\w$]*)\s*(?::\s*number\s*)?=\s*([\w$.\s*]+?)\s*;/g;

/** The file's constants that are plain numbers (or products of numbers and earlier constants). */
function numericConstants(source: string): Map<string, number> {
  const constants = new Map<string, number>();
  for (const match of source.matchAll(NUMERIC_CONSTANT)) {
    const value = evaluate(match[2] ?? '', constants);
    if (value !== undefined) constants.set(match[1] ?? '', value);
  }
  return constants;
}

/** The value of `expression` if it is number literals and known constants multiplied (`5 * SECOND_MS`); else undefined. */
function evaluate(expression: string, constants: ReadonlyMap<string, number>): number | undefined {
  let product = 1;
  for (const term of expression.split('*').map((t) => t.trim())) {
    const value = /^\d[\d_]*(\.\d+)?$/.test(term) ? Number(term.replaceAll('_', '')) : constants.get(term);
    if (value === undefined) return undefined;
    product *= value;
  }
  return product;
}

/** The sleeps in `source` longer than `limitMs`. */
export function findLongSleeps(source: string, limitMs = LONGEST_SLEEP_MS): LongSleep[] {
  const constants = numericConstants(source);
  const found: LongSleep[] = [];
  for (const pattern of [SLEEP_CALL, TIMER_CALL]) {
    for (const match of source.matchAll(pattern)) {
      const ms = evaluate(match[1] ?? '', constants);
      if (ms === undefined || ms <= limitMs) continue;
      const line = source.slice(0, match.index).split('\n').length;
      found.push({ line, ms, text: match[0] });
    }
  }
  return found.sort((a, b) => a.line - b.line);
}

/** Every `.ts` file under `dir`, recursively. */
async function typeScriptFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return typeScriptFiles(path);
      return Promise.resolve(entry.name.endsWith('.ts') ? [path] : []);
    }),
  );
  return nested.flat();
}

/** `file:line: text (ms)` for every long sleep in the `.ts` files under `dirs`, paths relative to `root`. */
export async function longSleepsUnder(root: string, dirs: readonly string[], limitMs = LONGEST_SLEEP_MS): Promise<string[]> {
  const files = (await Promise.all(dirs.map((dir) => typeScriptFiles(join(root, dir))))).flat().sort();
  const lines: string[] = [];
  for (const file of files) {
    for (const sleep of findLongSleeps(await readFile(file, 'utf8'), limitMs)) {
      lines.push(`${relative(root, file)}:${sleep.line}: ${sleep.text} (${sleep.ms} ms)`);
    }
  }
  return lines;
}
