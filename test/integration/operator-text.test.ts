import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/app/app-context.js';
import { RedisCampaignHistory } from '../../src/redis/history/redis-campaign-history.js';
import { refused } from '../support/api-documented.js';
import { answeredCampaign } from '../support/api-campaigns.js';
import { ApiTestService } from '../support/api-service.js';
import { testContext } from '../support/app-context.js';
import { runCli } from '../support/cli-process.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { redisUrl } from '../support/redis.js';

/**
 * The operator-text rule end to end: a pause reason with what a terminal acts on is refused by the API and the CLI,
 * and one already stored (as a record from before the rule would be) is printed neutralised by `campaign status`,
 * `campaign list` (the built CLI) and the campaign's page.
 */
const WINDOW_TITLE = '\u001b]0;pwned\u0007';
const ERASE_LINE = '\u001b[2K';
const HOSTILE = `checking${WINDOW_TITLE} list${ERASE_LINE}\u0000\r\nforged line \u202etxt.exe \u009b31m`;
/** What would act on a terminal: C0 but for LF (the outputs' own line breaks), DEL, C1, bidi. */
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
/** What would hide or reorder text on a page, where tab and line breaks only lay it out. */
// eslint-disable-next-line no-control-regex
const ACTIVE_ON_PAGE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

describe('operator text: control and bidi characters never reach the operator', () => {
  const api = new ApiTestService('operator-text');
  let context: AppContext;
  let cliEnv: Record<string, string>;

  beforeAll(async () => {
    await api.start({ TEMPLATES_FILE: SAMPLE_TEMPLATES });
    context = testContext(api.prefix, { REPORTS_DIR: api.reportsDir });
    cliEnv = { REDIS_URL: redisUrl(), QUEUE_PREFIX: api.prefix, LOG_LEVEL: 'warn', REPORTS_DIR: api.reportsDir };
  });
  afterAll(async () => {
    await context.redis.quit();
    await api.close();
  });

  it('the API refuses a pause reason with ESC, naming the field, the character and where it is; nothing is paused', async () => {
    await answeredCampaign(context.ledger, 'ot-api', ['queued', 'queued']);
    const answer = await api.call('/campaigns/ot-api/pause', {
      scope: 'send',
      method: 'POST',
      body: JSON.stringify({ reason: HOSTILE }),
      headers: { 'content-type': 'application/json' },
    });
    const problem = await refused(answer, 400, 'API_REQUEST_INVALID');
    expect(problem.problems).toStrictEqual([
      {
        code: 'API_REQUEST_INVALID',
        field: 'reason',
        detail: 'reason: contains a control character, invisible in most editors (U+001B ESC at character 9)',
      },
    ]);
    expect(JSON.stringify(problem)).not.toContain('pwned');
    for (const reason of ['a\u202eb', 'two\nlines', 'bell\u0007', 'nul\u0000']) {
      const again = await api.call('/campaigns/ot-api/pause', {
        scope: 'send',
        method: 'POST',
        body: JSON.stringify({ reason }),
        headers: { 'content-type': 'application/json' },
      });
      expect((await refused(again, 400, 'API_REQUEST_INVALID')).problems?.[0]?.field).toBe('reason');
    }
    expect((await context.ledger.status('ot-api'))?.state).not.toBe('paused');
    expect(api.checkAnswers()).toStrictEqual([]);
  });

  it('`campaign pause --reason` refuses it too: TEXT_CONTROL_CHARACTER, exit 2, nothing paused, nothing echoed', async () => {
    await answeredCampaign(context.ledger, 'ot-cli', ['queued']);
    // An argument cannot carry NUL; everything else of it can.
    const pause = await runCli(['pause', 'ot-cli', '--reason', HOSTILE.replace('\u0000', '')], cliEnv);
    expect(pause.code).toBe(2);
    expect(pause.stderr.split('\n')[0]).toBe(
      'campaign: TEXT_CONTROL_CHARACTER: reason: the pause reason contains a control character, invisible in most editors ' +
        '(U+001B ESC at character 9)',
    );
    expect(pause.stderr).not.toMatch(ACTIVE);
    expect((await context.ledger.status('ot-cli'))?.state).not.toBe('paused');
  });

  it("an error message that quotes the operator's input is printed neutralised", async () => {
    const create = await runCli(['tokens', 'create', '--name', `crm${WINDOW_TITLE}`, '--scope', 'read'], cliEnv);
    expect(create.code).toBe(2);
    expect(create.stderr).not.toMatch(ACTIVE);
    expect(create.stderr).toContain('"crm\\x1b]0;pwned\\x07"');
  });

  it('a hostile reason, name and history detail already stored are printed neutralised by status, list and the page', async () => {
    // Written straight into storage, past every edge, as a record from before the rule (or another source) would be.
    await answeredCampaign(context.ledger, 'ot-stored', ['queued', 'queued'], { name: `promo\u202egpj.exe${WINDOW_TITLE}` });
    await context.ledger.pause('ot-stored', HOSTILE);
    await new RedisCampaignHistory(context.redis, api.prefix).record('ot-stored', {
      at: Date.now(),
      actor: { kind: 'token', name: 'crm' },
      action: 'pause',
      detail: HOSTILE,
    });
    const visible = 'checking\\x1b]0;pwned\\x07 list\\x1b[2K\\x00\\r\\nforged line \\u202etxt.exe \\x9b31m';

    const status = await runCli(['status', 'ot-stored'], cliEnv);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).not.toMatch(ACTIVE);
    expect(status.stdout).toContain(`: ${visible}\n`);
    expect(status.stdout.split('\n')[0]).toBe('Campaign ot-stored "promo\\u202egpj.exe\\x1b]0;pwned\\x07": paused');
    expect(status.stdout).not.toContain('\nforged line');

    const list = await runCli(['list'], cliEnv);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).not.toMatch(ACTIVE);
    expect(list.stdout).toContain(visible);

    for (const args of [
      ['status', 'ot-stored', '--json'],
      ['list', '--json'],
    ]) {
      const json = await runCli(args, cliEnv);
      expect(json.stdout, args.join(' ')).not.toMatch(ACTIVE);
      // The same data to a parser: the escapes are JSON's own.
      expect(json.stdout).toContain(JSON.stringify(HOSTILE).replace('\u202e', '\\u202e').replace('\u009b', '\\u009b'));
    }

    const page = await (await fetch(`${api.service!.url}/campaigns/ot-stored`)).text();
    expect(page).not.toMatch(ACTIVE_ON_PAGE);
    expect(page).toContain('checking\\u001b]0;pwned\\u0007 list\\u001b[2K\\u0000');
    expect(page).toContain('promo\\u202egpj.exe');
    const listPage = await (await fetch(`${api.service!.url}/`)).text();
    expect(listPage).not.toMatch(ACTIVE_ON_PAGE);
    expect(listPage).toContain('promo\\u202egpj.exe');
  });
});
