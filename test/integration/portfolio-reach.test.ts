import { describePortfolioReach } from '../support/portfolio-reach-spec.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/** The portfolio's messaging limit on the shared test Redis (test/support/portfolio-reach-spec.ts). */
describePortfolioReach('the messaging limit of a portfolio (real Redis)', () => {
  const redis = testRedis();
  const prefix = freshPrefix('reach');
  return Promise.resolve({
    redis,
    prefix,
    async cleanup() {
      await removePrefix(redis, prefix);
      await redis.quit();
    },
  });
});
