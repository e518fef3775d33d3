import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * `mkdir -p`, one level at a time. Node 20's `mkdir(path, { recursive: true })` never returns
 * under some pseudo-filesystems (a REPORTS_DIR of /proc/x spun forever here); a plain mkdir
 * there fails at once with ENOENT, which the caller reports.
 */
export async function makeDirectory(path: string): Promise<void> {
  const target = resolve(path);
  const missing: string[] = [];
  for (let dir = target; ; dir = dirname(dir)) {
    try {
      await mkdir(dir);
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') break;
      if (code !== 'ENOENT' || dirname(dir) === dir) throw error;
      missing.push(dir);
    }
  }
  // Create the missing levels from the top down; a parent we could not create throws here.
  for (const dir of missing.reverse()) {
    try {
      await mkdir(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
