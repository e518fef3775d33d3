import { createRequire } from 'node:module';
import type { DestinationStream, Logger } from 'pino';
import { printableJson } from '../text/operator-text.js';

export type { Logger } from 'pino';

/**
 * pino, loaded at the first logger made rather than with this module: a command that never
 * logs (`campaign status`, `list`) does not pay for loading it. pino is CommonJS, so a require
 * gives it synchronously.
 */
function pinoModule(): typeof import('pino') {
  return createRequire(import.meta.url)('pino') as typeof import('pino');
}

/**
 * The root logger. Logs go to stderr so that stdout stays clean for `--json` output.
 * Redaction is a second line of defence: the token is a Secret and never a plain string,
 * and phone numbers are personal data that logs do not need. `destination` replaces stderr
 * (tests read through it what an operator would see).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const { pino } = pinoModule();
  return pino(
    {
      level,
      base: null,
      redact: {
        paths: [
          'accessToken',
          '*.accessToken',
          'token',
          '*.token',
          'appSecret',
          '*.appSecret',
          'authorization',
          '*.authorization',
          'headers.authorization',
          '*.headers.authorization',
          'phone',
          '*.phone',
          'to',
          '*.to',
        ],
        censor: '[redacted]',
      },
      // A logged text from outside (a reason, Meta's error message) may hold C1 or bidi characters, which JSON leaves raw:
      // written as `\u` escapes, the same line to a parser and nothing a terminal tailing the log acts on.
      hooks: { streamWrite: printableJson },
    },
    // Synchronous: logs are sparse at info, and an async destination stalled exit by ~2 s (SonicBoom).
    destination ?? pino.destination({ dest: 2, sync: true }),
  );
}

export function silentLogger(): Logger {
  return pinoModule().pino({ level: 'silent' });
}
