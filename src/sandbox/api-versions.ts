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

/**
 * Graph's versions before the table's first, as its changelog lists them
 * (https://developers.facebook.com/docs/graph-api/changelog/versions/): v1.0, v2.0 to v2.12,
 * v3.0 to v3.3, then v4.0 to v19.0. All had expired before v20.0 did, so a call to one is
 * always served as the oldest version still available; a name not in this list (v2.13,
 * v19.1) is a version Graph never had.
 */
const LAST_MINOR_BEFORE_TABLE: ReadonlyMap<number, number> = new Map([
  [1, 0],
  [2, 12],
  [3, 3],
  ...Array.from({ length: 16 }, (_, i) => [i + 4, 0] as const),
]);

/** No leading zeros: Graph's names are v2.3, never v02.3 or v2.03. */
const VERSION_NAME = /^v([1-9]\d*)\.(0|[1-9]\d*)$/;

function isPastGraphVersion(asked: string): boolean {
  const match = VERSION_NAME.exec(asked);
  const last = match === null ? undefined : LAST_MINOR_BEFORE_TABLE.get(Number(match[1]));
  return last !== undefined && Number(match?.[2]) <= last;
}

const isAvailable = (v: ApiVersion, now: number): boolean => v.released <= now && (v.until === undefined || now < v.until);

/**
 * The version a call to `asked` is answered as at `now`, per Meta's Platform Versioning page
 * (https://developers.facebook.com/docs/graph-api/guides/versioning): a version is served as
 * itself while it is available; "once a version is no longer usable, any calls made to it
 * will be defaulted to the next oldest usable version", so an expired one (v17.0, v19.0,
 * v1.0 …) is served as the oldest version still available. A call without a version
 * (`asked` undefined) is served as the newest: WhatsApp's pages say the version "defaults to
 * the newest API version available to your app" (e.g. templates/utility-templates/
 * utility-templates), where the Graph page says an unversioned call takes the version set
 * in the app's dashboard, which for the sandbox's one app is the newest. Undefined, Graph's
 * unknown path (2500), for a version Meta never had or has not released yet (v23.1, v99.0).
 */
export function servedVersion(asked: string | undefined, now: number): ApiVersion | undefined {
  if (asked === undefined) return API_VERSIONS.findLast((v) => isAvailable(v, now));
  const known = API_VERSIONS.find((v) => v.name === asked);
  if (known === undefined) return isPastGraphVersion(asked) ? API_VERSIONS.find((v) => isAvailable(v, now)) : undefined;
  if (known.released > now) return undefined;
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
