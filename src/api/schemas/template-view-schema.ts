import { z } from 'zod';
import type { TemplateView } from '../../cli/format-templates.js';

const names = z.array(z.string());

/** A template as `campaign templates list --json` prints it (TemplateView), with what a page needs to show it. */
export const templateViewSchema = z
  .object({
    name: z.string(),
    language: z.string(),
    status: z.string(),
    category: z.string().nullable(),
    parameterFormat: z.enum(['POSITIONAL', 'NAMED']),
    variables: names.meta({
      description: 'What a send must fill, as the CLI lists it: `header {{1}}`, `body {{1}} {{2}}`, `button 0 url {{1}}`.',
    }),
    header: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('none') }),
      z.object({ kind: z.literal('text'), text: z.string(), variables: names }),
      z.object({ kind: z.literal('media'), format: z.enum(['IMAGE', 'VIDEO', 'DOCUMENT']) }),
      z.object({ kind: z.literal('location') }),
    ]),
    bodyVariables: names.meta({ description: 'The body placeholders: `1`, `2`… (positional) or their names (named).' }),
    urlButtons: z.array(z.object({ index: z.number().int().min(0), variables: names })),
    parameterCount: z
      .number()
      .int()
      .min(0)
      .meta({ description: 'Values a send fills: header (text variables or media link), body, URL buttons.' }),
    quality: z.string().nullable().meta({ description: "Meta's quality rating (GREEN, YELLOW, RED, UNKNOWN); null when not known." }),
    preview: z.object({
      header: z.object({ format: z.string(), text: z.string().nullable() }).nullable(),
      body: z.string().meta({ description: 'The body as approved, placeholders (`{{1}}`, `{{first_name}}`) as written.' }),
      footer: z.string().nullable(),
      buttons: z.array(
        z.object({ type: z.string(), text: z.string().nullable(), url: z.string().nullable(), phoneNumber: z.string().nullable() }),
      ),
    }),
  })
  .meta({ id: 'Template' });

// The schema describes what templateView makes: a field added to one and not the other fails to compile.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type View = z.infer<typeof templateViewSchema>;
const sameFields: Same<keyof View, keyof TemplateView> = true;
const fits: TemplateView extends View ? true : false = true;
void sameFields;
void fits;
