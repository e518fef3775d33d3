/**
 * What our checks add to Meta's OpenAPI (v23.0, patched per reference §9 by
 * /work/shared/reference/openapi/patch_spec.py): the fields, values, webhooks and query
 * parameters Meta's pages document in 2025–2026 that the v23.0 file lacks, and the further
 * defects of the file found while checking the sandbox against it. Every addition to the spec
 * our tests validate against is here, and only here, each entry named and citing the page
 * that documents it (test/fixtures/meta-pages/SOURCES.md has the copies read) or the defect it
 * patches. An entry that finds its addition already in the spec throws: a newer spec file
 * makes it redundant, and it should go.
 *
 * Pages under https://developers.facebook.com/documentation/business-messaging/whatsapp/ are
 * written `WA/…` below.
 */

type Json = Record<string, unknown>;

export interface OpenApiDocument {
  components: { schemas: Record<string, Json>; parameters?: Record<string, Json>; responses?: Record<string, Json> };
  paths: Record<string, Record<string, Json>>;
}

export interface OverlayEntry {
  name: string;
  /** The Meta page (URL) that documents it, or the defect of the spec file it patches. */
  source: string;
  apply(spec: OpenApiDocument): void;
}

const WA = 'https://developers.facebook.com/documentation/business-messaging/whatsapp';
const BSUID_PAGE = `${WA}/business-scoped-user-ids`;
const STATUS_PAGE = `${WA}/webhooks/reference/messages/status`;

// ---- helpers --------------------------------------------------------------------------------

const ref = (schema: string): Json => ({ $ref: `#/components/schemas/${schema}` });
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The schema at `path` ("Statuses", "MessageResponsePayload/properties/contacts/items"); throws if there is none. */
function schemaAt(spec: OpenApiDocument, path: string): Json {
  let node: unknown = spec.components.schemas;
  for (const key of path.split('/')) {
    node = Array.isArray(node) ? node[Number(key)] : isObject(node) ? node[key] : undefined;
  }
  if (!isObject(node)) throw new Error(`overlay: no schema ${path} in the spec`);
  return node;
}

/** Adds properties the schema lacks; throws on one it already declares (the entry would be redundant). */
function addProperties(schema: Json, properties: Record<string, Json>, where: string): void {
  const own = (schema.properties ??= {}) as Record<string, Json>;
  for (const [name, definition] of Object.entries(properties)) {
    if (name in own) throw new Error(`overlay: ${where} already declares ${name}`);
    own[name] = definition;
  }
}

function addSchema(spec: OpenApiDocument, name: string, schema: Json): void {
  if (name in spec.components.schemas) throw new Error(`overlay: the spec already has a schema ${name}`);
  spec.components.schemas[name] = schema;
}

function operationAt(spec: OpenApiDocument, path: string, method: string): Json {
  const operation = spec.paths[path]?.[method];
  if (!isObject(operation)) throw new Error(`overlay: no ${method.toUpperCase()} ${path} in the spec`);
  return operation;
}

function addQueryParameters(spec: OpenApiDocument, path: string, method: string, names: Record<string, Json>): void {
  const operation = operationAt(spec, path, method);
  const parameters = (operation.parameters ??= []) as Json[];
  for (const [name, schema] of Object.entries(names)) {
    if (parameters.some((p) => p.name === name && p.in === 'query')) throw new Error(`overlay: ${path} already declares ?${name}`);
    parameters.push({ name, in: 'query', required: false, schema });
  }
}

function jsonAnswer(schema: Json): Json {
  return { content: { 'application/json': { schema } } };
}

/** Drops names from a schema's `required`, throwing on one it does not require. */
function unrequire(schema: Json, names: string[], where: string): void {
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  for (const name of names) if (!required.includes(name)) throw new Error(`overlay: ${where} does not require ${name}`);
  schema.required = required.filter((name) => !names.includes(name));
}

/** Adds values to an enum; throws on one it already has. */
function addEnumValues(schema: Json, values: string[], where: string): void {
  const own = Array.isArray(schema.enum) ? (schema.enum as string[]) : [];
  for (const value of values) if (own.includes(value)) throw new Error(`overlay: ${where} already allows ${value}`);
  schema.enum = [...own, ...values];
}

/**
 * A new `type` of a discriminated base (TemplateComponent, ParameterObject,
 * ButtonParameterObject): its enum value, its mapping (which the send walk of
 * request-contract.ts follows, as ajv does not) and its schema, an `allOf` of the base and
 * `own`, as the spec writes each of its own kinds.
 */
function addKind(spec: OpenApiDocument, base: string, tag: string, name: string, own: Json): void {
  addEnumValues(schemaAt(spec, `${base}/properties/type`), [tag], `${base}.type`);
  const mapping = schemaAt(spec, `${base}/discriminator/mapping`);
  if (tag in mapping) throw new Error(`overlay: ${base}'s discriminator already maps ${tag}`);
  mapping[tag] = `#/components/schemas/${name}`;
  const properties = { type: { enum: [tag] }, ...(own.properties as Json) };
  addSchema(spec, name, { allOf: [ref(base), { type: 'object', ...own, properties }] });
}

/** New button `sub_type`s: the spec declares the enum twice, on TemplateComponent and on ButtonComponent. */
function addSubTypes(spec: OpenApiDocument, values: string[]): void {
  addEnumValues(schemaAt(spec, 'TemplateComponent/properties/sub_type'), values, 'TemplateComponent.sub_type');
  addEnumValues(schemaAt(spec, 'ButtonComponent/allOf/1/properties/sub_type'), values, 'ButtonComponent.sub_type');
}

/** What a button of these sub_types must carry beyond ButtonComponent (its parameters, as its page shows them). */
function addButtonRule(spec: OpenApiDocument, subTypes: string[], then: Json): void {
  const button = schemaAt(spec, 'ButtonComponent');
  (button.allOf as Json[]).push({ if: { required: ['sub_type'], properties: { sub_type: { enum: subTypes } } }, then });
}

