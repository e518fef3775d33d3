import { Option, type Command } from 'commander';
import { AppError } from '../../errors/app-error.js';

export function register(program: Command): void {
  program
    .command('demo')
    .description('send the sample campaign through an in-process sandbox and worker (on a private Redis when none answers)')
    // Not for users: tests point it at a closed port to run the demo as on a machine without Redis.
    .addOption(new Option('--default-redis-url <url>', 'where to look for Redis when REDIS_URL is unset').hideHelp())
    .action(async (o: { defaultRedisUrl?: string }) => {
      if (o.defaultRedisUrl !== undefined && !/^rediss?:\/\/\S+$/.test(o.defaultRedisUrl)) {
        throw new AppError(
          'OPTION_INVALID',
          `--default-redis-url "${o.defaultRedisUrl.slice(0, 80)}": give a redis:// URL, e.g. redis://127.0.0.1:6379`,
        );
      }
      const { runDemo } = await import('../run/demo.js');
      await runDemo({ defaultRedisUrl: o.defaultRedisUrl });
    });
}
