import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listNumbersRoute, listTemplatesRoute } from '../../src/api/routes/directory-routes.js';
import { addOptOutsRoute, listOptOutsRoute, removeOptOutsRoute } from '../../src/api/routes/optouts-routes.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { documented, refused } from '../support/api-documented.js';
import { answeredCampaign } from '../support/api-campaigns.js';
import { ApiTestService } from '../support/api-service.js';
import { LEDGER_TEST_NUMBER } from '../support/ledger-fixtures.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';

const OTHER = '106540352242923';
const THIRD = '106540352242924';

/** GET /templates, GET /numbers and the opt-outs over real HTTP: what `campaign templates list` and `campaign optouts` show and do. */
describe('HTTP API: templates, numbers and opt-outs', () => {
  const api = new ApiTestService('api-directory');

  beforeAll(async () => {
    await api.start({
      TEMPLATES_FILE: SAMPLE_TEMPLATES,
      WHATSAPP_PHONE_NUMBER_ID: OTHER,
      SEND_RATES: `${OTHER}:20`,
      PORTFOLIOS: `${OTHER}:retail,${THIRD}:retail`,
      SEND_RATE: '50',
    });
  });
  afterAll(async () => {
    await api.close();
  });

  const send = (method: 'POST' | 'DELETE', body: unknown, scope: 'read' | 'send' | 'admin' = 'admin') =>
    api.call('/optouts', { scope, method, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

  it('lists the approved templates with their texts for a preview, and every status with all=true', async () => {
    const listed = (await documented(listTemplatesRoute, await api.call('/templates', { scope: 'read' }), 200)) as {
      templates: { name: string; language: string; status: string }[];
      hidden: number;
    };
    expect(listed.hidden).toBe(2);
    expect(listed.templates.every((t) => t.status === 'APPROVED')).toBe(true);
    expect(listed.templates.find((t) => t.name === 'order_update' && t.language === 'en_US')).toMatchObject({
      category: 'UTILITY',
      parameterFormat: 'POSITIONAL',
      bodyVariables: ['1', '2'],
      parameterCount: 2,
      preview: { header: null, body: 'Hi {{1}}, your order {{2}} has shipped.', footer: 'Questions? Reply to this message.', buttons: [] },
    });
    expect(listed.templates.find((t) => t.name === 'appointment_reminder_named')).toMatchObject({
      parameterFormat: 'NAMED',
      bodyVariables: ['first_name', 'appointment_time'],
    });
    const all = (await documented(listTemplatesRoute, await api.call('/templates?all=true', { scope: 'read' }), 200)) as {
      templates: unknown[];
      hidden: number;
    };
    expect(all).toMatchObject({ hidden: 0 });
    expect(all.templates).toHaveLength(listed.templates.length + 2);
    await refused(await api.call('/templates?all=yes', { scope: 'read' }), 400, 'API_REQUEST_INVALID');
  });

  it('lists the numbers it knows (settings and campaigns) with their send rate and portfolio', async () => {
    await answeredCampaign(new RedisLedger(api.redis, api.prefix), 'c-numbers', ['queued']);
    const answer = await documented(listNumbersRoute, await api.call('/numbers', { scope: 'read' }), 200);
    expect(answer).toStrictEqual({
      defaultPhoneNumberId: OTHER,
      numbers: [
        { phoneNumberId: LEDGER_TEST_NUMBER, sendRate: 50, portfolio: 'default', isDefault: false, knownFrom: ['campaigns'] },
        {
          phoneNumberId: OTHER,
          sendRate: 20,
          portfolio: 'retail',
          isDefault: true,
          knownFrom: ['WHATSAPP_PHONE_NUMBER_ID', 'SEND_RATES', 'PORTFOLIOS'],
        },
        { phoneNumberId: THIRD, sendRate: 50, portfolio: 'retail', isDefault: false, knownFrom: ['PORTFOLIOS'] },
      ],
    });
  });

  it('opts recipients out and back in per portfolio (admin only), as `campaign optouts` does', async () => {
    const phones = ['+4915112340001', '0049 151 12340002'];
    await refused(await send('POST', { phones }, 'send'), 403, 'API_SCOPE_REFUSED');
    const added = await documented(addOptOutsRoute, await send('POST', { phones, portfolio: 'retail' }), 200);
    expect(added).toStrictEqual({ portfolio: 'retail', phoneNumberId: null, changed: ['+4915112340001', '+4915112340002'], unchanged: [] });
    const again = await documented(addOptOutsRoute, await send('POST', { phones: ['+4915112340001'] }), 200);
    expect(again).toStrictEqual({ portfolio: 'retail', phoneNumberId: OTHER, changed: [], unchanged: ['+4915112340001'] });

    // Through a number of the portfolio, or by its name: the same list.
    const viaNumber = await documented(listOptOutsRoute, await api.call(`/optouts?phoneNumberId=${THIRD}`, { scope: 'read' }), 200);
    expect(viaNumber).toMatchObject({ portfolio: 'retail', phoneNumberId: THIRD });
    const listed = (await documented(listOptOutsRoute, await api.call('/optouts?portfolio=retail', { scope: 'read' }), 200)) as {
      optOuts: { phone: string; via: string }[];
    };
    expect(listed.optOuts.map((o) => [o.phone, o.via]).sort()).toStrictEqual([
      ['+4915112340001', 'operator'],
      ['+4915112340002', 'operator'],
    ]);
    expect((viaNumber as { optOuts: unknown[] }).optOuts).toStrictEqual(listed.optOuts);
    const elsewhere = await documented(
      listOptOutsRoute,
      await api.call(`/optouts?phoneNumberId=${LEDGER_TEST_NUMBER}`, { scope: 'read' }),
      200,
    );
    expect(elsewhere).toMatchObject({ portfolio: 'default', optOuts: [] });

    const lifted = await documented(removeOptOutsRoute, await send('DELETE', { phones: ['+4915112340001', '+4915112349999'] }), 200);
    expect(lifted).toMatchObject({ changed: ['+4915112340001'], unchanged: ['+4915112349999'] });
    const left = await documented(listOptOutsRoute, await api.call('/optouts', { scope: 'read' }), 200);
    expect(left).toMatchObject({ portfolio: 'retail', optOuts: [{ phone: '+4915112340002' }] });

    const bad = await refused(await send('POST', { phones: ['+4915112340003', 'call me', '12'] }), 422, 'OPTION_INVALID');
    expect(bad.problems?.map((p) => p.field)).toStrictEqual(['phones.1', 'phones.2']);
    await refused(await send('POST', { phones: [] }), 400, 'API_REQUEST_INVALID');
    const mismatch = await refused(
      await send('POST', { phones: ['+4915112340003'], portfolio: 'support', phoneNumberId: OTHER }),
      422,
      'OPTION_INVALID',
    );
    expect(mismatch.detail).toBe(`phoneNumberId ${OTHER} is in portfolio retail (PORTFOLIOS), not support`);
    const unchanged = await documented(listOptOutsRoute, await api.call('/optouts', { scope: 'read' }), 200);
    expect((unchanged as { optOuts: unknown[] }).optOuts).toHaveLength(1);
  });

  it('answered every call as its OpenAPI document says', () => {
    expect(api.answers.length).toBeGreaterThan(3);
    expect(api.checkAnswers()).toStrictEqual([]);
  });
});