/**
 * A button that takes exactly one parameter, valid against `items`. (`items` is a `$ref`, with
 * any further constraint beside it: an `allOf` member would leave the schema it names open in
 * the strict copy of openapi-schemas.ts.)
 */
const oneParameter = (items: Json): Json => ({ properties: { parameters: { maxItems: 1, items } } });

/** An `action` parameter with only these keys of its action (and `required` among them). */
const actionWith = (keys: string[], required: string[] = []): Json => ({
  $ref: '#/components/schemas/ButtonActionParameter',
  properties: { action: { propertyNames: { enum: keys }, required } },
});

const STRING: Json = { type: 'string' };
const INTEGER: Json = { type: 'integer' };
const BSUID: Json = { type: 'string', pattern: '^[A-Z]{2}\\.([A-Z]+\\.)?[A-Za-z0-9]{1,128}$' };
const TIERS = ['TIER_50', 'TIER_250', 'TIER_1K', 'TIER_2K', 'TIER_10K', 'TIER_100K', 'TIER_UNLIMITED'];

/**
 * The webhook fields the checks know, beyond the spec's `messages` and group fields: each
 * maps to the schema of its `value` (the overlay defines them below).
 */
export const WEBHOOK_VALUE_SCHEMAS: Readonly<Record<string, string>> = {
  user_preferences: 'UserPreferencesValue',
  message_template_status_update: 'TemplateStatusValue',
  message_template_quality_update: 'TemplateQualityValue',
  template_category_update: 'TemplateCategoryValue',
  business_capability_update: 'BusinessCapabilityValue',
};

// ---- the entries ----------------------------------------------------------------------------

