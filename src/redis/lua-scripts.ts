import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Loads the Lua scripts of src/redis/lua, one script per file, as BullMQ keeps its commands.
 * A line `--- @include "<name>"` stands for src/redis/lua/includes/<name>.lua, resolved here,
 * at load time: an include may include others, and each file goes into a script at most
 * once (at its first include; an include already in is not repeated), so a fragment that
 * defines `local function`s comes before the code that calls it. The scripts go to Redis
 * as loaded, header comments and all (see src/redis/lua/README.md).
 */

/** The folder of the scripts; includes live in its `includes` folder. */
export const LUA_DIR = new URL('./lua/', import.meta.url);

const INCLUDE_LINE = /^--- @include "([a-z0-9][a-z0-9-]*)"\s*$/;
/** Any line that looks meant as an include, so a misspelt one fails instead of staying a comment. */
const INCLUDE_LIKE = /^\s*--.*@include\b/;

/**
 * The script `name` (src/redis/lua/<name>.lua, or `<name>.lua` in `dir`) with its includes
 * resolved. Throws, naming the file, when the script, an include or an include's line is
 * wrong: a missing file, a malformed `@include` line, an include that includes itself.
 */
export function loadLuaScript(name: string, dir: URL = LUA_DIR): string {
  const url = new URL(`${name}.lua`, dir);
  return resolveIncludes(readLua(url, undefined), url, new URL('includes/', dir), new Set(), []);
}

/** The fragment src/redis/lua/includes/<name>.lua (or in `dir`/includes) with its own includes resolved. */
export function loadLuaInclude(name: string, dir: URL = LUA_DIR): string {
  const includesDir = new URL('includes/', dir);
  return resolveIncludes(`--- @include "${name}"`, new URL(`${name}.lua`, includesDir), includesDir, new Set(), []);
}

function resolveIncludes(source: string, file: URL, includesDir: URL, included: Set<string>, chain: string[]): string {
  const out: string[] = [];
  source.split('\n').forEach((line, index) => {
    const match = INCLUDE_LINE.exec(line);
    if (match === null) {
      if (INCLUDE_LIKE.test(line)) {
        throw new Error(`${where(file, index)}: malformed include line ${JSON.stringify(line)}; write --- @include "<name>" for includes/<name>.lua`);
      }
      out.push(line);
      return;
    }
    const name = match[1] ?? '';
    if (chain.includes(name)) throw new Error(`${where(file, index)}: include "${name}" includes itself (${[...chain, name].join(' → ')})`);
    if (included.has(name)) return;
    included.add(name);
    const url = new URL(`${name}.lua`, includesDir);
    const text = readLua(url, where(file, index));
    out.push(resolveIncludes(text.replace(/\n$/, ''), url, includesDir, included, [...chain, name]));
  });
  return out.join('\n');
}

function readLua(url: URL, includedFrom: string | undefined): string {
  try {
    return readFileSync(url, 'utf8');
  } catch (error) {
    const what = includedFrom === undefined ? 'Lua script' : `Lua include (included at ${includedFrom})`;
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(error);
    throw new Error(`${what} ${fileURLToPath(url)}: ${reason}`, { cause: error });
  }
}

function where(file: URL, index: number): string {
  return `${fileURLToPath(file)}:${index + 1}`;
}
