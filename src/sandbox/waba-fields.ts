import { type GraphErrorSpec } from './graph-error.js';
import { pricingAnalytics } from './pricing-analytics.js';
import type { SandboxRuntime } from './sandbox-runtime.js';

/**
 * `GET /{version}/{waba-id}?fields=…`: the WhatsApp Business Account node, with the fields
 * the sandbox models (`id`, `name`, `currency`, and `pricing_analytics` with its modifiers).
 * Another field is refused with 100, as Graph refuses a field a node does not have.
 */
export function wabaFields(runtime: SandboxRuntime, wabaId: string, fields: unknown): { body: unknown } | { error: GraphErrorSpec } {
  const asked = typeof fields === 'string' ? splitFields(fields) : ['id', 'name'];
  const body: Record<string, unknown> = { id: wabaId };
  for (const field of asked) {
    if (field === 'id') continue;
    if (field === 'name') body.name = 'Sandbox Business';
    else if (field === 'currency') body.currency = 'USD';
    else if (field === 'pricing_analytics' || field.startsWith('pricing_analytics.')) {
      const answer = pricingAnalytics(field, runtime.log.all);
      if ('error' in answer) return answer;
      body.pricing_analytics = answer.value;
    } else {
      const name = field.split('.')[0] ?? field;
      return {
        error: {
          code: 100,
          type: 'OAuthException',
          message: `(#100) Tried accessing nonexisting field (${name}) on node type (WhatsAppBusinessAccount)`,
        },
      };
    }
  }
  return { body };
}

/** Top-level fields of a `fields` value: commas inside `(…)` or `[…]` belong to a modifier. */
function splitFields(fields: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of fields) {
    if (ch === '(' || ch === '[') depth++;
    if (ch === ')' || ch === ']') depth--;
    if (ch === ',' && depth === 0) {
      out.push(current.trim());
      current = '';
    } else {
      current += ch;
    }
  }
  out.push(current.trim());
  return out.filter((f) => f !== '');
}
