import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { LUA_DIR, loadLuaCommand, loadLuaInclude, loadLuaScript, luaCode } from '../../src/redis/lua-scripts.js';

/**
 * The Lua of src/redis/lua as files: each script documents its KEYS and ARGV in a header
 * (BullMQ's style), its `--- @include` lines resolve, every include is used, the loader
 * leaves no include line behind and puts each include in once, and the keys a script
 * documents are the keys its command is defined with (the loader reads them from there).
 */

const luaDir = fileURLToPath(LUA_DIR);
const redisDir = fileURLToPath(new URL('..', LUA_DIR));
const luaFiles = (dir: string): string[] =>
  readdirSync(dir)
    .filter((file) => file.endsWith('.lua'))
    .map((file) => file.slice(0, -'.lua'.length))
    .sort();
const scripts = luaFiles(luaDir);
/** Scripts of the folders beside `includes` (webhooks/, clicks/, …): they may include the same fragments. */
const nestedSources = (): string[] =>
  readdirSync(luaDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== 'includes')
    .flatMap((dir) => luaFiles(join(luaDir, dir.name)).map((name) => readFileSync(join(luaDir, dir.name, `${name}.lua`), 'utf8')));
const includes = luaFiles(join(luaDir, 'includes'));
const scriptSource = (name: string): string => readFileSync(join(luaDir, `${name}.lua`), 'utf8');
const includeSource = (name: string): string => readFileSync(join(luaDir, 'includes', `${name}.lua`), 'utf8');

const INCLUDE = /^--- @include "([^"]*)"\s*$/gm;
const includedBy = (source: string): string[] => [...source.matchAll(INCLUDE)].map((m) => m[1] ?? '');

