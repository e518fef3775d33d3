import { isAbsolute, relative, resolve, sep } from 'node:path';
import { boundedBadValue } from './bad-value.js';

/**
 * A `--header-file-column` cell as the file it names: a path relative to the CSV file's folder
 * that stays inside it. The cells are the file's, not the operator's: a path that climbs out
 * (`../../etc/passwd`) or starts at the root must not make the service read, and upload to
 * Meta, a file the operator never meant to send.
 */
export function headerFileOf(cell: string, base: string | undefined): { ok: true; path: string } | { ok: false; problem: string } {
  if (base === undefined) return { ok: false, problem: 'local files are read only for a campaign sent from a CSV file on this machine' };
  if (cell === '') return { ok: false, problem: 'the cell is empty; give the path of the header file, relative to the CSV file' };
  if (isAbsolute(cell) || /^[a-z]:/i.test(cell)) {
    return { ok: false, problem: `"${boundedBadValue(cell)}" is absolute; give a path relative to the CSV file's folder` };
  }
  const path = resolve(base, cell);
  const inside = relative(base, path);
  if (inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
    return {
      ok: false,
      problem: `"${boundedBadValue(cell)}" is outside the CSV file's folder; keep header files beside the CSV or below it`,
    };
  }
  return { ok: true, path };
}
