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

const PLANS = ['basic', 'plus', 'pro'];
const SIGNUP_DAYS = 730;

/** The phone of row `i` of the audience's file (as ensureCsv numbers its rows). */
export const audiencePhone = (i: number): string => `+49151${String(10_000_000 + i)}`;

/**
 * A CSV of `rows` distinct valid German mobiles with five attributes, ensureCsv's columns plus
 * a plan and a signup date: first_name and order_id are the template's parameters, so
 * `campaign send` queues every row of the very file an audience imports (bench/audience.ts).
 */
export async function ensureAudienceCsv(rows: number): Promise<string> {
  const path = join(DATA_DIR, `audience-${rows}.csv`);
  if (existsSync(path)) return path;
  mkdirSync(DATA_DIR, { recursive: true });
  const days = Array.from({ length: SIGNUP_DAYS }, (_, d) => new Date(Date.UTC(2024, 0, 1) + d * 86_400_000).toISOString().slice(0, 10));
  const partial = `${path}.partial`;
  const out = createWriteStream(partial);
  out.write('phone,first_name,order_id,city,plan,signup_date\n');
  for (let i = 1; i <= rows; i++) {
    const line =
      `${audiencePhone(i)},${NAMES[i % NAMES.length] ?? 'Ana'},A-${100_000 + i},${CITIES[i % CITIES.length] ?? 'Lisbon'},` +
      `${PLANS[i % PLANS.length] ?? 'basic'},${days[i % SIGNUP_DAYS] ?? '2024-01-01'}\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  // Renamed only when complete, so an interrupted generation is never reused.
  renameSync(partial, path);
  return path;
}
