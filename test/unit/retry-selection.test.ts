import { describe, expect, it } from 'vitest';
import { retrySelection } from '../../src/campaigns/control/retry-selection.js';

/** Which rows a retry chooses, the one rule behind `campaign retry` and POST /campaigns/{id}/retry. */
describe('retrySelection', () => {
  it('chooses every failed row when asked for nothing', () => {
    expect(retrySelection({})).toStrictEqual({ codes: [], failed: true, unknown: false });
  });

  it('chooses the failed rows with the codes', () => {
    expect(retrySelection({ codes: ['131000'] })).toStrictEqual({ codes: ['131000'], failed: true, unknown: false });
  });

  it('chooses only the unknown rows when asked for them alone', () => {
    expect(retrySelection({ unknown: true })).toStrictEqual({ codes: [], failed: false, unknown: true });
  });

  it('chooses the unknown rows and the failed rows with the codes when asked for both', () => {
    expect(retrySelection({ codes: ['131000'], unknown: true })).toStrictEqual({ codes: ['131000'], failed: true, unknown: true });
  });
});
