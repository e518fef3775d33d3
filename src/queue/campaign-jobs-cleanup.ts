import type { Queue } from 'bullmq';

/** Jobs looked at per page: a number keeps at most ~11,000 finished jobs (removeOnComplete/removeOnFail). */
const PAGE = 1000;

/**
 * Removes a campaign's jobs from a number's queue, through BullMQ's own API: the finished
 * ones BullMQ keeps for dashboards (their data holds the phone number and values) and any
 * stale waiting or delayed one. A job a worker holds right now is left to finish.
 */
export async function removeCampaignJobs(queue: Queue, campaignId: string): Promise<number> {
  const mine = [];
  for (const state of ['completed', 'failed', 'waiting', 'delayed'] as const) {
    for (let start = 0; ; start += PAGE) {
      const jobs = await queue.getJobs([state], start, start + PAGE - 1);
      for (const job of jobs) if (holdsCampaign(job.data, campaignId, state)) mine.push(job);
      if (jobs.length < PAGE) break;
    }
  }
  let removed = 0;
  for (const job of mine) {
    try {
      await job.remove();
      removed++;
    } catch {
      // Locked by a worker (active): it ends on its own and is trimmed with the others.
    }
  }
  return removed;
}

/**
 * A job of one row of the campaign, or a group holding one of its rows. A group waiting to run
 * may hold other campaigns' rows too: only a finished one goes.
 */
function holdsCampaign(data: unknown, campaignId: string, state: string): boolean {
  const job = data as { campaignId?: unknown; rows?: unknown; campaign?: unknown } | undefined;
  if (job?.campaignId === campaignId) return true;
  if (typeof job?.rows !== 'string' || (state !== 'completed' && state !== 'failed')) return false;
  if (job.campaign !== undefined) return job.campaign === campaignId;
  return job.rows.split(',').some((member) => member.startsWith(`${campaignId} `));
}
