import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory of campaign-worker's package.json: the nearest one above this file, which
 * runs from src/files/ in a checkout and from dist/src/files/ once built. Files the package
 * ships (samples/) are found from here, wherever the command is run from.
 */
export function packageRoot(): string {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

/** `samples/templates.json` of the package: the sandbox's templates when none are named. */
export function sampleTemplatesFile(): string {
  return join(packageRoot(), 'samples', 'templates.json');
}
