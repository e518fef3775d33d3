import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';
import { apiTokensKey } from '../../src/redis/access/redis-api-tokens.js';

/** `campaign tokens create|list|revoke` as an operator runs them: the token is printed once and nowhere after. */
describe('campaign tokens', () => {
  it('create prints the token once; list never shows it; revoke removes it; errors have their codes and exit codes', async () => {
    const prefix = freshPrefix('cli-tokens');
    const env = { REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix };
    const redis = testRedis();
    try {
      const created = await runCli(['tokens', 'create', '--name', 'crm', '--scope', 'send', '--expires', '90d', '--json'], env);
      expect(created.code).toBe(0);
      const json = JSON.parse(created.stdout) as { name: string; scope: string; token: string; expiresAt: string | null };
      expect(Object.keys(json)).toStrictEqual(['name', 'scope', 'token', 'expiresAt']);
      expect(json).toMatchObject({ name: 'crm', scope: 'send' });
      expect(json.token).toMatch(/^cwt_[A-Za-z0-9_-]{43}$/);
      const expiresIn = Date.parse(json.expiresAt ?? '') - Date.now();
      expect(expiresIn).toBeGreaterThan(89 * 86_400_000);
      expect(expiresIn).toBeLessThanOrEqual(90 * 86_400_000);

      const text = await runCli(['tokens', 'create', '--name', 'ops', '--scope', 'admin'], env);
      expect(text.code).toBe(0);
      const opsToken = /cwt_[A-Za-z0-9_-]{43}/.exec(text.stdout)?.[0];
      expect(opsToken).toBeDefined();
      expect(text.stdout).toContain('shown this once');

      const list = await runCli(['tokens', 'list', '--json'], env);
      expect(list.code).toBe(0);
      expect(JSON.parse(list.stdout)).toMatchObject([
        { name: 'crm', scope: 'send', expiresAt: json.expiresAt, lastUsedAt: null },
        { name: 'ops', scope: 'admin', expiresAt: null, lastUsedAt: null },
      ]);
      const listText = await runCli(['tokens', 'list'], env);
      for (const shown of [list.stdout, listText.stdout, list.stderr, listText.stderr]) {
        expect(shown).not.toContain(json.token);
        expect(shown).not.toContain(opsToken);
        expect(shown).not.toMatch(/cwt_|[0-9a-f]{64}/);
      }
      expect(JSON.stringify(await redis.hgetall(apiTokensKey(prefix)))).not.toContain(json.token);

      const taken = await runCli(['tokens', 'create', '--name', 'crm', '--scope', 'read'], env);
      expect(taken).toMatchObject({ code: 1, stdout: '' });
      expect(taken.stderr).toContain('API_TOKEN_NAME_TAKEN');
      const badScope = await runCli(['tokens', 'create', '--name', 'x', '--scope', 'owner'], env);
      expect(badScope.code).toBe(2);
      expect(badScope.stderr).toContain('OPTION_INVALID');

      expect((await runCli(['tokens', 'revoke', 'crm'], env)).code).toBe(0);
      expect((JSON.parse((await runCli(['tokens', 'list', '--json'], env)).stdout) as { name: string }[]).map((t) => t.name)).toStrictEqual(
        ['ops'],
      );
      const unknown = await runCli(['tokens', 'revoke', 'crm'], env);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('API_TOKEN_NOT_FOUND');
    } finally {
      await removePrefix(redis, prefix);
      redis.disconnect();
    }
  });
});
