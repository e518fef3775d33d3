import { requirementsOf, type HeaderRequirement } from '../templates/template-requirements.js';
import type { MessageTemplate } from '../templates/template-schema.js';
import { printable } from '../text/operator-text.js';

/** One template as `campaign templates list --json` prints it. */
export interface TemplateView {
  name: string;
  language: string;
  status: string;
  category: string | null;
  parameterFormat: 'POSITIONAL' | 'NAMED';
  /** What a send must fill, as the text listing shows it: `header image link`, `body {{1}} {{2}}`, `button 0 url {{1}}`. */
  variables: string[];
  header: HeaderRequirement;
  bodyVariables: string[];
  urlButtons: { index: number; variables: string[] }[];
  /** How many values a send fills: header variables (or its media link), body variables, URL-button variables. */
  parameterCount: number;
  /** Meta's quality rating (GREEN, YELLOW, RED, UNKNOWN); null when not known. */
  quality: string | null;
  /** The approved texts, placeholders as written, for showing the message. */
  preview: TemplatePreview;
}

/** What a page needs to draw a template: its header, body, footer and buttons as approved. */
export interface TemplatePreview {
  header: { format: string; text: string | null } | null;
  body: string;
  footer: string | null;
  buttons: { type: string; text: string | null; url: string | null; phoneNumber: string | null }[];
}

export interface TemplateListing {
  /** Sorted by name, then language. */
  shown: MessageTemplate[];
  /** How many were left out because they are not APPROVED. */
  hidden: number;
  all: boolean;
}

/** APPROVED templates only unless `all`; sorted by name, then language. */
export function templateListing(templates: readonly MessageTemplate[], options: { all?: boolean | undefined } = {}): TemplateListing {
  const all = options.all === true;
  const shown = templates
    .filter((t) => all || t.status === 'APPROVED')
    .sort((a, b) => compare(a.name, b.name) || compare(a.language, b.language));
  return { shown, hidden: templates.length - shown.length, all };
}

export function templateView(template: MessageTemplate): TemplateView {
  const r = requirementsOf(template);
  const variables: string[] = [];
  const header = headerVariables(r.header);
  if (header !== undefined) variables.push(header);
  if (r.body.variables.length > 0) variables.push(`body ${braces(r.body.variables)}`);
  for (const button of r.urlButtons) variables.push(`button ${button.index} url ${braces(button.variables)}`);
  return {
    name: r.name,
    language: r.language,
    status: r.status,
    category: r.category ?? null,
    parameterFormat: r.parameterFormat,
    variables,
    header: r.header,
    bodyVariables: r.body.variables,
    urlButtons: r.urlButtons.map((b) => ({ index: b.index, variables: b.variables })),
    parameterCount: parameterCount(r.header, r.body.variables, r.urlButtons),
    quality: template.quality_score?.score ?? null,
    preview: templatePreview(template),
  };
}

function parameterCount(header: HeaderRequirement, body: readonly string[], buttons: readonly { variables: string[] }[]): number {
  const headerValues = header.kind === 'text' ? header.variables.length : header.kind === 'media' ? 1 : 0;
  return headerValues + body.length + buttons.reduce((sum, button) => sum + button.variables.length, 0);
}

export function templatePreview(template: MessageTemplate): TemplatePreview {
  const preview: TemplatePreview = { header: null, body: '', footer: null, buttons: [] };
  for (const component of template.components) {
    if (component.type === 'HEADER') preview.header = { format: component.format, text: component.text ?? null };
    else if (component.type === 'BODY') preview.body = component.text;
    else if (component.type === 'FOOTER') preview.footer = component.text;
    // A carousel's buttons are on its cards, and a limited-time offer has none of its own.
    else if (component.type === 'BUTTONS') {
      preview.buttons = component.buttons.map((b) => ({
        type: b.type,
        text: b.text ?? null,
        url: b.url ?? null,
        phoneNumber: b.phone_number ?? null,
      }));
    }
  }
  return preview;
}

export function templatesJson(listing: TemplateListing): TemplateView[] {
  return listing.shown.map(templateView);
}

export function templatesText(listing: TemplateListing): string {
  const { shown, hidden, all } = listing;
  const notShown = hidden > 0 ? ` (${hidden} in other statuses; --all shows them)` : '';
  if (shown.length === 0) return `No ${all ? '' : 'approved '}templates${notShown}`;
  const rows = [
    ['NAME', 'LANGUAGE', 'STATUS', 'CATEGORY', 'FORMAT', 'VARIABLES'],
    ...shown.map((t) => {
      const v = templateView(t);
      // Names, categories and variables come from Meta (or a templates file): shown, never acted on by the terminal.
      return [v.name, v.language, v.status, v.category ?? '-', v.parameterFormat, v.variables.join('; ') || '(none)'].map(printable);
    }),
  ];
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  const lines = rows.map((row) =>
    row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  '),
  );
  const noun = shown.length === 1 ? 'template' : 'templates';
  lines.push('', `${shown.length} ${all ? '' : 'approved '}${noun}${notShown}`);
  return lines.join('\n');
}

function headerVariables(header: HeaderRequirement): string | undefined {
  switch (header.kind) {
    case 'none':
      return undefined;
    case 'text':
      return header.variables.length > 0 ? `header ${braces(header.variables)}` : undefined;
    case 'media':
      return `header ${header.format.toLowerCase()} link`;
    case 'location':
      return 'header location';
  }
}

function braces(names: readonly string[]): string {
  return names.map((n) => `{{${n}}}`).join(' ');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
