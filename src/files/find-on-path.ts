import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Whether `path` is a file this process may execute. */
export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The first executable named `name` in the directories of `pathList` (a PATH value), as a
 * shell would find it, or undefined. The caller passes PATH: what is searched stays visible.
 */
export function findOnPath(name: string, pathList: string, isExecutable: (path: string) => boolean = isExecutableFile): string | undefined {
  for (const dir of pathList.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}
