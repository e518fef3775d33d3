import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';

/** A host name's addresses (dns.lookup with `all`); tests give one that answers what they need. */
export type Resolver = (hostname: string, family: 0 | 4 | 6) => Promise<LookupAddress[]>;

/** Why an address may not be connected to, or undefined when it may (address-policy.ts, or a test's). */
export type AddressPolicy = (address: string) => string | undefined;

export const systemResolver: Resolver = (hostname, family) => dns.lookup(hostname, { all: true, family });

/** A connection refused before it was made: the name resolved to an address the policy refuses. */
export class RefusedAddressError extends Error {
  readonly code = 'EMEDIAADDRESS';
  readonly hostname: string;
  /** The policy's reason, naming the address ("10.0.0.5 is a private address (10.0.0.0/8)"). */
  readonly reason: string;

  constructor(hostname: string, reason: string) {
    super(`${hostname} resolves to a refused address: ${reason}`);
    this.name = 'RefusedAddressError';
    this.hostname = hostname;
    this.reason = reason;
  }
}

/**
 * The `lookup` a socket connects with (undici's `connect.lookup`, passed on to net.connect):
 * it resolves the name, judges every address it got, and hands the socket only addresses that
 * passed. The check and the connection use the same answer, so a name that resolves to a
 * public address when checked and to a private one when connecting (DNS rebinding) cannot get
 * through; one refused address refuses the name, since a client may pick any of them.
 * An IP literal never reaches a lookup: the fetcher judges those itself.
 */
export function guardedLookup(resolve: Resolver, policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    // Two handlers, not then/catch: an exception thrown by the socket's own callback must not call it a second time.
    resolve(hostname, familyOf(options)).then(
      (addresses) => {
        const refusal = refusalOf(hostname, addresses, policy);
        if (refusal !== undefined) return callback(refusal, '');
        // net.connect asks for every address (`all`) when it tries them in turn (autoSelectFamily), else for one.
        if (options.all === true) return callback(null, addresses);
        const [first] = addresses as [LookupAddress];
        callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

function refusalOf(hostname: string, addresses: LookupAddress[], policy: AddressPolicy): NodeJS.ErrnoException | undefined {
  if (addresses.length === 0) return Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
  for (const { address } of addresses) {
    const reason = policy(address);
    if (reason !== undefined) return new RefusedAddressError(hostname, reason);
  }
  return undefined;
}

function familyOf(options: LookupOptions): 0 | 4 | 6 {
  const family = options.family;
  return family === 4 || family === 'IPv4' ? 4 : family === 6 || family === 'IPv6' ? 6 : 0;
}
