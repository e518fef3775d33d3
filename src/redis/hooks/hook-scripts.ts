import { defineLuaCommandsLazily, loadLuaCommand } from '../lua-scripts.js';
import type { RedisClient } from '../key-scope.js';

/* The hooks' scripts (src/redis/lua/hooks/): each one step on one hook's slot. */
interface HookCommands {
  cwHookAppend(figures: string, outbox: string, at: number, ...events: string[]): Promise<number>;
  cwHookAck(figures: string, outbox: string, lag: number, ...entries: string[]): Promise<number>;
  cwHookBury(figures: string, outbox: string, dead: string, at: number, reason: string, ...entries: string[]): Promise<number>;
  cwHookRedeliver(figures: string, outbox: string, dead: string, at: number, max: number): Promise<number>;
  cwHookCount(figures: string, field: string, by: number): Promise<number | null>;
}

/** The hook scripts on this connection (each defined at its first use). */
export function hookScripts(redis: RedisClient): HookCommands {
  defineLuaCommandsLazily(redis, {
    cwHookAppend: () => loadLuaCommand('hooks/append'),
    cwHookAck: () => loadLuaCommand('hooks/ack'),
    cwHookBury: () => loadLuaCommand('hooks/bury'),
    cwHookRedeliver: () => loadLuaCommand('hooks/redeliver'),
    cwHookCount: () => loadLuaCommand('hooks/count'),
  });
  const commands = redis as unknown as HookCommands;
  return {
    cwHookAppend: (figures, outbox, at, ...events) => commands.cwHookAppend(figures, outbox, at, ...events),
    cwHookAck: (figures, outbox, lag, ...entries) => commands.cwHookAck(figures, outbox, lag, ...entries),
    cwHookBury: (figures, outbox, dead, at, reason, ...entries) => commands.cwHookBury(figures, outbox, dead, at, reason, ...entries),
    cwHookRedeliver: (figures, outbox, dead, at, max) => commands.cwHookRedeliver(figures, outbox, dead, at, max),
    cwHookCount: (figures, field, by) => commands.cwHookCount(figures, field, by),
  };
}
