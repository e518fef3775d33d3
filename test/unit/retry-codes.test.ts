import { describe, expect, it } from 'vitest';
import { parseRetryCodes } from '../../src/campaigns/control/retry-codes.js';
import { isAppError } from '../../src/errors/app-error.js';

/** `campaign retry --codes`: the codes a failed row can carry, nothing else. */
describe('parseRetryCodes', () => {
  it.each([
    ['131026', ['131026']],
    [' 131026 , 131000,131026 ', ['131026', '131000']],
    ['worker_gave_up,HTTP_502', ['WORKER_GAVE_UP', 'HTTP_502']],
    ['TRANSPORT_CONNECT,JOB_PAYLOAD_INVALID,130429', ['TRANSPORT_CONNECT', 'JOB_PAYLOAD_INVALID', '130429']],
  ])('%j → %j', (value, codes) => {
    expect(parseRetryCodes(value)).toEqual(codes);
  });

  it.each([
    ['abc', /^--codes "ABC" is not an error code: codes are Meta's numeric error codes, e\.g\. 131026/],
    ['131026,13102x', /^--codes "13102X" is not an error code/],
    ['HTTP_5', /^--codes "HTTP_5" is not an error code/],
    [',', /^--codes "," names no code/],
    ['', /^--codes "" names no code/],
    [' , ,', /names no code/],
  ])('%j → OPTION_INVALID', (value, said) => {
    let error: unknown;
    try {
      parseRetryCodes(value);
    } catch (e) {
      error = e;
    }
    expect(isAppError(error, 'OPTION_INVALID')).toBe(true);
    expect((error as Error).message).toMatch(said);
  });
});
