import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { FIXTURE_TEMPLATES } from './sandbox-fixtures.js';

/** The sandbox's per-request cost: fastify would build a child logger for every request it reads. */
describe('sandbox request logger', () => {
  let sandbox: Sandbox | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  it('answers requests without building a logger for each', async () => {
    const logger = pino({ level: 'warn' }, new Writable({ write: (_chunk, _encoding, done) => done() }));
    sandbox = await startSandbox({ templates: FIXTURE_TEMPLATES, accessToken: 'token', logger });
    const child = vi.spyOn(logger, 'child');
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        fetch(`${sandbox!.url}/v25.0/106540352242922/messages`, {
          method: 'POST',
          headers: { authorization: 'Bearer token', 'content-type': 'application/json' },
          body: '{}',
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400, 400]);
    expect(child).not.toHaveBeenCalled();
  });
});
