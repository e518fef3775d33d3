import { dispatch, schemaErrors, strictSchemaErrors } from './openapi-schemas.js';

/**
 * The walk of a send request body (reference §1.2–1.4) against Meta's OpenAPI spec, patched per
 * §9 and overlaid (openapi-overlay.ts). `Message`, the schema the path declares, is far too
 * loose on its own (see openapi-schemas.ts: discriminators are not applied, component
 * parameters are never checked, `messaging_product` is any string), so every body is WALKED:
 * the envelope, the text object, the template, its language, each component and each
 * parameter are validated against the schema meant for them, and where even that schema
 * cannot see a real mistake, a rule from the reference says so (`rule()` below).
 * test/unit/message-body.contract.test.ts pins it down; the suite-wide capture check
 * (test/captured) walks every send the product made with it.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/**
 * Collects what each schema and rule objects to, and which schema each part was checked against.
 * `strict`: against the strict copy of the spec, where a field no schema declares is refused too
 * (openapi-schemas.ts), as the capture check walks the product's sends.
 */
export class Contract {
  readonly errors: string[] = [];
  readonly checked: string[] = [];
  readonly #strict: boolean;

  constructor(strict = false) {
    this.#strict = strict;
  }

  schema(schema: string, value: unknown, at: string): void {
    this.checked.push(`${at === '' ? '/' : at} ${schema}`);
    this.errors.push(...(this.#strict ? strictSchemaErrors(schema, value, at) : schemaErrors(schema, value, at)));
  }

  rule(ok: boolean, at: string, message: string, section: string): void {
    if (!ok) this.errors.push(`${at === '' ? '/' : at} ${message} [reference ${section}]`);
  }
}

/** Every send request body passes this walk with no errors. */
export function requestContract(body: unknown, strict = false): Contract {
  const contract = new Contract(strict);
  contract.schema('Message', body, '');
  // TextMessage / TemplateMessage: the schema for this `type` (what the discriminator means).
  const kind = dispatch('Message', body);
  if (kind !== 'Message') contract.schema(kind, body, '');
  if (!isObject(body)) return contract;

  // Envelope. Both kind schemas extend BaseMessageProperties, whose `messaging_product` is
  // any string and whose `type` is any string; MessageRequest (referenced by no path) has
  // the enums, so each envelope field is also checked against MessageRequest's property.
  for (const field of ['messaging_product', 'recipient_type', 'to', 'type']) {
    if (body[field] !== undefined) contract.schema(`MessageRequest/properties/${field}`, body[field], `/${field}`);
  }
  // `to` is any string in the spec; §1.2: always `+` and country code, or Meta prepends the
  // sender's own country code (outbound-message.ts: E.164 with the `+`).
  contract.rule(typeof body.to !== 'string' || /^\+[1-9]\d{6,14}$/.test(body.to), '/to', 'is not E.164 with a leading +', '§1.2');
  // No message schema sets additionalProperties: false at the top, so a misspelt optional
  // field (`callback_data`) would go unnoticed; §1.2 lists the envelope, plus the content
  // object named after `type`.
  const envelope = ['messaging_product', 'recipient_type', 'to', 'type', 'context', 'biz_opaque_callback_data'];
  for (const key of Object.keys(body)) {
    contract.rule(envelope.includes(key) || key === body.type, '/', `has unknown top-level field ${key}`, '§1.2');
  }

  if (body.type === 'text') textContract(contract, body.text);
  if (body.type === 'template') {
    templateContract(contract, body.template);
    // Meta's templates/components page: "Gifs are only available for Marketing Messages API for WhatsApp".
    const headers = list(isObject(body.template) ? body.template.components : undefined).filter((c) => isObject(c) && c.type === 'header');
    const gif = headers.some((c) => list((c as Json).parameters).some((p) => isObject(p) && p.type === 'gif'));
    contract.rule(!gif, '/template', 'has a GIF header, which only /marketing_messages takes', 'templates/components (Meta)');
  }
  return contract;
}

function textContract(contract: Contract, text: unknown): void {
  // TextMessage's own `text` object forbids other keys but neither requires `body` nor caps it;
  // TextMessage_1 (MessageRequest's `text`) requires `body` and has the 4096 limit of §1.3.
  contract.schema('TextMessage_1', text, '/text');
  contract.schema('TextMessage/allOf/1/properties/text', text, '/text');
}

export function templateContract(contract: Contract, template: unknown): void {
  contract.schema('TemplateObject', template, '/template');
  if (!isObject(template)) return;
  if (template.language !== undefined) contract.schema('LanguageObject', template.language, '/template/language');
  const components = list(template.components);
  components.forEach((component, i) => componentContract(contract, component, `/template/components/${i}`));

  // §1.4 "one entry per component that needs parameters": the spec allows any repetition.
  const keys = components.filter(isObject).map((c) => `${String(c.type)}${c.type === 'button' ? ` ${String(c.index)}` : ''}`);
  contract.rule(new Set(keys).size === keys.length, '/template/components', 'repeats a component', '§1.4');

  // §1.4 named vs positional: a NAMED template names every text parameter, a POSITIONAL one
  // none (Meta: "Parameter name is missing or empty", §7 item 3). The patched spec has
  // `parameter_name` as an optional string, so it cannot tell. URL buttons are left out:
  // whether their variable is named is unsettled (§1.4, §10).
  const texts = components
    .filter((c) => isObject(c) && (c.type === 'header' || c.type === 'body'))
    .flatMap((c) => list((c as Json).parameters))
    .filter((p): p is Json => isObject(p) && p.type === 'text');
  const names = texts.map((p) => p.parameter_name).filter((name) => name !== undefined);
  contract.rule(names.length === 0 || names.length === texts.length, '/template', 'mixes named and positional text parameters', '§1.4');
  contract.rule(
    names.every((name) => typeof name === 'string' && name !== ''),
    '/template',
    'has an empty parameter_name',
    '§1.4',
  );
  contract.rule(new Set(names).size === names.length, '/template', 'repeats a parameter_name', '§1.4');
}

// Beyond §1.4: a single-product or product-card header's product, a Marketing Messages GIF (openapi-overlay.ts).
const HEADER_PARAMETERS = new Set(['text', 'image', 'video', 'document', 'location', 'product', 'gif']);
const BODY_PARAMETERS = new Set(['text', 'currency', 'date_time']);
const BUTTON_PARAMETER: Record<string, string> = { url: 'text', quick_reply: 'payload' };

function componentContract(contract: Contract, component: unknown, at: string): void {
  // HeaderComponent / BodyComponent / ButtonComponent; TemplateComponent (whose enum refuses
  // the type) for anything else, e.g. "footer".
  contract.schema(dispatch('TemplateComponent', component), component, at);
  if (!isObject(component)) return;
  const parameters = list(component.parameters);
  const base = component.type === 'button' ? 'ButtonParameterObject' : 'ParameterObject';
  parameters.forEach((parameter, j) => contract.schema(dispatch(base, parameter), parameter, `${at}/parameters/${j}`));

  // The component schemas check each parameter against the bare ParameterObject (any of the
  // six types) or ButtonParameterObject (payload or text), whatever the component: §1.4 is narrower.
  const types = parameters.map((p) => (isObject(p) ? p.type : undefined));
  if (component.type === 'header') {
    // HeaderComponent has minItems 1 and no maxItems; §1.4: exactly the header's variable.
    contract.rule(parameters.length === 1, at, 'a header takes exactly one parameter', '§1.4');
    contract.rule(
      types.every((t) => HEADER_PARAMETERS.has(String(t))),
      at,
      `header parameter types ${types.join(',')}`,
      '§1.4',
    );
  }
  if (component.type === 'body') {
    contract.rule(
      types.every((t) => BODY_PARAMETERS.has(String(t))),
      at,
      `body parameter types ${types.join(',')}`,
      '§1.4',
    );
  }
  if (component.type === 'button') {
    // A URL button's suffix is one `text`, a quick reply's one `payload`; ButtonComponent takes either.
    const wanted = BUTTON_PARAMETER[String(component.sub_type)];
    if (wanted !== undefined) {
      contract.rule(
        types.length === 1 && types[0] === wanted,
        at,
        `a ${String(component.sub_type)} button takes one ${wanted} parameter`,
        '§1.4',
      );
    }
  } else {
    // TemplateComponent: sub_type and index "Not used for other types", but it allows them.
    contract.rule(!('sub_type' in component) && !('index' in component), at, 'sub_type/index on a non-button component', '§1.4');
  }
  // A carousel's cards (openapi-overlay.ts): each card's header, body and buttons walked as the message's are.
  if (component.type === 'carousel') {
    list(component.cards).forEach((card, k) => {
      if (!isObject(card)) return;
      list(card.components).forEach((part, m) => componentContract(contract, part, `${at}/cards/${k}/components/${m}`));
    });
  }
}

/**
 * A Marketing Messages API send (`POST …/marketing_messages`): its own schema, which allows
 * nothing the Marketing Messages API does not take (`biz_opaque_callback_data` among them),
 * and the same walk of its template as a /messages send.
 */
export function marketingRequestContract(body: unknown, strict = false): Contract {
  const contract = new Contract(strict);
  contract.schema('MarketingMessageRequestPayload', body, '');
  if (isObject(body) && body.type === 'template') templateContract(contract, body.template);
  return contract;
}
