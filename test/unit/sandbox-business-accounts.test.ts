import { describe, expect, it } from 'vitest';
import { DEFAULT_BUSINESS_ACCOUNT_IDS, checkBusinessAccountIds, unknownBusinessAccountError } from '../../src/sandbox/business-accounts.js';
import { toGraphError } from '../../src/sandbox/graph-error.js';
import { SANDBOX_WABA_ID } from '../../src/sandbox/webhook-payloads.js';

describe('sandbox business accounts', () => {
  it('by default has the WABA its webhooks name', () => {
    expect(DEFAULT_BUSINESS_ACCOUNT_IDS).toEqual([SANDBOX_WABA_ID]);
    expect(checkBusinessAccountIds(['102290129340398']).has('102290129340398')).toBe(true);
  });

  it('refuses an empty list and an ID that is not all digits', () => {
    expect(() => checkBusinessAccountIds([])).toThrow(RangeError);
    expect(() => checkBusinessAccountIds(['waba-1'])).toThrow(/"waba-1" is not a WhatsApp Business Account ID/);
  });

  it("words an unknown WABA as Graph's object error: 400 / 100, subcode 33, GraphMethodException, no error_data", () => {
    const reply = toGraphError(unknownBusinessAccountError('999'));
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({ code: 100, error_subcode: 33, type: 'GraphMethodException' });
    expect(reply.body.error.message).toMatch(/^Unsupported get request\. Object with ID '999' does not exist, cannot be loaded/);
    expect(reply.body.error.error_data).toBeUndefined();
  });
});
