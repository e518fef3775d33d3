import { z } from 'zod';

/**
 * A job of one row, identified and nothing more: the recipient and the values stay in the
 * ledger row, which the worker reads when it claims the row. So a job holds no personal data,
 * and an edited job cannot redirect a message.
 */
export const sendJobSchema = z.object({
  campaignId: z.string(),
  row: z.number().int().positive(),
  /**
   * Which job of the row this is: 0 (absent) for the first one fed, then 1, 2, … for each
   * later one (a row parked by a pause, chosen by `campaign retry`). The ledger lets only the
   * row's current job claim it, so a row never has two live jobs.
   */
  requeue: z.number().int().positive().optional(),
  /** How many times this job was already delayed for the pair rate limit (131056): the next delay doubles. */
  pairDelays: z.number().int().positive().optional(),
  /** Jobs written by builds before 0.1.0 carry these; they are ignored (the ledger row is what is sent). */
  to: z.string().optional(),
  values: z.array(z.string()).optional(),
  headerLink: z.string().optional(),
});
export type SendJob = z.infer<typeof sendJobSchema> & {
  /**
   * The group job the row runs in (set by groupRows, never read from a job's data). The ledger
   * keeps it on the row while it is `sending`, so it can tell that job's next run (in doubt)
   * from another live job naming the same row (one put in the queue by hand).
   */
  inGroup?: string;
};

/** What one send carries, as the ledger row holds it: built into the request by messageForRow. */
export interface RowToSend {
  campaignId: string;
  row: number;
  to: string;
  values: string[];
  headerLink?: string | undefined;
}

/**
 * Deterministic, so the same row fed twice is the same job (BullMQ ignores the second).
 * The feed script (src/redis/ledger/ledger-scripts.ts, jobIdOf) builds the same IDs in Lua.
 */
export function sendJobId(campaignId: string, row: number, requeue = 0): string {
  return requeue === 0 ? `${campaignId}-${row}` : `${campaignId}-${row}-r${requeue}`;
}

/** The job a job ID names (the inverse of sendJobId), or undefined for an ID that is not one. */
export function parseSendJobId(id: string): SendJob | undefined {
  // Campaign IDs may hold dashes; the row (and requeue number) are the digits at the end.
  const match = /^(.+)-(\d+)(?:-r(\d+))?$/.exec(id);
  if (match === null) return undefined;
  const job: SendJob = { campaignId: match[1] ?? '', row: Number(match[2]) };
  const requeue = Number(match[3] ?? 0);
  if (requeue > 0) job.requeue = requeue;
  return job;
}

/**
 * A job of several rows (a group), fed by the ledger in one piece: its ID is the ledger's
 * (`g.<first row's job ID>.<rows>`), its rows as the ledger keeps them ("campaign row k,…"),
 * so a group handed out again is the same job with the same rows. Identifiers only, as a
 * job of one row. A queue keeps a group small (compactGroup): when its rows are all of one
 * campaign, that campaign once as `campaign` and each row as "row" or "row k" (k above 0).
 */
export const sendGroupSchema = z.object({
  group: z.string().startsWith('g.'),
  rows: z.string().min(1),
  /** The campaign of every row, when `rows` names rows only. */
  campaign: z.string().min(1).optional(),
  /** Per row ("campaign row"), how many times it was already delayed for the pair rate limit (131056). */
  pairDelays: z.record(z.string(), z.number().int().positive()).optional(),
});
export type SendGroup = z.infer<typeof sendGroupSchema>;

/** What the feeder puts in a number's queue: a job of one row or a group. */
export type QueuedSend = SendJob | SendGroup;

export function isSendGroup(job: QueuedSend): job is SendGroup {
  return 'group' in job;
}

/** The rows of a group, as jobs of one row each, in the order they were fed. */
export function groupRows(group: SendGroup): SendJob[] {
  return group.rows.split(',').map((member) => {
    const [campaignId = '', row = '0', k = '0'] = group.campaign === undefined ? member.split(' ') : [group.campaign, ...member.split(' ')];
    const job: SendJob = { campaignId, row: Number(row), inGroup: group.group };
    if (Number(k) > 0) job.requeue = Number(k);
    const delays = group.pairDelays?.[`${campaignId} ${row}`];
    if (delays !== undefined) job.pairDelays = delays;
    return job;
  });
}

/**
 * The group as a queue keeps it: the campaign once when every row is of one campaign (about 10
 * bytes a row instead of 30: a number's queue keeps its last finished jobs), else as fed.
 */
export function compactGroup(group: SendGroup): SendGroup {
  if (group.campaign !== undefined) return group;
  const members = group.rows.split(',').map((member) => member.split(' '));
  const campaign = members[0]?.[0];
  if (campaign === undefined || members.some((m) => m.length !== 3 || m[0] !== campaign)) return group;
  const rows = members.map(([, row, k]) => (k === '0' ? row : `${row} ${k}`)).join(',');
  return { ...group, campaign, rows };
}

/** How many rows a queued send carries. */
export function rowsOf(job: QueuedSend): number {
  return isSendGroup(job) ? job.rows.split(',').length : 1;
}

/** The BullMQ job ID of a queued send. */
export function queuedSendId(job: QueuedSend): string {
  return isSendGroup(job) ? job.group : sendJobId(job.campaignId, job.row, job.requeue);
}

/**
 * Rows a group holds at a number's rate: about 100 ms of its sending (at least 1: a slow
 * number's rows go one a job, as before groups), at most 100, and 100 when the rate is off.
 */
export function groupSizeFor(messagesPerSecond: number): number {
  if (messagesPerSecond <= 0) return MAX_GROUP_ROWS;
  return Math.max(1, Math.min(MAX_GROUP_ROWS, Math.floor(messagesPerSecond / 10)));
}
const MAX_GROUP_ROWS = 100;

/** Where the feeder puts jobs; src/queue/send-queue.ts implements it with BullMQ. */
export interface SendJobQueue {
  enqueue(jobs: readonly QueuedSend[]): Promise<void>;
}
