import { createWriteStream, existsSync, mkdirSync, renameSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Generated inputs live in bench/out/ (git-ignored) and are reused across invocations. */
export const OUT_DIR = fileURLToPath(new URL('../out/', import.meta.url));
const DATA_DIR = join(OUT_DIR, 'data');

const NAMES = ['Ana', 'Bruno', 'Chiara', 'Dmitri', 'Emeka', 'Fatima', 'Gustavo', 'Hana', 'Ivo', 'Jana'];
const CITIES = ['Lisbon', 'Berlin', 'Lagos', 'Sao Paulo', 'Osaka'];

/**
 * A CSV shaped like samples/recipients.csv (phone,first_name,order_id,city) with `rows`
 * valid rows: every phone is a distinct German mobile (+49151 and 8 digits, which
 * libphonenumber accepts), so the product queues every row and both sides of the
 * comparison enqueue the same number of jobs. Deterministic, so runs see the same bytes.
 */
export async function ensureCsv(rows: number): Promise<string> {
  const path = join(DATA_DIR, `recipients-${rows}.csv`);
  if (existsSync(path)) return path;
  mkdirSync(DATA_DIR, { recursive: true });
  const partial = `${path}.partial`;
  const out = createWriteStream(partial);
  out.write('phone,first_name,order_id,city\n');
  for (let i = 1; i <= rows; i++) {
    const line =
      `+49151${String(10_000_000 + i)},${NAMES[i % NAMES.length] ?? 'Ana'},` +
      `A-${100_000 + i},${CITIES[i % CITIES.length] ?? 'Lisbon'}\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  // Renamed only when complete, so an interrupted generation is never reused.
  renameSync(partial, path);
  return path;
}
