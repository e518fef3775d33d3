import type { Stats } from 'node:fs';
import { AppError } from '../errors/app-error.js';

/**
 * What a path is when it is not a regular file, in words; undefined for a regular file.
 * Reading anything else goes wrong quietly: a named pipe blocks until some other program
 * writes to it, /dev/zero never ends, a directory or socket cannot be read as text.
 */
export function notRegularFile(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isCharacterDevice()) return 'a character device (such as /dev/zero or a terminal)';
  if (stats.isBlockDevice()) return 'a block device (a disk)';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * CSV_UNREADABLE for a path that is not a regular file. Callers check `stat` BEFORE opening
 * the path (opening a FIFO for reading blocks until a writer appears), and `fstat` after
 * opening it, in case the path was replaced in between.
 */
export function refuseIfNotRegular(path: string, stats: Stats): void {
  const what = notRegularFile(stats);
  if (what === undefined) return;
  const fix = stats.isDirectory() ? 'give the path of the .csv file itself' : 'save the data to a .csv file and give its path';
  throw new AppError('CSV_UNREADABLE', `${path} is ${what}, not a regular file; ${fix}. Nothing was created.`);
}
