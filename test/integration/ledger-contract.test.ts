import { describeLedgerContract } from '../support/ledger-contract.js';
import { testRedis } from '../support/redis.js';

/** The ledger's specification (test/support/ledger-contract.ts) on the shared test Redis. */
describeLedgerContract('RedisLedger on a real Redis', testRedis);
