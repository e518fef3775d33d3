import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkCaptures, countsTable, findingText, readCaptureDir } from '../support/capture-check.js';

/**
 * "Every request the product sends validates against Meta's OpenAPI, and every answer and
 * webhook the sandbox produces does too", checked on everything the integration files did:
 * their sandboxes (and those of the CLI processes they ran) captured each exchange and webhook
 * in this run's directory (SANDBOX_REQUEST_LOG, set by vitest.config.ts). This project runs
 * after the others; what is checked, and how, is in test/support/capture-check.ts, and what
 * our checks add to the spec in test/support/openapi-overlay.ts.
 */
const dir = process.env.SANDBOX_REQUEST_LOG;

describe("the run's captures against Meta's OpenAPI", () => {
  // A full run captures a few hundred thousand lines (the 100,000-row upload alone sends 100,000 messages).
  it('every request of ours, every answer and every webhook of the sandbox is valid', { timeout: 600_000 }, () => {
    const files = dir !== undefined && existsSync(dir) ? readCaptureDir(dir) : [];
    if (files.length === 0) {
      throw new Error(
        `No captures in ${dir ?? '(SANDBOX_REQUEST_LOG is not set)'}: the integration or long project must run first, in the same run ` +
          '(npm test runs both; or npx vitest run --project integration --project captured).',
      );
    }
    const report = checkCaptures(files);
    console.log(
      `${countsTable(report)}\n${report.lines} lines in ${files.length} files (${dir})` +
        (report.cutShort > 0 ? `; ${report.cutShort} last line(s) left half-written by a process that was ended` : ''),
    );
    const invalid = [...report.counts.values()].reduce((sum, count) => sum + count.invalid, 0);
    const listed = report.findings.map(findingText).join('\n');
    expect(invalid, `${invalid} invalid (the first of each operation listed; captures in ${dir}):\n${listed}`).toBe(0);
    expect(report.findings.map(findingText)).toEqual([]);
  });
});
