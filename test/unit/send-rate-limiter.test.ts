import { describe, expect, it } from 'vitest';
import { limiterFor } from '../../src/queue/send-rate-limiter.js';

describe('limiterFor', () => {
  it('lets exactly SEND_RATE jobs leave the queue per second (the pacer shapes them)', () => {
    for (const rate of [1, 20, 80, 1000]) expect(limiterFor(rate)).toEqual({ max: rate, duration: 1000 });
  });
});
