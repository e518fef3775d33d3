import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A temp folder removed by the returned cleanup. */
export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'cw-test-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** The n-th of a family of distinct, valid (libphonenumber) German mobile numbers. */
export function phoneNumber(n: number): string {
  return `+49151${String(10_000_000 + n).padStart(8, '0')}`;
}

/** A campaign CSV with `count` valid rows: phone,first_name,order_id. */
export async function writeCampaignCsv(path: string, count: number, extraLines: string[] = []): Promise<void> {
  const lines = ['phone,first_name,order_id'];
  for (let i = 1; i <= count; i++) lines.push(`${phoneNumber(i)},Name${i},A-${i}`);
  lines.push(...extraLines);
  await writeFile(path, lines.join('\n') + '\n');
}
