import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AcceptedMessage } from '../../src/sandbox/index.js';
import { FaultHarness } from '../support/fault-harness.js';
import { runCli } from '../support/cli-process.js';
import { busiestWindow } from '../support/pacer-audit.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';

/**
 * One `campaign worker` process serves every phone number that has
 * campaigns, picks up a number whose first campaign comes after it started, and runs each
 * number at its own rate (SEND_RATES over SEND_RATE); `--phone-number-id A,B` limits it.
 */
const ROWS = 120;
const NUMBERS = ['106540352242922', '106540352242923', '106540352242924'] as const;
const [A, B, C] = NUMBERS;
const DEFAULT_RATE = 40;
const RATES = { [A]: 60, [B]: 20, [C]: DEFAULT_RATE } as const;

describe('one worker process, every phone number', () => {
  let rig: FaultHarness;

  beforeAll(async () => {
    rig = await FaultHarness.start({
      label: 'multinum',
      rows: ROWS,
      sendRate: DEFAULT_RATE,
      sandboxMps: 0,
      phoneNumberIds: NUMBERS,
      workerEnv: { SEND_RATES: `${A}:${RATES[A]},${B}:${RATES[B]}` },
    });
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
  });

  it('sends the campaigns of three numbers, one of them new after the start, each once and within its own rate', async () => {
    const first = (await rig.send({ WHATSAPP_PHONE_NUMBER_ID: A })).id;
    // No WHATSAPP_PHONE_NUMBER_ID and no --phone-number-id: the worker serves whatever has campaigns.
    const worker = await rig.startWorker({ WHATSAPP_PHONE_NUMBER_ID: '' });
    expect(worker.output).toMatch(new RegExp(`"phoneNumberId":"${A}","rate":${RATES[A]}[^\\n]*serving phone number`));
    // Numbers B and C get their first campaign while the worker runs: it must find them itself.
    await rig.waitForAccepted(1, 30_000);
    const second = (await rig.send({ WHATSAPP_PHONE_NUMBER_ID: B })).id;
    const third = (await rig.send({ WHATSAPP_PHONE_NUMBER_ID: C })).id;

    for (const id of [first, second, third]) {
      expect(await rig.waitForCompletion(id, 60_000)).toMatchObject({ state: 'completed', total: ROWS, sent: ROWS });
    }
    expect(worker.output).toMatch(new RegExp(`"phoneNumberId":"${B}","rate":${RATES[B]}[^\\n]*serving phone number`));
    expect(worker.output).toMatch(new RegExp(`"phoneNumberId":"${C}","rate":${DEFAULT_RATE}[^\\n]*serving phone number`));
    expect(rig.workers).toHaveLength(1);
    for (const number of NUMBERS) {
      const sent = rig.accepted().filter((m) => m.phoneNumberId === number);
      expect(new Set(sent.map((m) => m.waId)).size, `number ${number}: recipients`).toBe(ROWS);
      expect(sent, `number ${number}: messages`).toHaveLength(ROWS);
      // Not the ceiling (that is checked on Redis's clock in send-pacer.test.ts, and measured at
      // the receiver by `npm run bench`): a bound wide enough for any arrival jitter that still
      // tells a number's own rate from the default one (B: 20 vs 40) or from none (C).
      expect(busiestSecond(sent), `number ${number}: busiest second`).toBeLessThanOrEqual(RATES[number] * 1.5);
    }
  }, 120_000);

  it('--phone-number-id limits a worker to the numbers it names; an ID that is not digits is refused', async () => {
    // The first test's worker serves every number: it goes, so only the limited ones below send.
    for (const worker of rig.workers) expect(await worker.stop()).toBe(0);
    const before = rig.accepted().length;
    // The same recipients again, on purpose: --allow-repeat lifts the duplicate window.
    const again = async (number: string) =>
      (
        JSON.parse(
          (
            await rig.cli(
              [
                'send',
                rig.csvFile,
                '--template',
                'order_update',
                '--language',
                'en_US',
                '--params',
                'first_name,order_id',
                '--templates',
                SAMPLE_TEMPLATES,
                '--allow-repeat',
                '--json',
              ],
              { WHATSAPP_PHONE_NUMBER_ID: number },
            )
          ).stdout,
        ) as { id: string }
      ).id;
    const onA = await again(A);
    const onB = await again(B);
    const onlyA = await rig.startWorker({}, ['--phone-number-id', A]);
    await rig.waitForCompletion(onA, 60_000);
    // B's campaign waits for a worker that serves B: nothing of it was sent.
    expect(
      rig
        .accepted()
        .slice(before)
        .filter((m) => m.phoneNumberId === B),
    ).toHaveLength(0);
    expect(await rig.status(onB)).toMatchObject({ state: 'running', sent: 0 });
    expect(onlyA.output).not.toMatch(new RegExp(`"phoneNumberId":"${B}"[^\\n]*serving phone number`));

    await rig.startWorker({}, ['--phone-number-id', `${B},${C}`]);
    expect(await rig.waitForCompletion(onB, 60_000)).toMatchObject({ state: 'completed', sent: ROWS });
    expect(
      rig
        .accepted()
        .slice(before)
        .filter((m) => m.phoneNumberId === B),
    ).toHaveLength(ROWS);

    const bad = await runCli(['worker', '--phone-number-id', `${A},12ab`], rig.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('OPTION_INVALID');
    expect(bad.stderr).toContain('--phone-number-id "12ab"');
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  }, 120_000);
});

function busiestSecond(messages: readonly AcceptedMessage[]): number {
  return busiestWindow(messages.map((m) => m.receivedAt).sort((a, b) => a - b));
}
