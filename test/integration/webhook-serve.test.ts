import { afterEach, describe, expect, it } from 'vitest';
import { webhookInboxKey } from '../../src/webhooks/webhook-inbox.js';
import { CliProcess, runCliWithin } from '../support/cli-process.js';
import { RedisServer, freePort } from '../support/fault-redis-server.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';
import { webhookKeys } from '../../src/redis/webhooks/webhook-keys.js';
import { waitFor } from '../support/waiting.js';
import { postSignedWebhook } from '../support/signed-webhook.js';

/**
 * `campaign serve` as an operator runs it: a real process, stopped by its own PID. It refuses
 * to start without its secrets, starts while Redis is down (and says so through /readyz and
 * 503s), takes webhooks once Redis is there, and exits 0 on SIGTERM or SIGINT.
 */
const SECRET = 'serve-app-secret-0123456789';
const VERIFY_TOKEN = 'serve-verify-token';
const LISTENING = /Webhook service listening on (http:\/\/127\.0\.0\.1:\d+)/;

function env(redis: string, prefix: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    REDIS_URL: redis,
    QUEUE_PREFIX: prefix,
    WHATSAPP_APP_SECRET: SECRET,
    WEBHOOK_VERIFY_TOKEN: VERIFY_TOKEN,
    LOG_LEVEL: 'info',
    ...extra,
  };
}

/** Signed with this file's app secret, as Meta signs it. */
function signedPost(url: string, body: string | Buffer): Promise<number> {
  return postSignedWebhook(url, SECRET, body);
}

describe('campaign serve', () => {
  let cli: CliProcess | undefined;
  let server: RedisServer | undefined;

  afterEach(async () => {
    await cli?.stop('SIGKILL');
    cli = undefined;
    await server?.cleanup();
    server = undefined;
  });

  it.each([
    ['WHATSAPP_APP_SECRET', { WHATSAPP_APP_SECRET: '' }],
    ['WEBHOOK_VERIFY_TOKEN', { WEBHOOK_VERIFY_TOKEN: '' }],
  ])('without %s: CONFIG_INVALID naming it, exit 1, nothing listens', async (missing, unset) => {
    const result = await runCliWithin(['serve', '--port', '0'], env(redisUrl(), freshPrefix('serve'), unset), 60_000);

    expect(result.timedOut).toBe(false);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('campaign: CONFIG_INVALID');
    expect(result.stderr).toContain(`${missing}: required for this command but not set`);
    expect(result.stderr).not.toMatch(LISTENING);
    expect(result.stderr).not.toContain(SECRET);
  });

  it(
    'with Redis up: the handshake, and a signed POST stored under QUEUE_PREFIX and worked ' +
      "off by the service's consumer; SIGTERM exits 0",
    async () => {
      const prefix = freshPrefix('serve');
      const reader = testRedis();
      try {
        cli = new CliProcess(['serve', '--port', '0', '--host', '127.0.0.1'], env(redisUrl(), prefix));
        const url = (await cli.waitFor(LISTENING))[1] ?? '';

        const challenge = await fetch(`${url}/webhook?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=42`);
        expect(challenge.status).toBe(200);
        expect(await challenge.text()).toBe('42');
        const body = '{"object":"whatsapp_business_account","entry":[]}';
        expect(await signedPost(url, body)).toBe(200);
        // The service's own consumer takes the entry in (counted) and removes it from the inbox.
        await waitFor(() => reader.hget(webhookKeys(prefix).stats, 'posts'), {
          what: 'the consumer worked the POST off (posts counted)',
          until: (posts) => posts === '1',
        });
        expect(await reader.xlen(webhookInboxKey(prefix))).toBe(0);
        expect((await fetch(`${url}/readyz`)).status).toBe(200);

        expect(await cli.stop('SIGTERM')).toBe(0);
        expect(cli.output).not.toContain(SECRET);
        expect(cli.output).not.toContain(VERIFY_TOKEN);
      } finally {
        await removePrefix(reader, prefix);
        await reader.quit();
      }
    },
  );

  it('with Redis down it starts anyway: /healthz 200, /readyz and POST 503; Redis up later: 200, no restart; SIGINT exits 0', async () => {
    // A port of our own with nothing on it yet; the server is started there later.
    server = await RedisServer.start();
    await server.stop('SIGKILL');
    cli = new CliProcess(['serve', '--port', '0'], env(server.url, freshPrefix('serve')));
    const url = (await cli.waitFor(LISTENING))[1] ?? '';
    await cli.waitFor(/Redis is not answering/);

    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(503);
    expect(await signedPost(url, '{"n":1}')).toBe(503);

    const from = cli.output.length;
    await server.launch();
    await cli.waitFor(/Redis answers again/);
    expect(cli.output.slice(from)).toMatch(/Redis answers again/);
    expect(await signedPost(url, '{"n":2}')).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);

    expect(await cli.stop('SIGINT')).toBe(0);
  });

  it('SIGTERM while Redis is down still exits 0 (the reconnect loop does not hold the process)', async () => {
    cli = new CliProcess(['serve', '--port', '0'], env(`redis://127.0.0.1:${await freePort()}`, freshPrefix('serve')));
    await cli.waitFor(LISTENING);
    await cli.waitFor(/Redis is not answering/);

    // Exits (with 0) at all: no reconnect loop or connect-timeout timer keeps it alive. No
    // timing is asserted here (this machine is noisy); the test's own timeout bounds it.
    expect(await cli.stop('SIGTERM')).toBe(0);
  });

  it('--port taken: PORT_IN_USE, exit 1', async () => {
    const prefixes = [freshPrefix('serve'), freshPrefix('serve')];
    cli = new CliProcess(['serve', '--port', '0'], env(redisUrl(), prefixes[0]!));
    const port = /:(\d+)$/.exec((await cli.waitFor(LISTENING))[1] ?? '')?.[1] ?? '';

    const second = await runCliWithin(['serve', '--port', port], env(redisUrl(), prefixes[1]!), 60_000);

    expect(second.code).toBe(1);
    expect(second.stderr).toContain('campaign: PORT_IN_USE');
    // Each made its webhook inbox before it listened.
    expect(await cli.stop('SIGTERM')).toBe(0);
    const reader = testRedis();
    for (const prefix of prefixes) await removePrefix(reader, prefix);
    await reader.quit();
  });
});
