import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runSend } from '../../src/cli/run/send.js';
import { phoneNumber } from '../support/csv-files.js';
import { startSendRig, type SendRig } from '../support/send-rig.js';

/**
 * A campaign sent at the API version the operator configures, through `campaign send`'s own
 * code (runSend), the real worker and the sandbox: v26.0, Meta's current version, and the
 * default (v25.0) each complete with every row sent once.
 */
const ROWS = 8;

describe('a campaign at a configured API version', () => {
  let rig: SendRig | undefined;

  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  async function campaignCompletes(env: Record<string, string>): Promise<void> {
    const r = (rig = await startSendRig('api-version', env));
    const file = join(r.dir, 'rows.csv');
    const rows = Array.from({ length: ROWS }, (_, i) => `${phoneNumber(i + 1)},Name${i + 1},A-${i + 1}`);
    await writeFile(file, ['phone,first_name,order_id', ...rows].join('\n') + '\n');
    const { id } = await runSend(r.context, r.options(file));
    await r.startWorker();
    await expect.poll(async () => (await r.context.ledger.status(id))?.state, { timeout: 60_000, interval: 50 }).toBe('completed');
    expect(await r.context.ledger.status(id)).toMatchObject({ counts: { sent: ROWS, failed: 0, rejected: 0, total: ROWS } });
    expect([...r.acceptedPerRecipient().values()]).toEqual(Array(ROWS).fill(1));
  }

  it('WHATSAPP_API_VERSION=v26.0: the campaign completes, every row sent once', async () => {
    await campaignCompletes({ WHATSAPP_API_VERSION: 'v26.0' });
    expect(rig?.context.config.api.version).toBe('v26.0');
  });

  it('the default version (v25.0): the campaign completes, every row sent once', async () => {
    await campaignCompletes({});
    expect(rig?.context.config.api.version).toBe('v25.0');
  });
});
