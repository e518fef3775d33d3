import { describeMarketingCaps } from '../support/marketing-cap-spec.js';
import { testRedis } from '../support/redis.js';

/** Meta's marketing cap (131049) on the ledger (test/support/marketing-cap-spec.ts), on the shared test Redis. */
describeMarketingCaps("Meta's marketing cap on the ledger (real Redis)", testRedis);
