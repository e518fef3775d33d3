import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { schemaErrors } from '../support/openapi-schemas.js';
import { send, startTestSandbox, template, text } from './sandbox-helpers.js';

/**
 * A button's `index` as Meta's send examples write it (an integer, `0`) and as its OpenAPI
 * types it (a string, `"0"`): the sandbox takes both, and refuses anything else with 100.
 */
let sandbox: Sandbox | undefined;

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** shipping_update: a text header variable, three body variables, a URL button with one. */
const shipping = (index: unknown, to = '+447700900123') =>
  template(
    'shipping_update',
    [
      { type: 'header', parameters: [text('A-10023')] },
      { type: 'body', parameters: [text('Ana'), text('DHL'), text('tomorrow')] },
      { type: 'button', sub_type: 'url', index, parameters: [text('A-10023')] },
    ],
    to,
  );

describe('sandbox button index (Meta send examples and OpenAPI)', () => {
  it('takes index 0 as an integer and "0" as a string', async () => {
    sandbox = await startTestSandbox();
    expect((await send(sandbox, shipping(0))).status).toBe(200);
    expect((await send(sandbox, shipping('0', '+447700900124'))).status).toBe(200);
    // The string form is the one Meta's OpenAPI describes.
    const component = (shipping('0').template as { components: unknown[] }).components[2];
    expect(schemaErrors('ButtonComponent', component)).toEqual([]);
    expect(sandbox.accepted()).toHaveLength(2);
  });

  it('refuses an index that is neither: 10, -1, 0.5, "00", "a", true, and a missing one', async () => {
    sandbox = await startTestSandbox();
    for (const index of [10, -1, 0.5, '00', 'a', true, undefined]) {
      const reply = await send(sandbox, shipping(index));
      expect(reply.status, String(index)).toBe(400);
      expect(reply.body.error?.code, String(index)).toBe(100);
    }
    // An integer index that names no button is the template's mismatch, as for the string.
    const wrong = await send(sandbox, shipping(5));
    expect(wrong.body.error?.code).toBe(132000);
  });
});
