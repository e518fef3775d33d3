import { describe, expect, it } from 'vitest';
import { expectMissingField } from './sandbox-fixtures.js';
import { action, body, button, check, expectAccepted, expectMetaError, header, product, text } from './sandbox-kinds-support.js';

/**
 * The button kinds of Meta's pages, sent to the sample templates (samples/templates.json): the
 * example of each page as Meta prints it is taken, and what the kind requires, when missing or
 * malformed, is refused with Meta's code in Meta's envelope.
 */
const coupon = (code: unknown = 'WINTER25', index: unknown = 1) => button('copy_code', index, { type: 'coupon_code', coupon_code: code });
const couponBody = body(text('WINTER25', 'coupon_code'), text('30%', 'discount'));

describe('coupon code (templates/marketing-templates/coupon-templates)', () => {
  it("takes Meta's example: named body parameters and the copy-code button at integer index 1", () => {
    expectAccepted(check('coupon_offer', [couponBody, coupon()]));
    expectAccepted(check('coupon_offer', [couponBody, coupon('WINTER25', '1')]));
    // The quick reply at index 0 may carry a payload too.
    const unsubscribe = button('quick_reply', 0, { type: 'payload', payload: 'UNSUBSCRIBE' });
    expectAccepted(check('coupon_offer', [couponBody, unsubscribe, coupon()]));
  });

  it('refuses a send without the coupon code (131008), in Meta’s words', () => {
    expectMetaError(check('coupon_offer', [couponBody]), 131008, 'buttons: Button at index 1 of type CopyCode requires a parameter');
  });

  it('takes 20 characters and refuses 21 (100: "Maximum 20 characters"), an empty code (131008) and no code key', () => {
    expectAccepted(check('coupon_offer', [couponBody, coupon('C'.repeat(20))]));
    expectMetaError(
      check('coupon_offer', [couponBody, coupon('C'.repeat(21))]),
      100,
      'button 1: coupon_code has 21 characters; the maximum is 20',
    );
    expectMetaError(check('coupon_offer', [couponBody, coupon('')]), 131008, /coupon_code is missing its value/);
    expectMissingField(
      check('coupon_offer', [couponBody, button('copy_code', 1, { type: 'coupon_code' })]),
      'button 1.parameters[0].coupon_code',
    );
  });

  it('answers 132012 for a text parameter, 132018 for another sub_type at its index, 132000 for two codes', () => {
    expectMetaError(
      check('coupon_offer', [couponBody, button('copy_code', 1, text('WINTER25'))]),
      132012,
      'button 1: Format mismatch, expected COUPON_CODE, received TEXT',
    );
    expectMetaError(
      check('coupon_offer', [couponBody, button('quick_reply', 1, { type: 'payload', payload: 'X' })]),
      132018,
      'buttons: Button at index 1 must be of type CopyCode',
    );
    const two = button('copy_code', 1, { type: 'coupon_code', coupon_code: 'A' }, { type: 'coupon_code', coupon_code: 'B' });
    expectMetaError(check('coupon_offer', [couponBody, two]), 132000, 'button 1 (copy_code): expected 1 parameters, got 2');
  });
});

describe('catalog (catalogs/catalog-template-messages)', () => {
  const catalogBody = body(text('100'), text('400'), text('3'));

  it('takes Meta\'s example (sub_type "CATALOG", index 0, a thumbnail), lower case, and no component at all', () => {
    expectAccepted(check('catalog_intro', [catalogBody, button('CATALOG', 0, action({ thumbnail_product_retailer_id: '2lc20305pt' }))]));
    expectAccepted(check('catalog_intro', [catalogBody, button('catalog', '0', action({ thumbnail_product_retailer_id: '2lc20305pt' }))]));
    // "If the parameters object is omitted, the product image of the first item in your catalog will be used."
    expectAccepted(check('catalog_intro', [catalogBody]));
    expectAccepted(check('catalog_intro', [catalogBody, { type: 'button', sub_type: 'catalog', index: 0 }]));
    expectAccepted(check('catalog_intro', [catalogBody, button('catalog', 0, action({}))]));
  });

  it('refuses an unknown action key (100), an empty thumbnail (131008) and a payload parameter (132012)', () => {
    expectMetaError(
      check('catalog_intro', [catalogBody, button('catalog', 0, action({ sections: [] }))]),
      100,
      /Unexpected key "sections"/,
    );
    expectMetaError(
      check('catalog_intro', [catalogBody, button('catalog', 0, action({ thumbnail_product_retailer_id: '' }))]),
      131008,
      /thumbnail/,
    );
    expectMetaError(
      check('catalog_intro', [catalogBody, button('catalog', 0, { type: 'payload', payload: 'x' })]),
      132012,
      'button 0: Format mismatch, expected ACTION, received PAYLOAD',
    );
  });
});

