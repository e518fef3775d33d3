import type { ChainableCommander } from 'ioredis';
import { isClusterRedirection } from '../errors/redis-errors.js';
import type { RedisClient } from './key-scope.js';

/** How many times a command whose slot moved is sent again before its error is thrown. */
const REDIRECTIONS = 5;

/** A command's reply, and the CLIENT ID of the connection it ran on. */
export interface OnConnection<Reply> {
  reply: Reply;
  connection: number;
}

/**
 * One command (`add` puts it in the pipeline), with the CLIENT ID of the connection it ran on,
 * asked first in one pipeline: the same node, in order. ReplicaWait.replicated needs that ID to
 * tell whether a later WAIT speaks for the command's writes. The client does not follow a
 * redirection in a pipeline where another command ran: a command sent where its slot no longer
 * is goes again, once a plain read of `key` (one of its keys) has taught the client where the
 * slot is now. A script used here must be defined on the connection before: a pipeline has the
 * commands defined when it is made.
 */
export async function onConnection<Reply>(
  redis: RedisClient,
  key: string,
  add: (pipeline: ChainableCommander) => void,
): Promise<OnConnection<Reply>> {
  for (let attempt = 1; ; attempt++) {
    const pipeline = redis.pipeline();
    pipeline.client('ID');
    add(pipeline);
    const [idReply, reply] = (await pipeline.exec()) ?? [];
    if (isClusterRedirection(reply?.[0]) && attempt < REDIRECTIONS) {
      await redis.exists(key);
      continue;
    }
    if (reply?.[0]) throw reply[0];
    if (idReply?.[0]) throw idReply[0];
    return { reply: reply?.[1] as Reply, connection: Number(idReply?.[1]) };
  }
}
