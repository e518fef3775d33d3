import { beforeEach, describe, expect, it } from 'vitest';
import type { SendTrouble } from '../../src/campaigns/send/send-trouble.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/logging/logger.js';
import { SendTroubleLog, SUMMARY_EVERY_MS, THROTTLE_LINE_EVERY_MS } from '../../src/logging/send-trouble-log.js';

/**
 * The worker's account of throttles, retries and failed rows (src/logging/send-trouble-log.ts),
 * read as an operator would: through the real logger at the default LOG_LEVEL, on a clock the
 * test moves (nothing sleeps).
 */

const NUMBER = '106540352242922';
const OTHER_NUMBER = '106540352242923';

interface Line {
  level: number;
  msg: string;
  [field: string]: unknown;
}

const WARN = 40;

describe('SendTroubleLog', () => {
  let now: number;
  let lines: Line[];
  let log: SendTroubleLog;

  beforeEach(() => {
    now = 1_000_000;
    lines = [];
    const destination = { write: (line: string) => void lines.push(JSON.parse(line) as Line) };
    // The level an operator gets without setting LOG_LEVEL.
    log = new SendTroubleLog({ logger: createLogger(loadConfig({}).logLevel, destination), now: () => now });
  });

  const throttled = (code = '130429', pauseMs = 1000, phoneNumberId = NUMBER, campaignId = 'c1'): SendTrouble => ({
    kind: 'throttled',
    campaignId,
    phoneNumberId,
    code,
    pauseMs,
  });
  const trouble = (kind: 'failed' | 'unknown' | 'retried' | 'delayed', code: string, campaignId = 'c1'): SendTrouble => ({
    kind,
    campaignId,
    phoneNumberId: NUMBER,
    code,
  });
  const throttleLines = () => lines.filter((l) => l.msg.includes('throttled by Meta'));
  const summaries = () => lines.filter((l) => l.msg.includes('send problems'));

  describe('throttling', () => {
    it('a burst of 50 refused in-flight sends during one pause is one line, naming the code, the number and the pause', () => {
      for (let i = 0; i < 50; i++) {
        log.record(throttled());
        now += 10;
      }
      expect(throttleLines()).toEqual([
        expect.objectContaining({ level: WARN, phoneNumberId: NUMBER, code: '130429', pauseMs: 1000, pauses: 1, campaignId: 'c1' }),
      ]);
      expect(throttleLines()[0]?.msg).toBe(
        `phone number ${NUMBER} throttled by Meta (130429): every send from it paused 1 s; if this repeats, ` +
          `SEND_RATE (or SEND_RATES for this number) is above the throughput Meta allows it`,
      );
    });

    it('pauses that follow each other are logged once a minute per number and code, with how many there were', () => {
      log.record(throttled());
      // A new pause each 2 s (each after the last ended): not a line each.
      for (let t = 2000; t < THROTTLE_LINE_EVERY_MS; t += 2000) {
        now += 2000;
        log.record(throttled());
      }
      expect(throttleLines()).toHaveLength(1);
      now += 2000;
      log.record(throttled());
      expect(throttleLines()).toHaveLength(2);
      expect(throttleLines()[1]).toMatchObject({ pauses: 30 });
      expect(throttleLines()[1]?.msg).toMatch(/30 pauses for 130429 since the last such line/);
    });

    it('a longer pause during a short one is news; a shorter one during a long one is not; each number has its own', () => {
      log.record(throttled('130429', 1000));
      now += 100;
      log.record(throttled('131057', 60_000));
      now += 100;
      log.record(throttled('130429', 1000));
      log.record(throttled('130429', 1000, OTHER_NUMBER));
      expect(throttleLines().map((l) => [l.phoneNumberId, l.code, l.pauseMs])).toEqual([
        [NUMBER, '130429', 1000],
        [NUMBER, '131057', 60_000],
        [OTHER_NUMBER, '130429', 1000],
      ]);
      expect(throttleLines()[1]?.msg).toBe(`phone number ${NUMBER} throttled by Meta (131057): every send from it paused 60 s`);
    });

    it('throttled sends are counted in the campaign’s summary a minute later, not at once (the throttle line said it)', () => {
      log.record(throttled());
      log.record(throttled());
      expect(summaries()).toEqual([]);
      now += SUMMARY_EVERY_MS;
      log.tick();
      expect(summaries()).toEqual([expect.objectContaining({ campaignId: 'c1', throttled: { '130429': 2 } })]);
    });
  });

  describe('summaries per campaign', () => {
    it('the first problem at once; the rest at most once a minute, by kind and code', () => {
      log.record(trouble('failed', '131009'));
      expect(summaries()).toEqual([
        expect.objectContaining({ level: WARN, campaignId: 'c1', phoneNumberId: NUMBER, failed: { '131009': 1 } }),
      ]);
      expect(summaries()[0]?.msg).toBe('campaign c1: send problems: 1 row failed (131009 ×1) (`campaign report c1` has every row)');

      now += 1000;
      for (let i = 0; i < 12; i++) log.record(trouble('failed', '131026'));
      log.record(trouble('failed', '131009'));
      for (let i = 0; i < 3; i++) log.record(trouble('retried', '131000'));
      log.record(trouble('unknown', 'TRANSPORT_TIMEOUT'));
      log.record(trouble('delayed', '131056'));
      now += SUMMARY_EVERY_MS - 1001;
      log.tick();
      expect(summaries()).toHaveLength(1);

      now += 1;
      log.tick();
      expect(summaries()).toHaveLength(2);
      expect(summaries()[1]).toMatchObject({
        campaignId: 'c1',
        seconds: 60,
        failed: { '131026': 12, '131009': 1 },
        unknown: { TRANSPORT_TIMEOUT: 1 },
        retried: { '131000': 3 },
        delayed: { '131056': 1 },
      });
      expect(summaries()[1]?.msg).toBe(
        'campaign c1: send problems in the last 60 s: 13 rows failed (131026 ×12, 131009 ×1); 1 row ' +
          'in doubt (may have been sent; not resent) (TRANSPORT_TIMEOUT ×1); ' +
          '3 sends retried (131000 ×3); 1 send delayed for their recipient (131056 ×1) (`campaign report c1` has every row)',
      );
      // Counted once: the next minute starts empty.
      now += SUMMARY_EVERY_MS;
      log.tick();
      expect(summaries()).toHaveLength(2);
    });

    it('a problem arriving after the minute has passed is logged with it, without waiting for the timer', () => {
      log.record(trouble('failed', '131009'));
      now += 5000;
      log.record(trouble('failed', '131009'));
      now += SUMMARY_EVERY_MS;
      log.record(trouble('retried', '131000'));
      expect(summaries().map((l) => [l.failed, l.retried])).toEqual([
        [{ '131009': 1 }, undefined],
        [{ '131009': 1 }, { '131000': 1 }],
      ]);
    });

    it('each campaign has its own minute: another campaign’s first problem is logged at once', () => {
      log.record(trouble('failed', '131009', 'c1'));
      log.record(trouble('failed', '131009', 'c2'));
      log.record(trouble('failed', '131009', 'c1'));
      expect(summaries().map((l) => l.campaignId)).toEqual(['c1', 'c2']);
    });

    it('a campaign quiet for a minute is forgotten: its next problem is news again, logged at once', () => {
      log.record(trouble('failed', '131009'));
      now += SUMMARY_EVERY_MS;
      log.tick();
      now += 10_000;
      log.record(trouble('failed', '131026'));
      expect(summaries().map((l) => l.failed)).toEqual([{ '131009': 1 }, { '131026': 1 }]);
    });

    it('a completed campaign’s pending counts are logged at once; one with none pending logs nothing', () => {
      log.record(trouble('failed', '131009'));
      now += 1000;
      log.record(trouble('failed', '131009'));
      log.record(trouble('retried', '131000'));
      log.campaignCompleted('c1');
      expect(summaries().map((l) => [l.failed, l.retried])).toEqual([
        [{ '131009': 1 }, undefined],
        [{ '131009': 1 }, { '131000': 1 }],
      ]);
      log.campaignCompleted('c1');
      log.campaignCompleted('never-seen');
      now += SUMMARY_EVERY_MS;
      log.tick();
      expect(summaries()).toHaveLength(2);
    });

    it('stopping logs every campaign’s pending counts, throttles included', () => {
      log.record(trouble('failed', '131009', 'c1'));
      log.record(trouble('failed', '131009', 'c2'));
      now += 1000;
      log.record(trouble('retried', '131000', 'c1'));
      log.record(throttled('130429', 1000, NUMBER, 'c2'));
      log.start();
      log.stop();
      expect(
        summaries()
          .slice(2)
          .map((l) => [l.campaignId, l.retried, l.throttled]),
      ).toEqual([
        ['c1', { '131000': 1 }, undefined],
        ['c2', undefined, { '130429': 1 }],
      ]);
    });

    it('no line per row: 10,000 failures in a minute are two lines', () => {
      for (let i = 0; i < 10_000; i++) {
        log.record(trouble('failed', '131026'));
        now += 5;
      }
      log.tick();
      expect(lines).toHaveLength(1);
      now += 10_000;
      log.tick();
      expect(summaries().map((l) => l.failed)).toEqual([{ '131026': 1 }, { '131026': 9999 }]);
    });
  });
});