describe('multi-product (catalogs/mpm-template-messages)', () => {
  const sections = [
    { title: 'Popular Bundles', product_items: [{ product_retailer_id: '2lc20305pt' }, { product_retailer_id: 'nseiw1x3ch' }] },
    { title: 'Premium Packages', product_items: [{ product_retailer_id: 'n6k6x0y7oe' }] },
  ];
  const mpm = (value: Record<string, unknown>) => [header(text('Pablo')), body(text('10OFF')), button('mpm', 0, action(value))];
  const items = (n: number) => Array.from({ length: n }, (_, i) => ({ product_retailer_id: `sku-${i}` }));

  it("takes Meta's example: a text header, the body and the mpm button with a thumbnail and two sections", () => {
    expectAccepted(check('mpm_abandoned_cart', mpm({ thumbnail_product_retailer_id: '2lc20305pt', sections })));
    // One section needs no title (OpenAPI SectionObject: "Required if the message has more than one section").
    expectAccepted(check('mpm_abandoned_cart', mpm({ thumbnail_product_retailer_id: 'a', sections: [{ product_items: items(30) }] })));
  });

  it('refuses a send without the mpm button (131008) or without its thumbnail or sections (100, required)', () => {
    expectMetaError(
      check('mpm_abandoned_cart', [header(text('Pablo')), body(text('10OFF'))]),
      131008,
      'buttons: Button at index 0 of type Mpm requires a parameter',
    );
    expectMissingField(check('mpm_abandoned_cart', mpm({ sections })), 'button 0.parameters[0].action.thumbnail_product_retailer_id');
    expectMissingField(check('mpm_abandoned_cart', mpm({ thumbnail_product_retailer_id: 'a' })), 'button 0.parameters[0].action.sections');
  });

  it("refuses what breaks Meta's limits with 100: 11 sections, a 25-character title, 31 products, an empty section", () => {
    const thumb = { thumbnail_product_retailer_id: 'a' };
    const section = (title: string, n = 1) => ({ title, product_items: items(n) });
    const eleven = Array.from({ length: 11 }, (_, i) => section(`S${i}`));
    expectMetaError(check('mpm_abandoned_cart', mpm({ ...thumb, sections: eleven })), 100, /1 to 10 sections/);
    expectMetaError(check('mpm_abandoned_cart', mpm({ ...thumb, sections: [section('T'.repeat(25))] })), 100, /at most 24 characters/);
    expectAccepted(check('mpm_abandoned_cart', mpm({ ...thumb, sections: [section('T'.repeat(24), 20), section('U', 10)] })));
    expectMetaError(
      check('mpm_abandoned_cart', mpm({ ...thumb, sections: [section('A', 20), section('B', 11)] })),
      100,
      /31 products; at most 30/,
    );
    expectMetaError(check('mpm_abandoned_cart', mpm({ ...thumb, sections: [section('A', 0)] })), 100, /at least one product/);
    expectMissingField(
      check('mpm_abandoned_cart', mpm({ ...thumb, sections: [section('A'), { product_items: items(1) }] })),
      'button 0.parameters[0].action.sections[1].title',
    );
  });
});

describe('single-product (catalogs/spm-template-messages)', () => {
  const spmBody = body(text('25OFF', 'code'), text('25%', 'percent'));

  it("takes Meta's example: a product header with its catalog, named body parameters, no button component", () => {
    expectAccepted(check('spm_single_product', [header(product('nqryix03ez')), spmBody]));
  });

  it('refuses a product without its catalog_id (both "Required"), another header type (132012) and none (132012)', () => {
    const noCatalog = { type: 'product', product: { product_retailer_id: 'nqryix03ez' } };
    expectMissingField(check('spm_single_product', [header(noCatalog), spmBody]), 'header.parameters[0].product.catalog_id');
    expectMetaError(
      check('spm_single_product', [header({ type: 'image', image: { link: 'https://x.example/a.jpg' } }), spmBody]),
      132012,
      'header: Format mismatch, expected PRODUCT, received IMAGE',
    );
    expectMetaError(check('spm_single_product', [spmBody]), 132012, 'header: Format mismatch, expected PRODUCT, received UNKNOWN');
  });

  it('refuses a component for the View button, which takes none (132000)', () => {
    expectMetaError(
      check('spm_single_product', [header(product('a')), spmBody, button('spm', 0, action({}))]),
      132000,
      'buttons: Button at index 0 of type Spm takes no parameters',
    );
  });
});

