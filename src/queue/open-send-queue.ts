import { Queue, type ConnectionOptions } from 'bullmq';
import { sendQueueName, sendQueuePrefix } from './queue-names.js';

/**
 * Events a number's send queue keeps in BullMQ's events stream. BullMQ keeps 10,000 unless told
 * otherwise, about 190 KB a number; nothing in this product reads them (the ledger keeps every
 * row's answer, and campaigns have event streams of their own), so a number keeps the last
 * 1,000 for anyone who attaches BullMQ's QueueEvents.
 */
export const SEND_QUEUE_EVENTS_KEPT = 1_000;

/**
 * A phone number's send queue, as every part of the product opens it: each Queue writes its
 * options to the queue's meta hash, which the workers' scripts read, so all must pass the same.
 */
export function openSendQueue(phoneNumberId: string, connection: ConnectionOptions, prefix: string): Queue {
  return new Queue(sendQueueName(phoneNumberId), {
    connection,
    prefix: sendQueuePrefix(prefix, phoneNumberId),
    streams: { events: { maxLen: SEND_QUEUE_EVENTS_KEPT } },
  });
}
