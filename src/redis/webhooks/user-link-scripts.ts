import { defineLuaCommandsLazily, loadLuaCommand } from '../lua-scripts.js';
import type { RedisClient } from '../key-scope.js';

/* The user links' scripts (src/redis/lua/webhooks/): the links live in bucket maps only Lua addresses. */
interface UserLinkCommands {
  cwReadUserLinks(links: string, users: string, linkCount: number, ...fields: string[]): Promise<(string | null)[]>;
  cwWriteUserLinks(links: string, users: string, linkCount: number, ...pairs: string[]): Promise<number>;
  cwPruneLinks(links: string, users: string, pending: string, now: number, retention: number): Promise<number>;
}

/** The user-link scripts on this connection (each defined at its first use: a report that never prunes does not load that one). */
export function userLinkScripts(redis: RedisClient): UserLinkCommands {
  defineLuaCommandsLazily(redis, {
    cwReadUserLinks: () => loadLuaCommand('webhooks/read-user-links'),
    cwWriteUserLinks: () => loadLuaCommand('webhooks/write-user-links'),
    cwPruneLinks: () => loadLuaCommand('webhooks/prune-links'),
  });
  const commands = redis as unknown as UserLinkCommands;
  return {
    cwReadUserLinks: (links, users, linkCount, ...fields) => commands.cwReadUserLinks(links, users, linkCount, ...fields),
    cwWriteUserLinks: (links, users, linkCount, ...pairs) => commands.cwWriteUserLinks(links, users, linkCount, ...pairs),
    cwPruneLinks: (links, users, pending, now, retention) => commands.cwPruneLinks(links, users, pending, now, retention),
  };
}
