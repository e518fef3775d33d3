import type { Command } from 'commander';
import { withContext } from '../with-context.js';

export function register(program: Command): void {
  const tokens = program
    .command('tokens')
    .description('the bearer tokens of the HTTP API (stored hashed; a token is shown once, when created)');
  tokens
    .command('create')
    .description('create a token and print it once')
    .requiredOption('--name <name>', 'a unique name: how the token is listed, revoked and named in history')
    .requiredOption('--scope <scope>', 'read (read only), send (also create and control campaigns) or admin (also opt-outs and tokens)')
    .option('--expires <duration>', 'expire after this long, e.g. 90d, 12h or 30m (default: never)')
    .option('--json', 'print JSON: {"name","scope","token","expiresAt"}')
    .action(async (o: { name: string; scope: string; expires?: string; json?: boolean }) => {
      const { createToken } = await import('../../app/tokens.js');
      const { createdJson, createdText } = await import('../run/tokens.js');
      const created = await withContext((context) => createToken(context, o));
      console.log(o.json === true ? createdJson(created) : createdText(created));
    });
  tokens
    .command('list')
    .description('every token: name, scope, created, expires, last used (never the token)')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const { listTokens } = await import('../../app/tokens.js');
      const { tokensJson, tokensText } = await import('../run/tokens.js');
      const list = await withContext((context) => listTokens(context));
      console.log(o.json === true ? tokensJson(list) : tokensText(list));
    });
  tokens
    .command('revoke')
    .description('revoke a token: requests that carry it are refused from now on')
    .argument('<name>', "the token's name (see campaign tokens list)")
    .action(async (name: string) => {
      const { revokeToken } = await import('../../app/tokens.js');
      const { revokedText } = await import('../run/tokens.js');
      await withContext((context) => revokeToken(context, name));
      console.log(revokedText(name));
    });
}
