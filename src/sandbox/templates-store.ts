import { AppError } from '../errors/app-error.js';
import { messageTemplateSchema, type MessageTemplate } from '../templates/template-schema.js';
import { requirementsOf, type TemplateRequirements } from '../templates/template-requirements.js';
import { templateShape, type TemplateShape } from './kinds/template-shape.js';

/**
 * The sandbox's approved-template catalogue: looked up on every send by (name, language),
 * and listed page by page the way `GET /{waba-id}/message_templates` does (reference §5.1).
 * Requirements are derived once at load time so a send costs one Map lookup.
 */
export interface TemplateEntry {
  template: MessageTemplate;
  requirements: TemplateRequirements;
  /** What a send of it must and may carry, by its kind (kinds/template-shape.ts). */
  shape: TemplateShape;
}

export interface TemplateListQuery {
  limit: number;
  after?: string;
  name?: string;
  status?: string;
}

export interface TemplateListPage {
  data: MessageTemplate[];
  /** Cursor of the last item on the page, present only when more items remain. */
  nextAfter?: string;
  cursors?: { before: string; after: string };
}

export class InvalidCursorError extends Error {}

const keyOf = (name: string, language: string): string => `${name}\u0000${language}`;

// Cursors are opaque to clients, as Meta's are; inside they are a position in the catalogue
// (not in the filtered list), so a page boundary stays put whatever the filters.
const encodeCursor = (position: number): string => Buffer.from(`pos:${position}`).toString('base64url');

function decodeCursor(cursor: string): number {
  const match = /^pos:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (match?.[1] === undefined) throw new InvalidCursorError(`Invalid cursor: ${cursor}`);
  return Number(match[1]);
}

export class TemplatesStore {
  private readonly entries: TemplateEntry[] = [];
  private readonly byKey = new Map<string, TemplateEntry>();
  /** Each template and its requirements as loaded, for reset after a template-status, template-quality or TTL change. */
  private readonly loaded = new Map<TemplateEntry, Pick<TemplateEntry, 'template' | 'requirements'>>();

  /**
   * Checks each template against the schema but keeps the object as given, so the list
   * endpoint still serves fields the schema does not model (`example`, `sub_category`).
   */
  constructor(templates: readonly MessageTemplate[]) {
    templates.forEach((given, position) => {
      const parsed = messageTemplateSchema.safeParse(given);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const problem = `${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim();
        throw new AppError('TEMPLATES_FILE_INVALID', `Template #${position} is not a valid message template: ${problem}`);
      }
      const template = { ...given, parameter_format: parsed.data.parameter_format };
      const key = keyOf(template.name, template.language);
      if (this.byKey.has(key)) {
        throw new AppError(
          'TEMPLATES_FILE_INVALID',
          `Template ${template.name} (${template.language}) is listed twice; Meta keeps one per name and language.`,
        );
      }
      const sameId = template.id === undefined ? undefined : this.entries.find((e) => e.template.id === template.id);
      if (sameId !== undefined) {
        throw new AppError(
          'TEMPLATES_FILE_INVALID',
          `Template ${template.name} (${template.language}) has the id of ${sameId.template.name} ` +
            `(${sameId.template.language}), ${template.id}; Meta gives each template its own.`,
        );
      }
      const entry: TemplateEntry = { template, requirements: requirementsOf(parsed.data), shape: templateShape(parsed.data) };
      this.entries.push(entry);
      this.byKey.set(key, entry);
      this.loaded.set(entry, { template, requirements: entry.requirements });
    });
  }

  find(name: string, language: string): TemplateEntry | undefined {
    return this.byKey.get(keyOf(name, language));
  }

  /** Meta changed the template's status (`POST /_sandbox/template-status`): its sends and its listing follow. */
  setStatus(entry: TemplateEntry, status: string): void {
    entry.template = { ...entry.template, status };
  }

  /** The template with this Graph ID, or undefined. */
  byId(id: string): TemplateEntry | undefined {
    return this.entries.find((entry) => entry.template.id === id);
  }

  /** `POST /{template-id}` set its time-to-live: its listing shows it as `message_send_ttl_seconds`. */
  setTtl(entry: TemplateEntry, seconds: number): void {
    entry.template = { ...entry.template, message_send_ttl_seconds: seconds } as MessageTemplate;
  }

  /** Meta changed the template's quality score or category (`POST /_sandbox/template-quality`): its sends and listing follow. */
  setQuality(entry: TemplateEntry, change: { quality?: string | undefined; category?: string | undefined }): void {
    const { quality, category } = change;
    if (quality !== undefined) entry.template = { ...entry.template, quality_score: { score: quality } };
    if (category === undefined) return;
    entry.template = { ...entry.template, category };
    entry.requirements = { ...entry.requirements, category };
  }

  /** Every template back to what was loaded: its status, quality and category, no TTL set. */
  reset(): void {
    for (const [entry, loaded] of this.loaded) {
      entry.template = loaded.template;
      entry.requirements = loaded.requirements;
    }
  }

  get size(): number {
    return this.entries.length;
  }

  /**
   * One page of the catalogue. `name` matches as a case-insensitive substring and `status`
   * case-insensitively (Meta's docs show `status=approved`); both are assumptions about
   * Meta's filters that only make lists shorter, never change a template.
   * Throws InvalidCursorError for a cursor this store did not issue.
   */
  list(query: TemplateListQuery): TemplateListPage {
    const start = query.after === undefined ? 0 : decodeCursor(query.after) + 1;
    const name = query.name?.toLowerCase();
    const status = query.status?.toUpperCase();
    const positions: number[] = [];
    let more = false;
    for (let position = start; position < this.entries.length; position++) {
      const template = this.entries[position]?.template;
      if (template === undefined) continue;
      if (name !== undefined && !template.name.toLowerCase().includes(name)) continue;
      if (status !== undefined && template.status.toUpperCase() !== status) continue;
      if (positions.length === query.limit) {
        more = true;
        break;
      }
      positions.push(position);
    }
    const data = positions.flatMap((p) => this.entries[p]?.template ?? []);
    const first = positions[0];
    const last = positions[positions.length - 1];
    if (first === undefined || last === undefined) return { data };
    const cursors = { before: encodeCursor(first), after: encodeCursor(last) };
    return more ? { data, cursors, nextAfter: cursors.after } : { data, cursors };
  }
}
