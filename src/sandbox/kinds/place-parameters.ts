import { GraphRejection } from '../graph-error.js';
import { INVALID, MISSING_VALUE, optionalString, rejectUnknownKeys, requireString, type JsonObject } from '../json-checks.js';

/**
 * The header parameters that name a place or a thing rather than media: a location
 * (templates/utility-templates/location-templates) and a catalog product
 * (catalogs/spm-template-messages, catalogs/product-card-carousel-template-messages).
 */
const LOCATION_KEYS = new Set(['latitude', 'longitude', 'name', 'address']);

/** Latitude and longitude are "Required"; name and address "Optional" (location-templates page). */
export function readLocation(location: JsonObject, where: string): void {
  rejectUnknownKeys(location, LOCATION_KEYS, where);
  readCoordinate(location, 'latitude', where, 90);
  readCoordinate(location, 'longitude', where, 180);
  optionalString(location, 'name', where);
  optionalString(location, 'address', where);
}

/**
 * Meta's template pages send coordinates as strings of decimal degrees, its OpenAPI examples as
 * numbers: both are taken. Meta states no range; WGS84's (±90, ±180) is the sandbox's.
 */
function readCoordinate(location: JsonObject, key: string, where: string, limit: number): void {
  const raw = location[key];
  if (raw === undefined) throw GraphRejection.missing(`${where}.${key}`);
  const value = typeof raw === 'string' && /^[+-]?\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > limit) {
    throw new GraphRejection(INVALID, `Parameter ${where}.${key} must be a number between -${limit} and ${limit}`);
  }
}

const PRODUCT_KEYS = new Set(['product_retailer_id', 'catalog_id']);

/** `product_retailer_id` and `catalog_id` are both "Required" on Meta's single-product and product-card pages. */
export function readProduct(product: JsonObject, where: string): void {
  rejectUnknownKeys(product, PRODUCT_KEYS, where);
  requireNonEmpty(product, 'product_retailer_id', where);
  requireNonEmpty(product, 'catalog_id', where);
}

/** A required string: absent is a missing field (100), empty a missing value (131008). */
export function requireNonEmpty(object: JsonObject, key: string, where: string): string {
  const value = requireString(object, key, where);
  if (value === '') throw new GraphRejection(MISSING_VALUE, `Parameter ${key} is missing its value (${where}.${key})`);
  return value;
}