/** The header: a `--[[ … ]]` comment the file starts with. */
function headerOf(source: string): string | undefined {
  return /^(?:#!lua[^\n]*\n)?--\[\[\n([\s\S]*?)\n\]\]\n/.exec(source)?.[1];
}

/** The code: comments (the header, `--[[ ]]` blocks, `--` lines and tails) left out. */
function codeOf(source: string): string {
  return source
    .replace(/--\[\[[\s\S]*?\]\]/g, '')
    .split('\n')
    .map((line) => line.replace(/--(?!\[\[).*$/, ''))
    .join('\n');
}

/** How many KEYS (or ARGV) the header documents: `KEYS[1] …` … `KEYS[n] …` lines, or `KEYS: none` (0). */
function documented(header: string, kind: 'KEYS' | 'ARGV'): number {
  const indices = [...header.matchAll(new RegExp(`^\\s*${kind}\\[(\\d+)\\]\\s+\\S`, 'gm'))].map((m) => Number(m[1]));
  const none = new RegExp(`^\\s*${kind}: none\\s*$`, 'm').test(header);
  if (none && indices.length > 0) throw new Error(`documents ${kind} and says it takes none`);
  if (none) return 0;
  if (indices.length === 0) throw new Error(`documents no ${kind} (list ${kind}[1] … or write "${kind}: none")`);
  // Each entry once, in order, none skipped.
  expect(indices, `${kind} entries`).toEqual(indices.map((_, i) => i + 1));
  return indices.length;
}

/** The highest literal KEYS[n] (or ARGV[n]) the code reads. */
function highestUsed(code: string, kind: 'KEYS' | 'ARGV'): number {
  return Math.max(0, ...[...code.matchAll(new RegExp(`\\b${kind}\\[(\\d+)\\]`, 'g'))].map((m) => Number(m[1])));
}

/** Names an include defines at its top level: `local function name(` and `local NAME =`. */
function definedBy(source: string): string[] {
  return [...codeOf(source).matchAll(/^local (?:function )?(\w+)\s*[(=]/gm)].map((m) => m[1] ?? '');
}

/** The includes a file pulls in, directly or through its includes. */
function closure(source: string, seen = new Set<string>()): Set<string> {
  for (const name of includedBy(source)) {
    if (seen.has(name) || !includes.includes(name)) continue;
    seen.add(name);
    closure(includeSource(name), seen);
  }
  return seen;
}

describe('the Lua files', () => {
  it('are there: the ledger scripts and their includes', () => {
    expect(scripts).toEqual(expect.arrayContaining(['claim', 'feed', 'record-ingested', 'settle', 'forget-wamids']));
    expect(includes).toEqual(expect.arrayContaining(['backlog', 'complete-if-done', 'park']));
  });

  it.each(scripts)('%s.lua starts with a header documenting its KEYS, ARGV and answer', (name) => {
    const header = headerOf(scriptSource(name));
    expect(header, 'a --[[ … ]] header as the first lines').toBeDefined();
    expect(header).toMatch(/^\s*Input:\s*$/m);
    expect(header).toMatch(/^\s*Output:\s*$/m);
    documented(header ?? '', 'KEYS');
    documented(header ?? '', 'ARGV');
  });

  it.each(scripts)('%s.lua declares its flags (#!lua): Redis refuses a writing script before it starts when memory is full', (name) => {
    const shebang = /^#!lua(?: flags=([a-z-]+(?:,[a-z-]+)*))?\n/.exec(scriptSource(name));
    expect(shebang, 'a first line #!lua, or #!lua flags=no-writes for a script that only reads').not.toBeNull();
    const flags = shebang?.[1]?.split(',') ?? [];
    // allow-oom would let a script start with memory full and stop half-way at its first refused write.
    expect(flags).not.toContain('allow-oom');
    const writeCommands = [
      ...['SET', 'HSET', 'HINCRBY', 'HINCRBYFLOAT', 'HDEL', 'HSETNX', 'ZADD', 'ZREM', 'ZREMRANGEBYSCORE', 'ZINCRBY', 'DEL', 'UNLINK'],
      ...['XADD', 'SADD', 'SREM', 'LPUSH', 'RPUSH', 'LTRIM', 'INCR', 'INCRBY', 'EXPIRE', 'PEXPIRE', 'PEXPIREAT'],
    ].join('|');
    const writes = new RegExp(`redis\\.call\\('(${writeCommands})'`);
    expect(flags.includes('no-writes')).toBe(!writes.test(loadLuaScript(name)));
  });

  it.each(scripts)('%s.lua reads no KEYS or ARGV its header leaves out', (name) => {
    const source = scriptSource(name);
    const header = headerOf(source) ?? '';
    const code = codeOf(source);
    expect(highestUsed(code, 'KEYS')).toBeLessThanOrEqual(documented(header, 'KEYS'));
    expect(highestUsed(code, 'ARGV')).toBeLessThanOrEqual(documented(header, 'ARGV'));
  });

  it.each(includes)('includes/%s.lua starts with a header saying what it defines', (name) => {
    const source = includeSource(name);
    // "Defines: …" to the end of the header (it may wrap).
    const defines = /^\s*Defines:([\s\S]*)$/m.exec(headerOf(source) ?? '')?.[1];
    expect(defines, 'a header ending in "Defines: …"').toBeDefined();
    for (const defined of definedBy(source)) expect(defines).toMatch(new RegExp(`\\b${defined}\\b`));
  });

  it('include lines are all well formed and name an existing file', () => {
    const files = [
      ...scripts.map((name) => [`${name}.lua`, scriptSource(name)]),
      ...includes.map((name) => [`includes/${name}.lua`, includeSource(name)]),
    ];
    for (const [file, source] of files) {
      for (const line of (source ?? '').split('\n').filter((l) => l.includes('@include'))) {
        expect(line, `${file}: ${line}`).toMatch(/^--- @include "[a-z0-9-]+"$/);
      }
      for (const name of includedBy(source ?? '')) expect(includes, `${file} includes "${name}"`).toContain(name);
    }
  });

  it('every include resolves, and the loader leaves no @include line', async () => {
    // Imported here, not above: a script that does not load then fails this test, not the file.
    await import('../../src/redis/ledger/ledger-scripts.js');
    for (const name of scripts) expect(loadLuaScript(name), `${name}.lua`).not.toMatch(/@include/);
    for (const name of includes) expect(loadLuaInclude(name), `includes/${name}.lua`).not.toMatch(/@include/);
  });

  it('every include is used by some script', () => {
    const used = new Set<string>();
    for (const source of [...scripts.map(scriptSource), ...nestedSources()]) for (const include of closure(source)) used.add(include);
    expect(includes.filter((name) => !used.has(name))).toEqual([]);
  });

  it('a file that calls what an include defines includes it (directly or through another include)', () => {
    const definers = new Map<string, string>();
    for (const name of includes) for (const defined of definedBy(includeSource(name))) definers.set(defined, name);
    const files = [
      ...scripts.map((name) => [`${name}.lua`, scriptSource(name), '']),
      ...includes.map((name) => [`includes/${name}.lua`, includeSource(name), name]),
    ];
    for (const [file = '', source = '', self] of files) {
      const code = codeOf(source);
      const reachable = closure(source);
      for (const [defined, include] of definers) {
        if (include === self || definedBy(source).includes(defined)) continue;
        if (new RegExp(`\\b${defined}\\b`).test(code))
          expect(reachable.has(include), `${file} uses ${defined} from includes/${include}.lua`).toBe(true);
      }
    }
  });

  it('the loader puts each include in a script once, before the code that uses it', () => {
    for (const name of scripts) {
      const loaded = loadLuaScript(name);
      for (const include of closure(scriptSource(name))) {
        const defined = definedBy(includeSource(include));
        for (const fn of defined) {
          const definition = new RegExp(`^local (?:function )?${fn}\\s*[(=]`, 'gm');
          expect(loaded.match(definition)?.length, `${name}.lua defines ${fn} (includes/${include}.lua) once`).toBe(1);
          // The name's first appearance in the code is its definition.
          const code = codeOf(loaded);
          const before = code.slice(0, code.search(new RegExp(`\\b${fn}\\b`)));
          expect(
            /^local (function )?$/.test(before.slice(before.lastIndexOf('\n') + 1)),
            `${name}.lua: ${fn} defined before its first use`,
          ).toBe(true);
        }
      }
    }
  });
});

describe('the commands defined from the Lua files', () => {
  it('every script is a ledger command, and every command runs a script of src/redis/lua', async () => {
    const { LEDGER_SCRIPTS } = await import('../../src/redis/ledger/ledger-scripts.js');
    expect(Object.values(LEDGER_SCRIPTS).sort()).toEqual(scripts);
  });

  it.each(scripts)('%s.lua is defined with as many keys as its header documents, none fewer than its code reads', (name) => {
    const source = scriptSource(name);
    const { numberOfKeys, lua } = loadLuaCommand(name);
    expect(lua).toBe(luaCode(loadLuaScript(name)));
    expect(numberOfKeys).toBe(documented(headerOf(source) ?? '', 'KEYS'));
    expect(highestUsed(codeOf(source), 'KEYS')).toBeLessThanOrEqual(numberOfKeys);
  });

  it.each(scripts)('%s.lua goes to Redis without its comments, every line of code where it was', (name) => {
    const full = loadLuaScript(name).split('\n');
    const code = loadLuaCommand(name).lua.split('\n');
    expect(code).toHaveLength(full.length);
    code.forEach((line, i) => {
      if (line !== '') expect(line).toBe(full[i]);
      expect(line).not.toMatch(/^\s*--/);
    });
    expect(code.join('\n').length).toBeLessThan(full.join('\n').length * 0.8);
  });

  it('empties block comments and comment lines; keeps a comment after code and the line after a one-line block comment', () => {
    const lua = ['#!lua', '--[[', '  header', ']]', 'local a = 1 -- why', '--[[ one line ]]', 'a = a + 1', '  -- alone', 'return a'];
    expect(luaCode(lua.join('\n')).split('\n')).toEqual(['#!lua', '', '', '', 'local a = 1 -- why', '', 'a = a + 1', '', 'return a']);
  });

  it('no command of src/redis gives its number of keys by hand: the loader reads it', () => {
    for (const file of readdirSync(redisDir).filter((f) => f.endsWith('.ts'))) {
      expect(readFileSync(join(redisDir, file), 'utf8'), file).not.toMatch(/numberOfKeys:\s*\d/);
    }
  });

  it('settle.lua walks its rows with the numbers its callers use', async () => {
    const { SETTLE_ROW_ARGS, SETTLE_SHARED_ARGS } = await import('../../src/redis/ledger/ledger-scripts.js');
    expect(loadLuaScript('settle')).toContain(`for i = ${SETTLE_SHARED_ARGS + 1}, #ARGV, ${SETTLE_ROW_ARGS} do`);
  });
});

describe('the loader', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lua-scripts-'));
  mkdirSync(join(dir, 'includes'));
  const url = pathToFileURL(`${dir}/`);
  const write = (file: string, text: string): void => writeFileSync(join(dir, file), text);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('puts an include in once, at its first line, an include’s includes before it', () => {
    write('includes/base.lua', 'local function base() return 1 end\n');
    write('includes/top.lua', '--- @include "base"\nlocal function top() return base() end\n');
    write('both.lua', '--- @include "top"\n--- @include "base"\n--- @include "top"\nreturn top()\n');
    expect(loadLuaScript('both', url)).toBe('local function base() return 1 end\nlocal function top() return base() end\nreturn top()\n');
  });

  it('names the file for a missing include', () => {
    write('broken.lua', '-- a script\n--- @include "nowhere"\nreturn 1\n');
    expect(() => loadLuaScript('broken', url)).toThrow(/includes\/nowhere\.lua: no such file/);
    expect(() => loadLuaScript('broken', url)).toThrow(/broken\.lua:2/);
    expect(() => loadLuaScript('absent', url)).toThrow(/Lua script .*absent\.lua: no such file/);
  });

  it('reads a command’s number of keys from its file name (name-N.lua), else from its header', () => {
    write('two-keys.lua', '--[[\n  Input:\n    KEYS[1] a\n    KEYS[2] b\n    ARGV: none\n  Output: 1\n]]\nreturn 1\n');
    expect(loadLuaCommand('two-keys', url).numberOfKeys).toBe(2);
    write('none.lua', '--[[\n  KEYS: none\n  ARGV: none\n]]\nreturn 1\n');
    expect(loadLuaCommand('none', url).numberOfKeys).toBe(0);
    write('named-3.lua', 'return KEYS[3]\n');
    expect(loadLuaCommand('named-3', url)).toEqual({ lua: 'return KEYS[3]\n', numberOfKeys: 3 });
  });

  it('refuses a command whose keys neither its name nor its header says, or says out of order', () => {
    write('bare.lua', 'return 1\n');
    expect(() => loadLuaCommand('bare', url)).toThrow(/bare\.lua: no --\[\[ … \]\] header to read its KEYS from/);
    write('silent.lua', '--[[\n  ARGV: none\n]]\nreturn 1\n');
    expect(() => loadLuaCommand('silent', url)).toThrow(/silent\.lua: its header lists no KEYS\[n\]/);
    write('skips.lua', '--[[\n  KEYS[1] a\n  KEYS[3] c\n]]\nreturn 1\n');
    expect(() => loadLuaCommand('skips', url)).toThrow(/skips\.lua: its header lists KEYS\[3\] where KEYS\[2\] belongs/);
  });

  it('refuses a malformed include line and an include that includes itself', () => {
    write('typo.lua', "--- @include 'base'\nreturn 1\n");
    expect(() => loadLuaScript('typo', url)).toThrow(/typo\.lua:1: malformed include line/);
    write('includes/loop-a.lua', '--- @include "loop-b"\n');
    write('includes/loop-b.lua', '--- @include "loop-a"\n');
    write('loop.lua', '--- @include "loop-a"\nreturn 1\n');
    expect(() => loadLuaScript('loop', url)).toThrow(/includes itself \(loop-a → loop-b → loop-a\)/);
  });
});
