import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/logging/logger.js';

/** A log line as pino writes it (JSON), parsed. */
export type LogLine = Record<string, unknown> & { level?: number; msg?: string };

/** The JSON lines of a process's output (pino's), parsed; other lines (a command's own words) are skipped. */
export function parseLogLines(text: string): LogLine[] {
  const lines: LogLine[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(line) as LogLine);
    } catch {
      // A line that only looks like JSON (a word of a command's own output) is not a log line.
    }
  }
  return lines;
}

/** The service's logger as `createLogger` makes it, writing into `lines` instead of stderr. */
export function capturedLogger(level = 'info'): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...parseLogLines(chunk.toString()));
      done();
    },
  });
  return { logger: createLogger(level, sink), lines };
}

/**
 * Lines at warn (40) or above that carry a stack (`err.stack`, or `stack`): what an operator
 * reads as a bug. An expected condition (Redis not up yet, an empty inbox) must not log one.
 */
export function linesWithStacks(lines: readonly LogLine[]): LogLine[] {
  return lines.filter((line) => {
    if (typeof line.level !== 'number' || line.level < 40) return false;
    const err = line.err as { stack?: unknown } | undefined;
    return typeof line.stack === 'string' || typeof err?.stack === 'string';
  });
}
