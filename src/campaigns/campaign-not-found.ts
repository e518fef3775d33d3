import { AppError } from '../errors/app-error.js';

/** The missing campaign, as every command, route and page names it. */
export function campaignNotFound(id: string): AppError {
  return new AppError('CAMPAIGN_NOT_FOUND', `No campaign ${id} under this QUEUE_PREFIX (see \`campaign list\`)`);
}
