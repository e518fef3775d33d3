import { GraphRejection } from './graph-error.js';

/**
 * The few field checks every validator repeats, each failing with the code Meta uses for
 * that kind of mistake (reference §7 item 1): a required field that is absent is the generic
 * Graph 100 `(#100) The parameter … is required.` without error_data; a field that is present
 * but wrong (bad value, wrong type, unknown or misspelled key) is 100 with details; 131008 is
 * kept for a field that is there with no value in it (an empty text parameter). Hand-written
 * rather than zod because the code depends on *which* rule failed and this runs on every send.
 */
export const MISSING_VALUE = 131008;
export const INVALID = 100;

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function requireObject(value: unknown, where: string): JsonObject {
  if (value === undefined) throw GraphRejection.missing(where);
  if (!isObject(value)) throw new GraphRejection(INVALID, `Parameter ${where} must be a JSON object`);
  return value;
}

/** Meta rejects misspelled fields instead of ignoring them, so the sandbox does too. */
export function rejectUnknownKeys(object: JsonObject, allowed: ReadonlySet<string>, where: string): void {
  for (const key in object) {
    if (!allowed.has(key)) {
      throw new GraphRejection(INVALID, `Unexpected key "${key}" on param "${where === '' ? 'message' : where}"`);
    }
  }
}

/** `where` is the path of `object` in the request ('' for the top level). */
export function requireString(object: JsonObject, key: string, where: string): string {
  const value = object[key];
  const path = pathOf(where, key);
  if (value === undefined) throw GraphRejection.missing(path);
  if (typeof value !== 'string') throw new GraphRejection(INVALID, `Parameter ${path} must be a string`);
  return value;
}

export function optionalString(object: JsonObject, key: string, where: string): string | undefined {
  const value = object[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new GraphRejection(INVALID, `Parameter ${pathOf(where, key)} must be a string`);
  return value;
}

export function pathOf(where: string, key: string): string {
  return where === '' ? key : `${where}.${key}`;
}