export const OVERLAY: readonly OverlayEntry[] = [
  // -- errors --
  {
    name: "Graph's error object carries error_data {messaging_product, details}",
    source: `${WA}/support/error-codes (the error response syntax and its examples, e.g. meta-pages/error-response.130429.json)`,
    apply(spec) {
      addProperties(
        schemaAt(spec, 'GraphAPIError/properties/error'),
        {
          error_data: {
            type: 'object',
            properties: { messaging_product: { type: 'string', enum: ['whatsapp'] }, details: STRING },
            required: ['details'],
          },
        },
        'GraphAPIError.error',
      );
    },
  },
  {
    name: "the Marketing Messages API's error answers (ErrorObject) are Graph's error object",
    source:
      'defect: /marketing_messages declares 400/401/403 as ErrorResponse → ErrorObject {message, type, code}, without ' +
      `error_subcode, error_data or fbtrace_id that every Graph error has (${WA}/support/error-codes)`,
    apply(spec) {
      spec.components.schemas.ErrorObject = { $ref: '#/components/schemas/GraphAPIError/properties/error' };
    },
  },
  // -- sends --
  {
    name: 'a send answer names the user it reached by contacts[].user_id (and input only for a send to a user ID)',
    source: `${BSUID_PAGE} (send responses; meta-pages/bsuid-2026.send-response.*.json, bsuid-2026.marketing-send-response.*.json)`,
    apply(spec) {
      for (const name of ['MessageResponsePayload', 'MarketingMessageResponsePayload']) {
        addProperties(schemaAt(spec, `${name}/properties/contacts/items`), { user_id: BSUID }, `${name}.contacts[]`);
      }
    },
  },
  {
    name: 'a send may name its recipient by `recipient` (a business-scoped user ID) instead of `to`',
    source: `${BSUID_PAGE} ("Send message requests" syntax, meta-pages/bsuid-2026.send-request.syntax.body.json)`,
    apply(spec) {
      const base = schemaAt(spec, 'BaseMessageProperties');
      addProperties(base, { recipient: STRING }, 'BaseMessageProperties');
      unrequire(base, ['to'], 'BaseMessageProperties');
      base.anyOf = [{ required: ['to'] }, { required: ['recipient'] }];
    },
  },
  {
    name: 'POST …/messages also marks a user’s message as read: MarkMessageRequestPayload in, MarkMessageResponsePayload out',
    source:
      `${WA}/messages/mark-message-as-read (meta-pages/mark-as-read.request.json, mark-as-read.response.json); ` +
      'the spec defines both schemas but no operation uses them',
    apply(spec) {
      const operation = operationAt(spec, '/{Version}/{Phone-Number-ID}/messages', 'post');
      const content = ((operation.requestBody as Json).content as Record<string, Json>)['application/json'] as Json;
      content.schema = { oneOf: [ref('Message'), ref('MarkMessageRequestPayload')] };
      const ok = (operation.responses as Record<string, Json>)['200'] as Json;
      ((ok.content as Record<string, Json>)['application/json'] as Json).schema = {
        oneOf: [ref('MessageResponsePayload'), ref('MarkMessageResponsePayload')],
      };
      schemaAt(spec, 'MarkMessageRequestPayload/properties/status').enum = ['read'];
    },
  },

  // -- template sends: the kinds of template Meta's pages document beyond the spec's header, body and button --
  // (the same TemplateObject is the `template` of /messages and of /marketing_messages, MarketingMessageRequestPayload)
  {
    name: 'a button’s index is an integer or a string, 0 to 9',
    source:
      `${WA}/templates/marketing-templates/coupon-templates, ${WA}/templates/marketing-templates/limited-time-offer-templates, ` +
      `${WA}/catalogs/catalog-template-messages and ${WA}/catalogs/mpm-template-messages send "index": 0 (<BUTTON_INDEX> an ` +
      `Integer); ${WA}/templates/authentication-templates/copy-code-button-authentication-templates and ` +
      `${WA}/flows/guides/sendingaflow send "index": "0", the spec's type`,
    apply(spec) {
      const index = {
        oneOf: [
          { type: 'string', pattern: '^[0-9]$' },
          { type: 'integer', minimum: 0, maximum: 9 },
        ],
      };
      for (const path of ['TemplateComponent/properties', 'ButtonComponent/allOf/1/properties']) {
        const properties = schemaAt(spec, path);
        if ((properties.index as Json | undefined)?.type !== 'string') throw new Error(`overlay: ${path}/index is no longer a string`);
        properties.index = index;
      }
    },
  },
  {
    name: 'a limited_time_offer component: one parameter {type: limited_time_offer, limited_time_offer: {expiration_time_ms}}',
    source: `${WA}/templates/marketing-templates/limited-time-offer-templates ("Sending limited-time offer templates")`,
    apply(spec) {
      addKind(spec, 'ParameterObject', 'limited_time_offer', 'LimitedTimeOfferParameter', {
        required: ['limited_time_offer'],
        properties: {
          limited_time_offer: { type: 'object', required: ['expiration_time_ms'], properties: { expiration_time_ms: INTEGER } },
        },
      });
      addKind(spec, 'TemplateComponent', 'limited_time_offer', 'LimitedTimeOfferComponent', {
        required: ['parameters'],
        properties: {
          parameters: { type: 'array', minItems: 1, maxItems: 1, items: ref('LimitedTimeOfferParameter') },
          sub_type: false,
          index: false,
        },
      });
    },
  },
  {
    name: 'a carousel component: cards [{card_index, components}], each card’s own header (image, video or product), body and buttons',
    source:
      `${WA}/templates/marketing-templates/media-card-carousel-templates ("Sending media card carousel templates": ` +
      `card_index "Required. Zero-indexed order", 2 to 10 cards) and ${WA}/catalogs/product-card-carousel-template-messages ` +
      '(up to 10 cards, each a product header)',
    apply(spec) {
      addKind(spec, 'TemplateComponent', 'carousel', 'CarouselComponent', {
        required: ['cards'],
        properties: {
          cards: { type: 'array', minItems: 1, maxItems: 10, items: ref('CarouselCard') },
          parameters: false,
          sub_type: false,
          index: false,
        },
      });
      addSchema(spec, 'CarouselCard', {
        type: 'object',
        required: ['card_index', 'components'],
        properties: {
          card_index: { type: 'integer', minimum: 0, maximum: 9 },
          components: { type: 'array', minItems: 1, items: ref('CarouselCardComponent') },
        },
      });
      // A card's component is checked against the schema of its type here (ajv applies no discriminator).
      const byType = (type: string, then: Json): Json => ({ if: { properties: { type: { const: type } } }, then });
      addSchema(spec, 'CarouselCardComponent', {
        type: 'object',
        required: ['type'],
        properties: { type: { type: 'string', enum: ['header', 'body', 'button'] } },
        allOf: [
          byType('header', {
            $ref: '#/components/schemas/HeaderComponent',
            properties: { parameters: { maxItems: 1, items: { properties: { type: { enum: ['image', 'video', 'product'] } } } } },
          }),
          byType('body', ref('BodyComponent')),
          byType('button', ref('ButtonComponent')),
        ],
      });
    },
  },
  {
    name: 'a copy_code button: one parameter {type: coupon_code, coupon_code} (at most 20 characters)',
    source:
      `${WA}/templates/marketing-templates/coupon-templates ` +
      `("Sending coupon code templates": <COUPON_CODE> "Required… Maximum 20 characters")`,
    apply(spec) {
      addSubTypes(spec, ['copy_code']);
      addKind(spec, 'ButtonParameterObject', 'coupon_code', 'ButtonCouponCodeParameter', {
        required: ['coupon_code'],
        properties: { coupon_code: { type: 'string', minLength: 1, maxLength: 20 } },
      });
      addButtonRule(spec, ['copy_code'], oneParameter(ref('ButtonCouponCodeParameter')));
    },
  },
  {
    name: 'a button parameter of type `action`: {type: action, action: {…}}, the keys of its button’s page (entries below)',
    source:
      `${WA}/catalogs/catalog-template-messages, ${WA}/catalogs/mpm-template-messages and ${WA}/flows/guides/sendingaflow ` +
      '(each button sends one parameter {"type": "action", "action": {…}})',
    apply(spec) {
      addKind(spec, 'ButtonParameterObject', 'action', 'ButtonActionParameter', {
        required: ['action'],
        properties: { action: { type: 'object', properties: {} } },
      });
    },
  },
  {
    name: 'a catalog button (sub_type catalog, or CATALOG as its page writes it): action {thumbnail_product_retailer_id?}',
    source: `${WA}/catalogs/catalog-template-messages ("sub_type": "CATALOG"; <THUMBNAIL_PRODUCT_RETAILER_ID> "Optional")`,
    apply(spec) {
      addSubTypes(spec, ['CATALOG']);
      addProperties(schemaAt(spec, 'ButtonActionParameter/allOf/1/properties/action'), { thumbnail_product_retailer_id: STRING }, 'action');
      addButtonRule(spec, ['catalog', 'CATALOG'], oneParameter(actionWith(['thumbnail_product_retailer_id'])));
    },
  },
  {
    name: 'an mpm button: action {thumbnail_product_retailer_id, sections [{title, product_items [{product_retailer_id}]}]}',
    source:
      `${WA}/catalogs/mpm-template-messages ("Sending multi-product message templates": up to 10 sections, a title of at most 24 ` +
      'characters, up to 30 products); a title is required when there is more than one section, as SectionObject has it',
    apply(spec) {
      addSubTypes(spec, ['mpm']);
      const item = { type: 'object', required: ['product_retailer_id'], properties: { product_retailer_id: STRING } };
      const section = {
        type: 'object',
        required: ['product_items'],
        properties: { title: { type: 'string', maxLength: 24 }, product_items: { type: 'array', minItems: 1, maxItems: 30, items: item } },
      };
      const sections = {
        type: 'array',
        minItems: 1,
        maxItems: 10,
        items: section,
        if: { minItems: 2 },
        then: { items: { required: ['title'] } },
      };
      addProperties(schemaAt(spec, 'ButtonActionParameter/allOf/1/properties/action'), { sections }, 'action');
      addButtonRule(spec, ['mpm'], oneParameter(actionWith(['thumbnail_product_retailer_id', 'sections'], ['sections'])));
    },
  },
  {
    name: 'a flow button: action {flow_token?, flow_action_data?}',
    source: `${WA}/flows/guides/sendingaflow ("Send template with flow": flow_token optional, default "unused"; flow_action_data optional)`,
    apply(spec) {
      addSubTypes(spec, ['flow']);
      addProperties(
        schemaAt(spec, 'ButtonActionParameter/allOf/1/properties/action'),
        { flow_token: STRING, flow_action_data: { type: 'object' } },
        'action',
      );
      addButtonRule(spec, ['flow'], oneParameter(actionWith(['flow_token', 'flow_action_data'])));
    },
  },
  {
    name: 'a voice_call button: no index, parameters {type: ttl_minutes, ttl_minutes} and {type: payload, payload}, each optional',
    source:
      `${WA}/calling/call-button-messages-deep-links (the send example, "a simplified sample", has no index; ttl_minutes 1 to ` +
      '43200 and a payload of at most 512 characters, both Optional)',
    apply(spec) {
      addSubTypes(spec, ['voice_call']);
      addKind(spec, 'ButtonParameterObject', 'ttl_minutes', 'ButtonTtlMinutesParameter', {
        required: ['ttl_minutes'],
        properties: { ttl_minutes: { type: 'integer', minimum: 1, maximum: 43200 } },
      });
      const button = schemaAt(spec, 'ButtonComponent');
      unrequire(schemaAt(spec, 'ButtonComponent/allOf/1'), ['index'], 'ButtonComponent');
      (button.allOf as Json[]).push({
        if: { required: ['sub_type'], properties: { sub_type: { const: 'voice_call' } } },
        else: { required: ['index'] },
      });
      const payload = { $ref: '#/components/schemas/ButtonPayloadParameter', properties: { payload: { maxLength: 512 } } };
      addButtonRule(spec, ['voice_call'], {
        properties: { parameters: { maxItems: 2, items: { oneOf: [ref('ButtonTtlMinutesParameter'), payload] } } },
      });
    },
  },
  {
    name: 'a location header parameter: {type: location, location: {latitude, longitude, name?, address?}}',
    source:
      `${WA}/templates/utility-templates/location-templates (latitude and longitude "Required", in decimal degrees, written as ` +
      `strings; name and address "Optional") and ${WA}/templates/components (location header)`,
    apply(spec) {
      const degrees = { type: ['string', 'number'], pattern: '^[-+]?[0-9]+(\\.[0-9]+)?$' };
      addKind(spec, 'ParameterObject', 'location', 'LocationParameter', {
        required: ['location'],
        properties: {
          location: {
            type: 'object',
            required: ['latitude', 'longitude'],
            properties: { latitude: degrees, longitude: degrees, name: STRING, address: STRING },
          },
        },
      });
    },
  },
  {
    name: 'a product header parameter: {type: product, product: {product_retailer_id, catalog_id}}',
    source:
      `${WA}/catalogs/spm-template-messages (<CATALOG_ID> and <PRODUCT_ID> "Required") and ` +
      `${WA}/catalogs/product-card-carousel-template-messages (each card's product header)`,
    apply(spec) {
      addKind(spec, 'ParameterObject', 'product', 'ProductParameter', {
        required: ['product'],
        properties: {
          product: {
            type: 'object',
            required: ['product_retailer_id', 'catalog_id'],
            properties: { product_retailer_id: STRING, catalog_id: STRING },
          },
        },
      });
    },
  },
  {
    name: 'a gif header parameter: {type: gif, gif: {id | link}} (Marketing Messages API)',
    source:
      `${WA}/templates/components (media headers: "Gifs are only available for Marketing Messages API for WhatsApp", mp4 of at ` +
      `most 3.5 MB) and ${WA}/marketing-messages/features; Meta's pages show no send of it: the shape is that of image and video`,
    apply(spec) {
      addKind(spec, 'ParameterObject', 'gif', 'GifParameter', { required: ['gif'], properties: { gif: ref('MediaObject') } });
    },
  },
  {
    name: 'a document header parameter may name its file: document {id | link, filename?}',
    source:
      `${WA}/messages/document-messages (<MEDIA_FILENAME> "Optional. Document filename, with extension") and ` +
      `${WA}/templates/template-media (a document header is a document, by id or link)`,
    apply(spec) {
      const media = structuredClone(schemaAt(spec, 'MediaObject'));
      for (const member of media.oneOf as Json[]) addProperties(member, { filename: STRING }, 'MediaObject (for a document)');
      addSchema(spec, 'DocumentMediaObject', media);
      const document = schemaAt(spec, 'DocumentParameter/allOf/1/properties/document');
      if (document.$ref !== '#/components/schemas/MediaObject')
        throw new Error('overlay: DocumentParameter.document is no longer a MediaObject');
      document.$ref = '#/components/schemas/DocumentMediaObject';
    },
  },

  // -- phone numbers, business accounts, media --
  {
    name: 'a Graph node answers only the fields asked for (`fields`) and its id: no other field is required',
    source:
      'defect: WhatsAppAccountNumber and WhatsAppBusinessAccount require fields Graph leaves out when `fields` names others ' +
      '(https://developers.facebook.com/docs/graph-api/overview, "Fields": a node answers the fields `fields` names, and its id)',
    apply(spec) {
      unrequire(schemaAt(spec, 'WhatsAppAccountNumber'), ['display_phone_number', 'status'], 'WhatsAppAccountNumber');
      unrequire(schemaAt(spec, 'WhatsAppBusinessAccount'), ['name'], 'WhatsAppBusinessAccount');
    },
  },
  {
    name: 'a phone number’s messaging limit: whatsapp_business_manager_messaging_limit (v24.0+), messaging_limit_tier null, the 2K tier',
    source: `${WA}/messaging-limits (reference cloud-api-2026.md §2 and §6)`,
    apply(spec) {
      const number = schemaAt(spec, 'WhatsAppAccountNumber');
      addProperties(number, { whatsapp_business_manager_messaging_limit: { type: 'string', enum: TIERS } }, 'WhatsAppAccountNumber');
      (number.properties as Json).messaging_limit_tier = { type: ['string', 'null'], enum: [...TIERS, null] };
    },
  },
  {
    name: 'a phone number’s throughput: {level}',
    source: `${WA}/throughput (GET /<PHONE_NUMBER_ID>?fields=throughput answers {throughput: {level}}; reference cloud-api.md §4)`,
    apply(spec) {
      addProperties(
        schemaAt(spec, 'WhatsAppAccountNumber'),
        { throughput: { type: 'object', properties: { level: { type: 'string', enum: ['STANDARD', 'HIGH', 'NOT_APPLICABLE'] } } } },
        'WhatsAppAccountNumber',
      );
    },
  },
  {
    name: 'a WABA’s pricing_analytics field',
    source:
      'https://developers.facebook.com/docs/graph-api/reference/whats-app-business-account/pricing_analytics/ ' +
      '(reference cloud-api-2026.md §1)',
    apply(spec) {
      addProperties(
        schemaAt(spec, 'WhatsAppBusinessAccount'),
        {
          pricing_analytics: {
            type: 'object',
            properties: {
              data: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    data_points: {
                      type: 'array',
                      items: {
                        type: 'object',
                        properties: {
                          start: INTEGER,
                          end: INTEGER,
                          volume: INTEGER,
                          cost: { type: 'number' },
                          country: STRING,
                          phone_number: STRING,
                          pricing_category: STRING,
                          pricing_type: STRING,
                          tier: STRING,
                        },
                        required: ['start', 'end'],
                      },
                    },
                  },
                },
              },
              paging: ref('GraphCursorPaging'),
            },
          },
        },
        'WhatsAppBusinessAccount',
      );
    },
  },
  {
    name: 'the media URL of GET /{media-id} is a path of its own (…/whatsapp_business/attachments/?mid=…&ext=…&hash=…): the file, or 404',
    source:
      `${WA}/business-phone-numbers/media ("Download media": the URL, and "If the download attempt fails, you will receive a 404 ` +
      'Not Found response code"); defect: the spec templates it as /{Version}/{Media-URL}',
    apply(spec) {
      const download = structuredClone(operationAt(spec, '/{Version}/{Media-URL}', 'get'));
      download.responses = { '200': { content: { '*/*': {} } }, '404': { description: 'no body' } };
      download.parameters = ['mid', 'ext', 'hash'].map((name) => ({ name, in: 'query', required: false, schema: STRING }));
      spec.paths['/whatsapp_business/attachments/'] = { get: download };
    },
  },

  {
    name: 'POST /{Phone-Number-ID}/media takes a `type` part (the file’s MIME type)',
    source: `${WA}/business-phone-numbers/media ("Upload media": file, type, messaging_product)`,
    apply(spec) {
      const op = operationAt(spec, '/{Version}/{Phone-Number-ID}/media', 'post');
      const form = ((op.requestBody as Json).content as Json)['multipart/form-data'] as Json;
      addProperties(form.schema as Json, { type: STRING }, 'the media upload form');
    },
  },

  // -- templates --
  {
    name: 'GET …/message_templates takes fields, limit, after, before and status',
    source: `${WA}/templates/template-management ("Get templates"; reference cloud-api.md §5.1)`,
    apply(spec) {
      addQueryParameters(spec, '/{Version}/{WABA-ID}/message_templates', 'get', {
        fields: STRING,
        limit: { type: 'string', pattern: '^[1-9][0-9]*$' },
        after: STRING,
        before: STRING,
        status: STRING,
      });
    },
  },
  {
    name: 'the message_templates list: every field of a template, and paging.next',
    source:
      `${WA}/templates/template-management and ${WA}/templates/components (template fields, component examples, buttons, ` +
      'cards, limited-time offers; reference cloud-api.md §5.1–5.2); defect: the inline list schema has only some of them',
    apply(spec) {
      addSchema(spec, 'GraphCursorPaging', {
        type: 'object',
        properties: {
          cursors: { type: 'object', properties: { before: STRING, after: STRING } },
          next: { type: 'string', format: 'uri' },
          previous: { type: 'string', format: 'uri' },
        },
      });
      addSchema(spec, 'TemplateButtonDefinition', {
        type: 'object',
        properties: {
          type: STRING,
          text: STRING,
          url: STRING,
          phone_number: STRING,
          example: { oneOf: [STRING, { type: 'array', items: STRING }] },
          otp_type: STRING,
          autofill_text: STRING,
          package_name: STRING,
          signature_hash: STRING,
          supported_apps: { type: 'array', items: { type: 'object', properties: { package_name: STRING, signature_hash: STRING } } },
          flow_id: STRING,
          flow_action: STRING,
          navigate_screen: STRING,
        },
        required: ['type'],
      });
      addSchema(spec, 'TemplateComponentDefinition', {
        type: 'object',
        properties: {
          type: STRING,
          format: STRING,
          text: STRING,
          example: {
            type: 'object',
            properties: {
              header_text: { type: 'array', items: STRING },
              header_handle: { type: 'array', items: STRING },
              body_text: { type: 'array', items: { type: 'array', items: STRING } },
              header_text_named_params: { type: 'array', items: ref('TemplateNamedParameterExample') },
              body_text_named_params: { type: 'array', items: ref('TemplateNamedParameterExample') },
            },
          },
          buttons: { type: 'array', items: ref('TemplateButtonDefinition') },
          cards: {
            type: 'array',
            items: { type: 'object', properties: { components: { type: 'array', items: ref('TemplateComponentDefinition') } } },
          },
          limited_time_offer: { type: 'object', properties: { text: STRING, has_expiration: { type: 'boolean' } } },
          add_security_recommendation: { type: 'boolean' },
          code_expiration_minutes: INTEGER,
        },
        required: ['type'],
      });
      addSchema(spec, 'TemplateNamedParameterExample', {
        type: 'object',
        properties: { param_name: STRING, example: STRING },
        required: ['param_name', 'example'],
      });
      const operation = operationAt(spec, '/{Version}/{WABA-ID}/message_templates', 'get');
      (operation.responses as Record<string, Json>)['200'] = jsonAnswer({
        type: 'object',
        properties: {
          data: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: STRING,
                name: STRING,
                language: STRING,
                status: STRING,
                category: { type: 'string', enum: ['MARKETING', 'UTILITY', 'AUTHENTICATION'] },
                sub_category: STRING,
                previous_category: STRING,
                correct_category: STRING,
                parameter_format: { type: 'string', enum: ['POSITIONAL', 'NAMED'] },
                components: { type: 'array', items: ref('TemplateComponentDefinition') },
                quality_score: {
                  type: 'object',
                  properties: { score: STRING, date: INTEGER, reasons: { type: ['array', 'null'], items: STRING } },
                },
                rejected_reason: STRING,
                message_send_ttl_seconds: INTEGER,
                cta_url_link_tracking_opted_out: { type: 'boolean' },
                library_template_name: STRING,
              },
            },
          },
          paging: ref('GraphCursorPaging'),
        },
      });
    },
  },
  {
    name: 'a listed voice-call button carries its ttl_minutes',
    source:
      `${WA}/calling/call-button-messages-deep-links (the VOICE_CALL button is created with ttl_minutes, 1440 to 43200); ` +
      `a listed template's components are those it was created with (${WA}/templates/template-management, "Get templates")`,
    apply(spec) {
      addProperties(schemaAt(spec, 'TemplateButtonDefinition'), { ttl_minutes: INTEGER }, 'TemplateButtonDefinition');
    },
  },
  {
    name: 'a template edit may set message_send_ttl_seconds',
    source:
      `${WA}/templates/time-to-live (the message_send_ttl_seconds property, which can be changed on an existing template) and ` +
      `${WA}/templates/template-management (a template is edited by POST /<TEMPLATE_ID>)`,
    apply(spec) {
      const operation = operationAt(spec, '/{Version}/{TEMPLATE_ID}', 'post');
      const schema = ((operation.requestBody as Json).content as Record<string, Json>)['application/json'] as Json;
      addProperties(schema.schema as Json, { message_send_ttl_seconds: INTEGER }, 'POST /{TEMPLATE_ID} body');
    },
  },

  // -- webhooks: the change and its envelope --
  {
    name: 'an entry may carry its trigger time (template, capability and other account webhooks)',
    source:
      `${WA}/webhooks/reference/message_template_status_update ` +
      '(and every account-level webhook page: "time": <WEBHOOK_TRIGGER_TIMESTAMP>)',
    apply(spec) {
      addProperties(schemaAt(spec, 'Entry'), { time: INTEGER }, 'Entry');
      schemaAt(spec, 'WebhookPayload/properties/object').enum = ['whatsapp_business_account'];
    },
  },
  {
    name: 'a change is checked against the value schema of its field (and, for messages, of its content)',
    source:
      'defect: Change allows only the messages and group fields, and its value is a oneOf whose failures cannot say which value ' +
      "was meant; Meta's webhook reference has a page per field (WA/webhooks/reference/…), listed in the entries below",
    apply(spec) {
      const byField = Object.entries(WEBHOOK_VALUE_SCHEMAS).map(([field, schema]) => ({
        if: { properties: { field: { const: field } } },
        then: { properties: { value: ref(schema) } },
      }));
      const groupFields = ['group_lifecycle_update', 'group_settings_update', 'group_participant_update'];
      spec.components.schemas.Change = {
        type: 'object',
        properties: {
          field: { type: 'string', enum: ['messages', ...groupFields, ...Object.keys(WEBHOOK_VALUE_SCHEMAS)] },
          value: { type: 'object' },
        },
        required: ['value', 'field'],
        allOf: [
          { if: { properties: { field: { const: 'messages' } } }, then: { properties: { value: ref('MessagesChangeValue') } } },
          { if: { properties: { field: { enum: groupFields } } }, then: { properties: { value: ref('GroupValue') } } },
          ...byField,
        ],
      };
      // A messages change carries statuses, or messages (system ones apart), or, alone, account-level errors.
      addSchema(spec, 'MessagesChangeValue', {
        if: { required: ['statuses'] },
        then: ref('StatusMessageValue'),
        else: {
          if: {
            required: ['messages'],
            properties: { messages: { contains: { required: ['type'], properties: { type: { const: 'system' } } } } },
          },
          then: ref('IncomingMessageValueSystem'),
          else: { if: { required: ['messages'] }, then: ref('IncomingMessageValueGeneral'), else: ref('AccountErrorsValue') },
        },
      });
    },
  },
  {
    name: 'value.errors: account-, app- and system-level errors, a messages change with nothing else',
    source: `${WA}/webhooks/reference/messages/errors (meta-pages/errors-webhook.*.json)`,
    apply(spec) {
      addSchema(spec, 'AccountErrorsValue', {
        type: 'object',
        properties: {
          messaging_product: { type: 'string', enum: ['whatsapp'] },
          metadata: ref('Metadata'),
          errors: { type: 'array', minItems: 1, items: ref('WebhookError') },
        },
        required: ['messaging_product', 'metadata', 'errors'],
      });
      // StatusError's shape, with what the errors page requires; its href is a path ("/documentation/…"), not a URI.
      addSchema(spec, 'WebhookError', {
        type: 'object',
        properties: {
          code: INTEGER,
          title: STRING,
          message: STRING,
          error_data: { type: 'object', properties: { details: STRING }, required: ['details'] },
          href: STRING,
        },
        required: ['code', 'title', 'message', 'error_data'],
      });
    },
  },

  // -- webhooks: statuses --
  {
    name: 'a status change names its recipients in value.contacts (wa_id, user_id, parent_user_id, profile.username), beside the statuses',
    source: `${BSUID_PAGE} (status webhooks; meta-pages/bsuid-2026.status.syntax.json, bsuid-2026.status-delivered.*.json)`,
    apply(spec) {
      addSchema(spec, 'WebhookContact', {
        type: 'object',
        properties: {
          profile: { type: 'object', properties: { name: STRING, username: STRING } },
          wa_id: STRING,
          user_id: BSUID,
          parent_user_id: BSUID,
        },
      });
      addProperties(
        schemaAt(spec, 'StatusMessageValue'),
        { contacts: { type: 'array', items: ref('WebhookContact') } },
        'StatusMessageValue',
      );
    },
  },
  {
    name: 'a status names its recipient by recipient_user_id and recipient_parent_user_id; no recipient_id when the phone is hidden',
    source: `${BSUID_PAGE} (meta-pages/bsuid-2026.status.syntax.json, bsuid-2026.status-delivered.to-bsuid.parent-bsuid.no-phone.json)`,
    apply(spec) {
      const statuses = schemaAt(spec, 'Statuses');
      addProperties(statuses, { recipient_user_id: BSUID, recipient_parent_user_id: BSUID }, 'Statuses');
      unrequire(statuses, ['recipient_id'], 'Statuses');
    },
  },
  {
    name: 'a status of a group message: recipient_type, recipient_participant_id; recipient_identity_key_hash',
    source: `${STATUS_PAGE} (syntax; meta-pages/status-page.syntax.json)`,
    apply(spec) {
      addProperties(
        schemaAt(spec, 'Statuses'),
        {
          recipient_type: { type: 'string', enum: ['individual', 'group'] },
          recipient_participant_id: STRING,
          recipient_identity_key_hash: STRING,
        },
        'Statuses',
      );
    },
  },
  {
    name: 'pricing.category: the status page’s values, marketing_lite (Marketing Messages API) included',
    source:
      `${STATUS_PAGE} (<PRICING_CATEGORY>) and ${WA}/marketing-messages/send-marketing-messages ` +
      '(statuses of its sends carry pricing.category marketing_lite)',
    apply(spec) {
      schemaAt(spec, 'Pricing/properties/category').enum = [
        'authentication',
        'authentication-international',
        'authentication_international',
        'marketing',
        'marketing_lite',
        'referral_conversion',
        'service',
        'utility',
      ];
    },
  },

  // -- webhooks: inbound messages --
  {
    name: 'an inbound message’s sender by from_user_id and from_parent_user_id; `from` left out when the phone is hidden; group_id',
    source: `${BSUID_PAGE} (meta-pages/bsuid-2026.incoming-text.syntax.json, bsuid-2026.incoming-text.username-no-phone.parent-bsuid.json)`,
    apply(spec) {
      const base = schemaAt(spec, 'BaseMessageProperties_1');
      addProperties(base, { from_user_id: BSUID, from_parent_user_id: BSUID, group_id: STRING }, 'BaseMessageProperties_1');
      unrequire(base, ['from'], 'BaseMessageProperties_1');
    },
  },
  {
    name: 'an inbound message’s contacts[]: user_id, parent_user_id, profile.username; wa_id left out when the phone is hidden',
    source: `${BSUID_PAGE} (meta-pages/bsuid-2026.incoming-text.syntax.json)`,
    apply(spec) {
      const contact = schemaAt(spec, 'ContactProfile');
      addProperties(contact, { user_id: BSUID, parent_user_id: BSUID }, 'ContactProfile');
      addProperties(schemaAt(spec, 'ContactProfile/properties/profile'), { username: STRING }, 'ContactProfile.profile');
    },
  },
  {
    name: 'an interactive message may be a Flow’s answer: interactive.type nfm_reply, nfm_reply {name, body, response_json}',
    source:
      `${WA}/flows/guides/receiveflowresponse (updated 2025-10-03: the response message webhook, "type": "nfm_reply", ` +
      `response_json a JSON string) and ${WA}/flows/guides/flowswebhooks (the Flow response message webhook)`,
    apply(spec) {
      const interactive = schemaAt(spec, 'InteractiveMessageReply/allOf/1/properties/interactive');
      const type = schemaAt(spec, 'InteractiveMessageReply/allOf/1/properties/interactive/properties/type');
      const types = Array.isArray(type.enum) ? (type.enum as string[]) : [];
      if (types.includes('nfm_reply')) throw new Error('overlay: InteractiveMessageReply.interactive.type already has nfm_reply');
      type.enum = [...types, 'nfm_reply'];
      const nfmReply = { type: 'object', properties: { name: STRING, body: STRING, response_json: STRING }, required: ['response_json'] };
      addProperties(interactive, { nfm_reply: nfmReply }, 'InteractiveMessageReply.interactive');
    },
  },
  {
    name: 'the system message user_changed_user_id: system.user_id, parent_user_id, previous_user_id, previous_parent_user_id',
    source:
      `${BSUID_PAGE} (meta-pages/bsuid-2026.system.syntax.json) and ${WA}/webhooks/reference/messages/system ` +
      '(updated 2026-08-11: user_changed_user_id, with system.previous_user_id and previous_parent_user_id)',
    apply(spec) {
      const system = schemaAt(spec, 'SystemMessage/allOf/1/properties/system');
      addProperties(
        system,
        { user_id: BSUID, parent_user_id: BSUID, previous_user_id: BSUID, previous_parent_user_id: BSUID },
        'SystemMessage.system',
      );
      schemaAt(spec, 'SystemMessage/allOf/1/properties/system/properties/type').enum = ['user_changed_number', 'user_changed_user_id'];
    },
  },

  // -- webhooks: other fields --
  {
    name: 'user_preferences: a user stopped or resumed marketing messages',
    source:
      `${WA}/webhooks/reference/user_preferences (meta-pages/user-preferences.*.json) and ` +
      `${BSUID_PAGE} (meta-pages/bsuid-2026.user-preferences.syntax.json)`,
    apply(spec) {
      addSchema(spec, 'UserPreferencesValue', {
        type: 'object',
        properties: {
          messaging_product: { type: 'string', enum: ['whatsapp'] },
          metadata: ref('Metadata'),
          contacts: { type: 'array', items: ref('WebhookContact') },
          user_preferences: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              properties: {
                wa_id: STRING,
                user_id: BSUID,
                parent_user_id: BSUID,
                detail: STRING,
                category: { type: 'string', enum: ['marketing_messages'] },
                value: { type: 'string', enum: ['stop', 'resume'] },
                timestamp: INTEGER,
              },
              required: ['detail', 'category', 'value', 'timestamp'],
              anyOf: [{ required: ['wa_id'] }, { required: ['user_id'] }],
            },
          },
        },
        required: ['messaging_product', 'metadata', 'user_preferences'],
      });
    },
  },
  {
    name: 'user_preferences value `signup`, with its signup_id (In-App Signup)',
    source:
      `${WA}/changelog (entry of 2026-06-03, In-App Signup opt-in links; reference cloud-api-2026.md §5); the user_preferences ` +
      'page itself shows no signup example (SOURCES.md §3)',
    apply(spec) {
      const item = schemaAt(spec, 'UserPreferencesValue/properties/user_preferences/items');
      (schemaAt(spec, 'UserPreferencesValue/properties/user_preferences/items/properties/value').enum as string[]).push('signup');
      addProperties(item, { signup_id: STRING }, 'user_preferences[]');
    },
  },
  {
    name: 'message_template_status_update',
    source: `${WA}/webhooks/reference/message_template_status_update (meta-pages/template-status.*.json)`,
    apply(spec) {
      addSchema(spec, 'TemplateStatusValue', {
        type: 'object',
        properties: {
          event: STRING,
          message_template_id: INTEGER,
          message_template_name: STRING,
          message_template_language: STRING,
          reason: STRING,
          message_template_category: STRING,
          disable_info: { type: 'object', properties: { disable_date: INTEGER } },
          other_info: { type: 'object', properties: { title: STRING, description: STRING } },
          rejection_info: { type: 'object', properties: { reason: STRING, recommendation: STRING } },
        },
        required: ['event', 'message_template_id', 'message_template_name', 'message_template_language'],
      });
    },
  },
  {
    name: 'message_template_quality_update',
    source: `${WA}/webhooks/reference/message_template_quality_update (meta-pages/template-quality.*.json)`,
    apply(spec) {
      const score = { type: 'string', enum: ['GREEN', 'YELLOW', 'RED', 'UNKNOWN'] };
      addSchema(spec, 'TemplateQualityValue', {
        type: 'object',
        properties: {
          previous_quality_score: score,
          new_quality_score: score,
          message_template_id: INTEGER,
          message_template_name: STRING,
          message_template_language: STRING,
        },
        required: [
          'previous_quality_score',
          'new_quality_score',
          'message_template_id',
          'message_template_name',
          'message_template_language',
        ],
      });
    },
  },
  {
    name: 'template_category_update',
    source: `${WA}/webhooks/reference/template_category_update (meta-pages/template-category.*.json)`,
    apply(spec) {
      const category = { type: 'string', enum: ['MARKETING', 'UTILITY', 'AUTHENTICATION'] };
      addSchema(spec, 'TemplateCategoryValue', {
        type: 'object',
        properties: {
          message_template_id: INTEGER,
          message_template_name: STRING,
          message_template_language: STRING,
          previous_category: category,
          new_category: category,
          correct_category: category,
          category_update_timestamp: INTEGER,
        },
        required: ['message_template_id', 'message_template_name', 'message_template_language', 'new_category'],
      });
    },
  },
  {
    name: 'business_capability_update',
    source: `${WA}/webhooks/reference/business_capability_update (meta-pages/business-capability-update*.json)`,
    apply(spec) {
      addSchema(spec, 'BusinessCapabilityValue', {
        type: 'object',
        properties: {
          max_daily_conversation_per_phone: INTEGER,
          max_daily_conversations_per_business: INTEGER,
          max_phone_numbers_per_business: INTEGER,
          max_phone_numbers_per_waba: INTEGER,
        },
        minProperties: 1,
      });
    },
  },

  // -- last, so that it covers the operations added above --
  {
    name: 'an error status an operation does not declare is answered with Graph’s error object (OpenAPI `default`)',
    source:
      'defect: most operations declare only their 200 (POST …/messages among them), yet Graph answers every failure with ' +
      `its error envelope (${WA}/support/error-codes, "Error response syntax"); the check uses GraphAPIError for them`,
    apply(spec) {
      // OpenAPI's `default` response; the capture check reads it for error statuses (>= 400) only.
      for (const item of Object.values(spec.paths)) {
        for (const operation of Object.values(item)) {
          if (!isObject(operation) || !isObject(operation.responses)) continue;
          operation.responses.default ??= jsonAnswer(ref('GraphAPIError'));
        }
      }
    },
  },
];

/** A copy of `spec` with every entry applied. */
export function overlaid(spec: OpenApiDocument): OpenApiDocument {
  const copy = structuredClone(spec);
  for (const entry of OVERLAY) entry.apply(copy);
  return copy;
}
