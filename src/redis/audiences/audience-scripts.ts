import { defineLuaCommandsLazily, loadLuaCommand } from '../lua-scripts.js';
import type { RedisClient } from '../key-scope.js';

/*
 * The audience's scripts (src/redis/lua/audiences/): merge.lua, a re-import whose file lacks some of the
 * audience's columns (each contact keeps its values of those, in Redis, one chunk per call); columns.lua,
 * the file's new columns joining the audience's list before any contact is written with them.
 */
interface AudienceCommands {
  cwAudienceMerge(contacts: string, ...args: (string | number)[]): Promise<number>;
  cwAudienceColumns(meta: string, ...columns: string[]): Promise<string | null>;
}

/** The audience scripts on this connection (each defined at its first use). */
export function audienceScripts(redis: RedisClient): AudienceCommands {
  defineLuaCommandsLazily(redis, {
    cwAudienceMerge: () => loadLuaCommand('audiences/merge'),
    cwAudienceColumns: () => loadLuaCommand('audiences/columns'),
  });
  const commands = redis as unknown as AudienceCommands;
  return {
    cwAudienceMerge: (contacts, ...args) => commands.cwAudienceMerge(contacts, ...args),
    cwAudienceColumns: (meta, ...columns) => commands.cwAudienceColumns(meta, ...columns),
  };
}
