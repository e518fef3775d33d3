import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RedisClient } from './key-scope.js';

/**
 * Loads the Lua scripts of src/redis/lua, one script per file, as BullMQ keeps its commands.
 * A line `--- @include "<name>"` stands for src/redis/lua/includes/<name>.lua, resolved here,
 * at load time: an include may include others, and each file goes into a script at most
 * once (at its first include; an include already in is not repeated), so a fragment that
 * defines `local function`s comes before the code that calls it. A command goes to Redis with
 * its comment lines left empty (see src/redis/lua/README.md).
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

/** A script ready to define as a command (ioredis's defineCommand): its text and how many of its arguments are keys. */
export interface LuaCommand {
  lua: string;
  numberOfKeys: number;
}

/**
 * The script `name` as a command, its number of keys from its file name (`name-2.lua`, as
 * BullMQ names its commands) or else its header's `KEYS[n]` lines (`KEYS: none`: 0).
 */
export function loadLuaCommand(name: string, dir: URL = LUA_DIR): LuaCommand {
  const lua = loadLuaScript(name, dir);
  const named = /-(\d+)$/.exec(name)?.[1];
  const file = fileURLToPath(new URL(`${name}.lua`, dir));
  return { lua: luaCode(lua), numberOfKeys: named === undefined ? readLuaHeader(lua, file).keys.length : Number(named) };
}

/** A block comment that starts a line (`--[[`), up to the line that closes it, and any line that is only a comment. */
const BLOCK_COMMENT_START = /^\s*--\[\[/;
const LINE_COMMENT = /^\s*--/;

/**
 * The script's code: its comment lines (headers, includes' headers, a comment on a line of its
 * own) left empty, so Lua's line numbers in an error still match the loaded text. Redis keeps
 * every script it has run for as long as it runs, on each master: their comments were about
 * half their bytes.
 */
export function luaCode(lua: string): string {
  let inBlock = false;
  return lua
    .split('\n')
    .map((line) => {
      if (inBlock) {
        if (line.includes(']]')) inBlock = false;
        return '';
      }
      if (BLOCK_COMMENT_START.test(line)) {
        inBlock = !line.slice(line.indexOf('--[[') + 4).includes(']]');
        return '';
      }
      return LINE_COMMENT.test(line) ? '' : line;
    })
    .join('\n');
}

/**
 * Defines each command (name → how to load its script) on the connection, once: the first
 * ledger made on it defines them all. A script is read at its command's first use, so a
 * command that calls one script (`campaign pause`) does not read and hash the others at
 * start-up. Called directly on the connection only: a pipeline made before that first use
 * would not have the command.
 */
export function defineLuaCommandsLazily(redis: RedisClient, commands: Readonly<Record<string, () => LuaCommand>>): void {
  for (const [command, load] of Object.entries(commands)) {
    if (command in redis) continue;
    Object.defineProperty(redis, command, {
      configurable: true,
      enumerable: false,
      // The connection itself, not `this`: a spy may read the getter detached from it.
      get(): unknown {
        delete (redis as unknown as Record<string, unknown>)[command];
        redis.defineCommand(command, load());
        return (redis as unknown as Record<string, unknown>)[command];
      },
    });
  }
}

/** A script's header as data (src/redis/lua/README.md, "Header"): its KEYS and ARGV by name, in order. */
export interface LuaHeader {
  /** Each `KEYS[n]` line: its name, and the key it documents (`<scope>:campaign:<id>`, alternatives joined by " or "). */
  keys: { name: string; key: string }[];
  /** Each `ARGV[n]` line: its name (the first word after `ARGV[n]`), and whether its text starts with "optional". */
  argv: { name: string; optional: boolean }[];
  /** The arguments repeated per item: from which ARGV, and how many per item (`then <n> per …, from ARGV[<m>] on:`). */
  repeated: { from: number; width: number } | undefined;
}

/**
 * Reads a script's header. Throws, naming the file, when it has none or its KEYS are not
 * `KEYS[1]` … `KEYS[n]` in order (or `KEYS: none`): the loader takes the number of keys from
 * them. The ARGV lines are read as they are; test/unit/ledger-wiring.test.ts holds the
 * ledger's to its commands.
 */
export function readLuaHeader(source: string, file: string): LuaHeader {
  const header = /^(?:#!lua[^\n]*\n)?--\[\[\n([\s\S]*?)\n\]\]/.exec(source)?.[1];
  if (header === undefined) throw new Error(`${file}: no --[[ … ]] header to read its KEYS from`);
  const keyLines = [...header.matchAll(/^[ \t]*KEYS\[(\d+)\][ \t]+(\S+)(?:[ \t]+\S+[ \t]+(.*))?$/gm)];
  if (/^\s*KEYS: none\s*$/m.test(header)) {
    if (keyLines.length > 0) throw new Error(`${file}: its header lists KEYS and says "KEYS: none"`);
  } else if (keyLines.length === 0) {
    throw new Error(`${file}: its header lists no KEYS[n] (write "KEYS: none" for a script without keys)`);
  }
  keyLines.forEach((m, i) => {
    if (Number(m[1]) !== i + 1) {
      throw new Error(`${file}: its header lists KEYS[${m[1]}] where KEYS[${i + 1}] belongs (one line per key, in order)`);
    }
  });
  const repeat = /^[ \t]*then (\d+) per [^\n]*\bfrom ARGV\[(\d+)\] on:[ \t]*$/m.exec(header);
  return {
    keys: keyLines.map((m) => ({ name: m[2] ?? '', key: (m[3] ?? '').replace(/ \(.*$/, '').trim() })),
    argv: [...header.matchAll(/^[ \t]*ARGV\[\d+\][ \t]+([^\s:]+):?[ \t]*(.*)$/gm)].map((m) => ({
      name: m[1] ?? '',
      optional: /^optional\b/.test(m[2] ?? ''),
    })),
    repeated: repeat === null ? undefined : { width: Number(repeat[1]), from: Number(repeat[2]) },
  };
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
        throw new Error(
          `${where(file, index)}: malformed include line ${JSON.stringify(line)}; write --- @include "<name>" for includes/<name>.lua`,
        );
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
