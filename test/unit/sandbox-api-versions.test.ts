import { describe, expect, it } from 'vitest';
import { API_VERSIONS, servedVersion } from '../../src/sandbox/api-versions.js';

const at = (iso: string): number => Date.parse(`${iso}T12:00:00Z`);
const served = (asked: string, iso: string): string | undefined => servedVersion(asked, at(iso))?.name;

describe("the sandbox's table of Graph API versions", () => {
  it('knows v20.0 through v26.0, oldest first, with the reference dates', () => {
    expect(API_VERSIONS.map((v) => v.name)).toEqual(['v20.0', 'v21.0', 'v22.0', 'v23.0', 'v24.0', 'v25.0', 'v26.0']);
    const v23 = API_VERSIONS.find((v) => v.name === 'v23.0');
    expect(v23).toEqual({ name: 'v23.0', major: 23, released: Date.parse('2025-05-29'), until: Date.parse('2027-10-08') });
    expect(API_VERSIONS.at(-1)?.until).toBeUndefined();
  });

  it('serves every available version as itself (late 2026: v21.0 to v26.0)', () => {
    for (const v of ['v21.0', 'v22.0', 'v23.0', 'v24.0', 'v25.0', 'v26.0']) expect(served(v, '2026-11-25')).toBe(v);
  });

  it('serves an expired version as the oldest one still available, as Graph upgrades it', () => {
    expect(served('v20.0', '2026-09-23')).toBe('v20.0');
    expect(served('v20.0', '2026-09-24')).toBe('v21.0');
    // The clock moved past v21.0's end (2027-01-21) and v22.0's (2027-05-29).
    expect(served('v20.0', '2027-01-22')).toBe('v22.0');
    expect(served('v21.0', '2027-01-22')).toBe('v22.0');
    expect(served('v21.0', '2027-06-01')).toBe('v23.0');
    expect(served('v23.0', '2028-03-01')).toBe('v25.0');
    expect(served('v25.0', '2040-01-01')).toBe('v26.0');
  });

  it('has no version Meta never had or has not released (2500): v27.0, v99.0, v23.1, v19.1, v2.13', () => {
    for (const v of ['v27.0', 'v99.0', 'v23.1', 'v19.1', 'v2.13', 'v23', '']) expect(served(v, '2026-11-25')).toBeUndefined();
  });

  it('serves an expired version (v19.0, v18.0, v1.0) as the oldest still served, as Graph upgrades them', () => {
    for (const v of ['v19.0', 'v18.0', 'v1.0']) expect(served(v, '2026-11-25')).toBe('v21.0');
  });

  it('has no version before its release: v26.0 on 2026-07-28, v25.0 on 2026-02-17', () => {
    expect(served('v26.0', '2026-07-28')).toBeUndefined();
    expect(served('v26.0', '2026-07-29')).toBe('v26.0');
    expect(served('v25.0', '2026-02-17')).toBeUndefined();
  });
});
