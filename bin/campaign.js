#!/usr/bin/env node
// The `campaign` command: the CLI bundled into one file by `npm run build` (run by `npm install`
// through `prepare`), compiled with V8's code cache. Each command keeps its own cache of the
// code it ran, written beside the bundle after its first run, so later runs skip compiling it
// (docs/performance.md, "Start-up against a bare `node`"). A checkout whose build is missing
// says how to make it. Help is printed from texts the build took from the same definitions,
// without the bundle (scripts/help-texts.mjs).
// CommonJS (bin/package.json): an ES module entry costs Node's ESM loader at every start.
'use strict';
const { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { Module, createRequire } = require('node:module');
const { dirname, join } = require('node:path');
const { Script, constants } = require('node:vm');

const bundle = join(__dirname, '..', 'dist', 'cli', 'campaign.cjs');
if (!existsSync(bundle)) {
  console.error('campaign: BUILD_MISSING: dist/ is not built; run `npm run build` (npm install runs it) and try again');
  process.exit(1);
}

/**
 * What the CLI would print for these words when they only ask for help (`--help`, `send -h`,
 * `help send`), from dist/cli/help.json; undefined for any other words, and whenever the CLI
 * could print something else: stdout a terminal of another width than the texts' (commander
 * wraps at the terminal's width), or a `.env` it would refuse (that error comes first).
 */
function helpText(args) {
  const last = args[args.length - 1];
  if (last !== '--help' && last !== '-h' && args[0] !== 'help') return undefined;
  // A word with a space could pass for two; the table's words have none.
  if (!args.every((word) => /^-{0,2}[a-z][a-z0-9-]*$/.test(word))) return undefined;
  let table;
  try {
    table = JSON.parse(readFileSync(join(dirname(bundle), 'help.json'), 'utf8'));
  } catch {
    return undefined;
  }
  const key = args.join(' ');
  if (!Object.hasOwn(table.argv, key)) return undefined;
  // Commander's own choice of width: the terminal's, else 80.
  const width = (process.stdout.isTTY ? process.stdout.columns : undefined) ?? 80;
  if (width !== table.width) return undefined;
  if (existsSync('.env')) {
    try {
      process.loadEnvFile('.env');
    } catch {
      return undefined;
    }
  }
  return table.texts[table.argv[key]];
}

const help = helpText(process.argv.slice(2));
if (help === undefined) runBundle();
else process.stdout.write(help);

/** The CLI itself, compiled with this command's code cache. */
function runBundle() {
  // The first word that is not an option names the command. `--help`, no command or a word that
  // names none load every command's definition, and share one cache.
  const word = process.argv.slice(2).find((arg) => !arg.startsWith('-'));
  const commands = JSON.parse(readFileSync(`${dirname(bundle)}/commands.json`, 'utf8'));
  const cacheFile = `${dirname(bundle)}/cache/${commands.includes(word) ? word : 'help'}.bin`;
  const cachedData = existsSync(cacheFile) ? readFileSync(cacheFile) : undefined;

  const script = new Script(Module.wrap(readFileSync(bundle, 'utf8')), {
    filename: bundle,
    cachedData,
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (cachedData === undefined || script.cachedDataRejected === true) {
    // At exit the code this command ran is compiled, so the cache holds it. An install that
    // cannot be written to (a read-only or another user's directory) just runs uncached.
    process.once('exit', () => {
      try {
        mkdirSync(dirname(cacheFile), { recursive: true });
        const partial = `${cacheFile}.${process.pid}`;
        writeFileSync(partial, script.createCachedData());
        renameSync(partial, cacheFile);
      } catch {
        // Only a slower start next time.
      }
    });
  }
  const bundled = { exports: {} };
  script.runInThisContext()(bundled.exports, createRequire(bundle), bundled, bundle, dirname(bundle));
}
