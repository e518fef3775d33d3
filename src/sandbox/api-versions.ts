import type { GraphErrorReply } from './graph-error.js';
import { newTraceId } from './graph-error.js';

/** A Graph API version: served from its release until its end (exclusive); `until` undefined while Meta names no end. */
export interface ApiVersion {
  name: string;
  /** 24 for v24.0: what version-dependent answers compare. */
  major: number;
  released: number;
  until: number | undefined;
}

const day = (iso: string): number => Date.parse(`${iso}T00:00:00Z`);

function version(major: number, released: string, until: string | undefined): ApiVersion {
  return { name: `v${major}.0`, major, released: day(released), until: until === undefined ? undefined : day(until) };
}

/**
 * The Graph API versions the sandbox knows, oldest first, with Meta's dates (reference
 * cloud-api-2026.md §6). v22.0 is not in the reference's table: its dates are derived from
 * Meta's rule that a version stops two years after the next one is released, applied to the
 * table's own dates (v21.0 ends 2027-01-21, so v22.0 came out 2025-01-21; v23.0 came out
 * 2025-05-29, so v22.0 ends 2027-05-29). They are not from the reference.
 */
export const API_VERSIONS: readonly ApiVersion[] = [
  version(20, '2024-05-21', '2026-09-24'),
  version(21, '2024-10-02', '2027-01-21'),
  version(22, '2025-01-21', '2027-05-29'),
  version(23, '2025-05-29', '2027-10-08'),
  version(24, '2025-10-08', '2028-02-18'),
  version(25, '2026-02-18', '2028-07-29'),
  version(26, '2026-07-29', undefined),
];

const isAvailable = (v: ApiVersion, now: number): boolean => v.released <= now && (v.until === undefined || now < v.until);

/**
 * The version a call to `asked` is answered as at `now`: itself while it is available; once
 * it has expired, the oldest version still available, as Graph upgrades calls to expired
 * versions. Undefined, Graph's unknown path (2500), for a version Meta never had or has not
 * released yet.
 */
export function servedVersion(asked: string, now: number): ApiVersion | undefined {
  const known = API_VERSIONS.find((v) => v.name === asked);
  if (known === undefined || known.released > now) return undefined;
  if (isAvailable(known, now)) return known;
  return API_VERSIONS.find((v) => v.major > known.major && isAvailable(v, now));
}

/** Graph's answer to a path it cannot route (also the not-found handler's). */
export function unknownPathError(path: string): GraphErrorReply {
  return {
    status: 400,
    body: {
      error: { message: `Unknown path components: ${path}`, type: 'OAuthException', code: 2500, fbtrace_id: newTraceId() },
    },
  };
}