describe('authentication (templates/authentication-templates)', () => {
  const auth = (code: string, again: string, index: unknown = '0') => [body(text(code)), button('url', index, text(again))];

  it('takes Meta\'s example: the code in the body and again in the URL button at index "0" (or 0)', () => {
    expectAccepted(check('verification_code', auth('J$FpnYnP', 'J$FpnYnP')));
    expectAccepted(check('verification_code', auth('123456', '123456', 0)));
  });

  it('refuses the code given once (131008), two different codes and a code over 15 characters (100)', () => {
    expectMetaError(
      check('verification_code', [body(text('123456'))]),
      131008,
      'buttons: Button at index 0 of type Url requires a parameter',
    );
    expectMetaError(
      check('verification_code', auth('123456', '654321')),
      100,
      /must appear twice, the same: body \{\{1\}\} and button 0 differ/,
    );
    expectMetaError(check('verification_code', auth('1'.repeat(16), '1'.repeat(16))), 100, /16 characters; the maximum is 15/);
  });
});

describe('Flow (flows/guides/sendingaflow)', () => {
  it('takes Meta\'s example (index "0", a token and first-screen data), an empty action, and no component', () => {
    expectAccepted(check('lead_flow', [button('flow', '0', action({ flow_token: 'FLOW_TOKEN', flow_action_data: {} }))]));
    expectAccepted(check('lead_flow', [button('flow', 0, action({}))]));
    expectAccepted(check('lead_flow', []));
  });

  it('refuses data that is not an object, an unknown key (100), and another sub_type at its index (132018)', () => {
    expectMetaError(
      check('lead_flow', [button('flow', 0, action({ flow_action_data: '{}' }))]),
      100,
      /flow_action_data must be a JSON object/,
    );
    expectMetaError(check('lead_flow', [button('flow', 0, action({ navigate_screen: 'X' }))]), 100, /Unexpected key "navigate_screen"/);
    expectMetaError(check('lead_flow', [button('url', 0, text('x'))]), 132018, 'buttons: Button at index 0 must be of type Flow');
  });
});

describe('quick replies (templates/components)', () => {
  const survey = body(text('Ana'));
  const payload = (index: unknown, value: string) => button('quick_reply', index, { type: 'payload', payload: value });

  it('takes Meta\'s example payload at index "0", any of the buttons with one, or none', () => {
    expectAccepted(check('quick_reply_survey', [survey, payload('0', 'ORDER_DETAILS_CLICKED')]));
    expectAccepted(check('quick_reply_survey', [survey, payload(0, 'GREAT'), payload(1, 'BETTER'), payload('2', 'TALK')]));
    expectAccepted(check('quick_reply_survey', [survey]));
  });

  it('refuses a payload without its value key, a text parameter (132012), an index with no button (132000)', () => {
    expectMissingField(
      check('quick_reply_survey', [survey, button('quick_reply', 0, { type: 'payload' })]),
      'button 0.parameters[0].payload',
    );
    expectMetaError(check('quick_reply_survey', [survey, button('quick_reply', 0, text('x'))]), 132012, /expected PAYLOAD, received TEXT/);
    expectMetaError(check('quick_reply_survey', [survey, payload(3, 'X')]), 132000, 'button 3: template has no button at index 3');
  });
});

describe('phone-number and voice-call buttons', () => {
  const place = header({ type: 'location', location: { latitude: '51.5', longitude: '-0.12' } });
  const invoice = [header({ type: 'document', document: { link: 'https://x.example/inv.pdf' } }), body(text('Ana'), text('INV-1'))];

  it('sends nothing for a phone-number button: there is no sub_type for it', () => {
    expectAccepted(check('store_location', [place, body(text('Ana'), text('A-1'))]));
    expectMetaError(
      check('store_location', [place, body(text('Ana'), text('A-1')), button('phone_number', 0)]),
      100,
      /sub_type has an invalid value/,
    );
  });

  it("takes Meta's voice-call sample (no index, ttl_minutes and payload), or no component; refuses a TTL out of range", () => {
    const call = (...parameters: unknown[]) => ({ type: 'button', sub_type: 'voice_call', parameters });
    expectAccepted(
      check('invoice_document', [
        ...invoice,
        call({ type: 'ttl_minutes', ttl_minutes: 100 }, { type: 'payload', payload: 'payload data' }),
      ]),
    );
    expectAccepted(check('invoice_document', invoice));
    expectMetaError(check('invoice_document', [...invoice, call({ type: 'ttl_minutes', ttl_minutes: 0 })]), 100, /from 1 to 43200/);
    expectMetaError(check('store_location', [place, body(text('Ana'), text('A-1')), call()]), 132000, /no voice-call button/);
  });
});

describe('button index', () => {
  it('takes an integer or a string from "0" to "9" and nothing else', () => {
    const catalogBody = body(text('100'), text('400'), text('3'));
    for (const index of [0, '0']) expectAccepted(check('catalog_intro', [catalogBody, button('catalog', index, action({}))]));
    for (const index of ['00', -1, 0.5, 10, true]) {
      expectMetaError(check('catalog_intro', [catalogBody, button('catalog', index, action({}))]), 100, /index must be 0 to 9/);
    }
    expect(check('catalog_intro', [catalogBody, button('catalog', 1, action({}))]).ok).toBe(false);
  });
});
