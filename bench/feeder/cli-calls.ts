import { startChild } from '../support/children.js';
import { CAMPAIGN_BIN, ROOT, productEnv } from '../support/product.js';
import { median } from '../support/stats.js';
import { STARTUP_SAMPLES } from './targets.js';
import type { ControlCall } from './types.js';

/**
 * Preloaded into every CLI call the controls part times (`node --import <this> bin/campaign.js …`):
 * notes when the process opens its first TCP connection (to Redis: everything before it is
 * start-up) and prints both times, in ms since the process started, on stderr as it exits.
 * Read inside the process, "first Redis connection → exit" is free of the start-up's noise.
 */
const TIMING_PRELOAD = `data:text/javascript,${encodeURIComponent(
  [
    'import net from "node:net";',
    'let connectMs = null;',
    'const connect = net.Socket.prototype.connect;',
    'net.Socket.prototype.connect = function (...args) {',
    '  const options = Array.isArray(args[0]) ? args[0][0] : args[0];',
    '  if (connectMs === null && ((typeof options === "object" && options !== null && options.port !== ' +
      'undefined) || typeof options === "number")) connectMs = performance.now();',
    '  return connect.apply(this, args);',
    '};',
    'process.on("exit", () => process.stderr.write(`bench-timing ${JSON.stringify({ connectMs, exitMs: performance.now() })}\\n`));',
  ].join('\n'),
)}`;

/** Runs a CLI command to completion on `prefix`; seconds spawn → exit, its stdout, Date.now() at exit. */
export async function runCli(args: string[], prefix: string, okCodes: readonly number[] = [0]) {
  const child = startChild(
    `campaign ${args[0] ?? ''}`,
    process.execPath,
    ['--import', TIMING_PRELOAD, CAMPAIGN_BIN, ...args],
    productEnv(prefix),
    ROOT,
  );
  let inProcessSeconds = Number.NaN;
  child.onLine((line, stream) => {
    if (stream !== 'stderr' || !line.startsWith('bench-timing ')) return;
    const timing = JSON.parse(line.slice('bench-timing '.length)) as { connectMs: number | null; exitMs: number };
    if (timing.connectMs !== null) inProcessSeconds = (timing.exitMs - timing.connectMs) / 1000;
  });
  const exit = await child.exited;
  const returnedAt = Date.now() - (performance.now() - exit.at);
  if (exit.code === null || !okCodes.includes(exit.code)) {
    throw new Error(`campaign ${args.join(' ')} failed (code ${String(exit.code)}, signal ${String(exit.signal)})\n${child.tail()}`);
  }
  return { seconds: (exit.at - child.startedAt) / 1000, output: child.stdout().trim(), returnedAt, inProcessSeconds };
}

/**
 * One control call, with the CLI's start-up measured just before it in the same conditions:
 * `campaign --help` and `campaign list` on the `empty` prefix.
 */
export async function timeControl(empty: string, what: string, args: string[], prefix: string, expect: RegExp): Promise<ControlCall> {
  const help: number[] = [];
  const list: number[] = [];
  const listInProcess: number[] = [];
  for (let i = 0; i < STARTUP_SAMPLES; i++) {
    help.push((await runCli(['--help'], empty)).seconds);
    const listed = await runCli(['list'], empty);
    if (!/No campaigns/.test(listed.output)) throw new Error(`campaign list on the empty prefix ${empty} printed: ${listed.output}`);
    list.push(listed.seconds);
    listInProcess.push(listed.inProcessSeconds);
  }
  const call = await runCli(args, prefix);
  if (!expect.test(call.output)) throw new Error(`campaign ${args.join(' ')}: unexpected output: ${call.output}`);
  const helpSeconds = median(help);
  const listSeconds = median(list);
  return {
    what,
    callSeconds: call.seconds,
    helpSeconds,
    listSeconds,
    ownSeconds: call.seconds - listSeconds,
    ownBeyondHelpSeconds: call.seconds - helpSeconds,
    inProcessSeconds: call.inProcessSeconds,
    listInProcessSeconds: median(listInProcess),
    output: call.output,
    returnedAt: call.returnedAt,
  };
}
