/**
 * How long a client waits before it retries a request Redis could not serve (Redis is retried at least once a second):
 * the API's problems and the pages' error pages both say it in `Retry-After`.
 */
export const REDIS_RETRY_AFTER_SECONDS = 5;
