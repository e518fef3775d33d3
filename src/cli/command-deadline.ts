/**
 * A one-shot command (`status`, `report`, `list`, the controls…) ends when its work is done,
 * and never later than its deadline: a command that sleeps with nothing left to wait for (a
 * connection that never reports ready, a handle left open) must not hang a script that runs it.
 * Long-running commands (`send`, `worker`, `serve`, `status --watch`…) have none.
 */

import type { Writable } from 'node:stream';

/** The commands that do one thing and end. */
const ONE_SHOT = new Set([
  'status',
  'report',
  'list',
  'pause',
  'resume',
  'cancel',
  'reschedule',
  'retry',
  'purge',
  'optouts',
  'consent',
  'tokens',
  'hooks',
  'templates',
  'costs',
]);

/** The exit code of a command stopped by its deadline (as timeout(1) uses). */
export const EXIT_TIMEOUT = 124;
/** Default deadline; CLI_TIMEOUT_SECONDS changes it (a report of millions of rows may need more). */
const DEFAULT_SECONDS = 300;
/** Once the command's work is done, this long for the process to end on its own before it is ended. */
const LINGER_MS = 1000;

/** The one-shot command the words name (not `status --watch`), or undefined. */
export function oneShotCommand(args: readonly string[]): string | undefined {
  const command = args.find((word) => !word.startsWith('-'));
  if (command === undefined || !ONE_SHOT.has(command)) return undefined;
  if (command === 'status' && args.includes('--watch')) return undefined;
  return command;
}

/**
 * Arms the deadline: past it, the command says what it was still waiting for and exits 124.
 * The timer does not keep the process alive itself (unref): it fires only if something else does.
 */
export function armDeadline(command: string, env: NodeJS.ProcessEnv = process.env): void {
  const seconds = deadlineSeconds(env.CLI_TIMEOUT_SECONDS);
  setTimeout(() => {
    process.stderr.write(
      `campaign: COMMAND_TIMEOUT: \`campaign ${command}\` did not finish within ${seconds} s; it was still waiting for ` +
        `${waitingFor()}. Check that Redis answers at REDIS_URL; CLI_TIMEOUT_SECONDS sets this limit.\n`,
    );
    process.exit(EXIT_TIMEOUT);
  }, seconds * 1000).unref();
}

/**
 * The command's work is done: once what it printed has been taken by the reader of stdout and
 * stderr, whatever is still open (a connection's last reply, a timer of a library) gets a
 * moment to close, then the process ends with the command's exit code. Output to a pipe is
 * written as the reader takes it: exiting before then would cut it short and still exit 0, so
 * a reader that stalls is waited for (until the deadline, which then names it).
 */
export function endWhenDone(streams: readonly Writable[] = [process.stdout, process.stderr]): void {
  void Promise.all(streams.map(flushed)).then(() => setTimeout(() => process.exit(process.exitCode ?? 0), LINGER_MS).unref());
}

/** Resolves once everything written to `stream` so far has left the process (or cannot: the reader went away). */
function flushed(stream: Writable): Promise<void> {
  if (stream.writableLength === 0 || stream.writableEnded || stream.destroyed) return Promise.resolve();
  // An empty write completes after every write queued before it.
  return new Promise((resolve) => stream.write('', () => resolve()));
}

function deadlineSeconds(value: string | undefined): number {
  const seconds = Number(value);
  return value !== undefined && Number.isFinite(seconds) && seconds > 0 ? seconds : DEFAULT_SECONDS;
}

/** What keeps the process alive, in words (Node's names for its open handles and requests). */
function waitingFor(): string {
  const words: Record<string, string> = {
    TCPSocketWrap: 'a network connection (Redis or the Cloud API)',
    TCPWRAP: 'a network connection (Redis or the Cloud API)',
    GetAddrInfoReqWrap: 'a DNS lookup',
    FSReqCallback: 'a file operation',
    FileHandle: 'an open file',
    PipeWrap: 'a pipe',
    TTYWrap: 'the terminal',
    Timeout: 'a timer',
  };
  const unread = process.stdout.writableLength + process.stderr.writableLength;
  const output = unread > 0 ? [`its output to be read (${unread} bytes not yet taken from stdout or stderr)`] : [];
  const open = process
    .getActiveResourcesInfo()
    .map((resource) => words[resource] ?? resource)
    .filter((what, index, all) => all.indexOf(what) === index);
  const all = [...output, ...open];
  return all.length === 0 ? 'nothing that Node can name' : all.join(', ');
}
