import { GraphRejection } from '../graph-error.js';
import { INVALID, isObject, rejectUnknownKeys, requireObject, type JsonObject } from '../json-checks.js';
import { requireNonEmpty } from './place-parameters.js';

/**
 * The `action` object of the buttons that carry one: a Flow's token and first-screen data
 * (flows/guides/sendingaflow), a catalog's thumbnail (catalogs/catalog-template-messages) and a
 * multi-product message's thumbnail and sections (catalogs/mpm-template-messages).
 */
const FLOW_KEYS = new Set(['flow_token', 'flow_action_data']);

/** Both "optional": the token defaults to "unused", the data is "json object with the data payload for the first screen". */
export function checkFlowAction(action: JsonObject, where: string): void {
  rejectUnknownKeys(action, FLOW_KEYS, where);
  if (action['flow_token'] !== undefined) requireNonEmpty(action, 'flow_token', where);
  const data = action['flow_action_data'];
  if (data !== undefined && !isObject(data)) {
    throw new GraphRejection(INVALID, `Parameter ${where}.flow_action_data must be a JSON object`);
  }
}

const CATALOG_KEYS = new Set(['thumbnail_product_retailer_id']);

/** The thumbnail is "Optional": without it "the product image of the first item in your catalog will be used". */
export function checkCatalogAction(action: JsonObject, where: string): void {
  rejectUnknownKeys(action, CATALOG_KEYS, where);
  if (action['thumbnail_product_retailer_id'] !== undefined) requireNonEmpty(action, 'thumbnail_product_retailer_id', where);
}

const MPM_KEYS = new Set(['thumbnail_product_retailer_id', 'sections']);
const SECTION_KEYS = new Set(['title', 'product_items']);
const ITEM_KEYS = new Set(['product_retailer_id']);
/** "You can define up to 10 sections", "Maximum 24 characters", "up to 30 products total, across all sections". */
export const MAX_SECTIONS = 10;
export const MAX_SECTION_TITLE = 24;
export const MAX_PRODUCTS = 30;

/**
 * A multi-product button's action. Meta's page does not mark the thumbnail required or optional
 * and its example always sends one, as the reference says it must: the sandbox requires it. A
 * section's title is required once there is more than one section (OpenAPI SectionObject).
 */
export function checkMpmAction(action: JsonObject, where: string): void {
  rejectUnknownKeys(action, MPM_KEYS, where);
  requireNonEmpty(action, 'thumbnail_product_retailer_id', where);
  const sections = action['sections'];
  if (sections === undefined) throw GraphRejection.missing(`${where}.sections`);
  if (!Array.isArray(sections) || sections.length === 0 || sections.length > MAX_SECTIONS) {
    throw new GraphRejection(INVALID, `Parameter ${where}.sections must be an array of 1 to ${MAX_SECTIONS} sections`);
  }
  let products = 0;
  (sections as unknown[]).forEach((raw, i) => {
    products += checkSection(requireObject(raw, `${where}.sections[${i}]`), `${where}.sections[${i}]`, sections.length > 1);
  });
  if (products > MAX_PRODUCTS) {
    throw new GraphRejection(INVALID, `Parameter ${where}.sections lists ${products} products; at most ${MAX_PRODUCTS} in all sections`);
  }
}

function checkSection(section: JsonObject, where: string, titled: boolean): number {
  rejectUnknownKeys(section, SECTION_KEYS, where);
  if (titled || section['title'] !== undefined) {
    const title = requireNonEmpty(section, 'title', where);
    if (title.length > MAX_SECTION_TITLE) {
      throw new GraphRejection(INVALID, `Parameter ${where}.title must be at most ${MAX_SECTION_TITLE} characters`);
    }
  }
  const items = section['product_items'];
  if (items === undefined) throw GraphRejection.missing(`${where}.product_items`);
  if (!Array.isArray(items) || items.length === 0) {
    throw new GraphRejection(INVALID, `Parameter ${where}.product_items must be an array of at least one product`);
  }
  (items as unknown[]).forEach((raw, i) => {
    const item = requireObject(raw, `${where}.product_items[${i}]`);
    rejectUnknownKeys(item, ITEM_KEYS, `${where}.product_items[${i}]`);
    requireNonEmpty(item, 'product_retailer_id', `${where}.product_items[${i}]`);
  });
  return items.length;
}
