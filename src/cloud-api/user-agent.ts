import { packageVersion } from '../files/package-version.js';

/**
 * What every request to the Cloud API says it comes from: `campaign-worker/<version>`. It tells
 * our requests apart from any other's in a log or a capture (the test suite checks every request
 * of ours the sandbox received against Meta's OpenAPI, and only ours).
 */
export function userAgent(): string {
  return `campaign-worker/${packageVersion()}`;
}
