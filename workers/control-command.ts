import { CampaignControls } from '../src/campaigns/campaign-controls.js';
import { BullSendQueue } from '../src/queue/send-queue.js';
import type { AppContext } from './app-context.js';

/** Runs one operator command with the send queues it touches, and closes them afterwards. */
export async function withControls<T>(context: AppContext, fn: (controls: CampaignControls) => Promise<T>): Promise<T> {
  const { config, redis, ledger, logger } = context;
  const queues = new Map<string, BullSendQueue>();
  const controls = new CampaignControls({
    ledger,
    queueFor(phoneNumberId) {
      let queue = queues.get(phoneNumberId);
      if (queue === undefined) {
        // Requeued jobs get the same attempts and backoff as the producer's.
        queue = new BullSendQueue({ connection: redis, prefix: config.queuePrefix, phoneNumberId, attempts: config.send.attempts, backoffMs: config.send.backoffMs, logger });
        queues.set(phoneNumberId, queue);
      }
      return queue;
    },
  });
  try {
    return await fn(controls);
  } finally {
    await Promise.all([...queues.values()].map((queue) => queue.close()));
  }
}
