import { startService } from '../../workers/serve.js';
import type { ApiTestService } from './api-service.js';
import { tempDir } from './csv-files.js';
import { capturedLogger, type LogLine } from './log-lines.js';

/**
 * Starts `api` as ApiTestService.start() does (a token of each scope, `serve` on a port of its
 * own), but with a logger whose lines the test reads: what an operator would see in the log.
 * `cleanup` removes the REPORTS_DIR it made; `api.close()` does the rest.
 */
export async function startLoggedApi(
  api: ApiTestService,
  env: Record<string, string> = {},
): Promise<{ lines: LogLine[]; cleanup: () => Promise<void> }> {
  const reports = await tempDir();
  api.reportsDir = reports.dir;
  for (const scope of ['read', 'send', 'admin'] as const) api.tokens[scope] = (await api.store.create(scope, scope)).token.reveal();
  const { logger, lines } = capturedLogger('debug');
  api.service = await startService({ port: 0, host: '127.0.0.1' }, { ...api.baseEnv(), LOG_LEVEL: 'debug', ...env }, logger);
  return { lines, cleanup: reports.cleanup };
}
