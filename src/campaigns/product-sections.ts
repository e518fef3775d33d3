import type { ProductSection } from '../cloud-api/outbound-message.js';

/**
 * A multi-product message's products as one cell: sections separated by `;`, each a title,
 * a colon and its products' retailer IDs separated by commas (`Shoes: sku-1, sku-2; Hats:
 * sku-3`). Meta's limits (catalogs page for multi-product messages): 1 to 10 sections, 30
 * products in all, a section title of at most 24 characters.
 */
export const MAX_SECTIONS = 10;
export const MAX_PRODUCTS = 30;
export const MAX_SECTION_TITLE_CHARS = 24;

export function parseProductSections(cell: string): { sections: ProductSection[] } | { problem: string } {
  const parts = cell
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) return { problem: 'no products: write "Title: id1, id2; Other title: id3"' };
  if (parts.length > MAX_SECTIONS) return { problem: `${parts.length} sections; Meta allows ${MAX_SECTIONS}` };
  const sections: ProductSection[] = [];
  for (const part of parts) {
    const colon = part.indexOf(':');
    const title = colon < 0 ? '' : part.slice(0, colon).trim();
    if (title === '') return { problem: `a section has no title before its colon ("Title: id1, id2")` };
    if (title.length > MAX_SECTION_TITLE_CHARS)
      return { problem: `section "${title.slice(0, 40)}" has a title over ${MAX_SECTION_TITLE_CHARS} characters` };
    const ids = part
      .slice(colon + 1)
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== '');
    if (ids.length === 0) return { problem: `section "${title}" lists no product` };
    if (ids.some((id) => /\s/.test(id) || id.length > 100))
      return { problem: `section "${title}" has a product ID with a space or over 100 characters` };
    sections.push({ title, productRetailerIds: ids });
  }
  const count = sections.reduce((n, s) => n + s.productRetailerIds.length, 0);
  if (count > MAX_PRODUCTS) return { problem: `${count} products; Meta allows ${MAX_PRODUCTS} in one message` };
  return { sections };
}
