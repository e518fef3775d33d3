import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * This run's capture directory (SANDBOX_REQUEST_LOG, named by vitest.config.ts), created empty
 * before the integration files start, so that a run of the `captured` project alone finds
 * nothing and says why. Runs without the integration or long project create none. Past runs'
 * directories are removed after a day (a run whose check failed keeps its own for a look).
 */
export const CAPTURE_PREFIX = 'campaign-capture-';
const KEPT_MS = 24 * 60 * 60 * 1000;

export default function setup(project: TestProject): void {
  const dir = project.config.env.SANDBOX_REQUEST_LOG;
  if (dir === undefined || dir === '') throw new Error('vitest.config.ts gives the integration and long projects no SANDBOX_REQUEST_LOG');
  sweep();
  mkdirSync(dir, { recursive: true });
}

function sweep(): void {
  const root = tmpdir();
  for (const name of readdirSync(root)) {
    if (!name.startsWith(CAPTURE_PREFIX)) continue;
    const path = join(root, name);
    try {
      if (Date.now() - statSync(path).mtimeMs > KEPT_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Being removed by another run, or not ours to remove: left alone.
    }
  }
}
