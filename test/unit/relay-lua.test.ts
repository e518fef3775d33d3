import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LUA_DIR, loadLuaCommand, readLuaHeader } from '../../src/redis/lua-scripts.js';

/**
 * The relay's scripts and the intake's (src/redis/lua/relay, webhooks) keep the header the
 * loader reads (src/redis/lua/README.md): every KEYS and ARGV the code reads is documented, in
 * order, and the command is defined with the keys the header lists.
 */
const FOLDERS = ['relay', 'webhooks'];
const scripts = FOLDERS.flatMap((folder) =>
  readdirSync(fileURLToPath(new URL(`${folder}/`, LUA_DIR)))
    .filter((file) => file.endsWith('.lua'))
    .map((file) => ({ folder, name: file.slice(0, -'.lua'.length) })),
);

const highest = (code: string, kind: 'KEYS' | 'ARGV'): number =>
  Math.max(0, ...[...code.matchAll(new RegExp(`\\b${kind}\\[(\\d+)\\]`, 'g'))].map((m) => Number(m[1])));

describe.each(scripts)('$folder/$name.lua', ({ folder, name }) => {
  const dir = new URL(`${folder}/`, LUA_DIR);
  const source = readFileSync(new URL(`${name}.lua`, dir), 'utf8');
  const code = source.slice(source.indexOf(']]') + 2);

  it('documents every key and argument its code reads, in order', () => {
    const header = readLuaHeader(source, name);
    expect(header.keys.length).toBe(highest(code, 'KEYS'));
    expect(header.argv.length).toBe(highest(code, 'ARGV'));
    expect(header.keys.map((key) => key.name)).toEqual([...new Set(header.keys.map((key) => key.name))]);
  });

  it('is defined with the keys its header lists', () => {
    // Named from the Lua folder, as the code loads them: an include comes from src/redis/lua/includes.
    expect(loadLuaCommand(`${folder}/${name}`, LUA_DIR).numberOfKeys).toBe(readLuaHeader(source, name).keys.length);
  });
});
