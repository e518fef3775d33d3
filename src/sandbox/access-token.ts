import { noTokenError, tokenError, type GraphErrorReply } from './graph-error.js';

/**
 * The one bearer token the sandbox accepts. Tokens it has been told to replace are
 * remembered, so a client still using one gets Meta's "session has expired" (subcode 463)
 * rather than "invalid token" (467): the same code 190 either way, but the log reads true.
 */
export class AccessTokens {
  private readonly expired = new Set<string>();

  constructor(private current: string) {}

  replace(token: string): void {
    if (token === this.current) return;
    this.expired.add(this.current);
    this.expired.delete(token);
    this.current = token;
  }

  /**
   * Meta takes the token from `Authorization: Bearer …` or the `access_token` query
   * parameter. A plain comparison is enough: this is a local simulator, not a secret store.
   * No credentials at all is 104; a header or parameter that holds no valid token is 190.
   */
  check(authorization: string | undefined, queryToken: string | undefined): GraphErrorReply | undefined {
    if (authorization === undefined && queryToken === undefined) return noTokenError();
    const token = bearerOf(authorization) ?? queryToken;
    if (token === this.current) return undefined;
    return tokenError(token !== undefined && this.expired.has(token) ? 463 : 467);
  }
}

function bearerOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
