import type { HeaderParameter, TemplateMessage } from '../../cloud-api/outbound-message.js';
import type { MediaProblem } from '../../media/media-problem.js';
import { mediaFormatOf, mediaSourceOf, type MediaIdSource } from '../media/campaign-media.js';
import type { CampaignDefinition } from '../campaign.js';
import { planOfRow } from '../row-plan.js';
import type { SendPlan } from '../send-plan.js';

type Swapped = { ok: true; message: TemplateMessage } | MediaProblem;

/**
 * The message with each media header (its own and each card's) sent by the media ID of its
 * upload on the sending number instead of its link, as a campaign with `mediaBy` id sends it:
 * Meta then fetches nothing from the operator's server, however many messages name it. A
 * media that can no longer be read or uploaded fails the row with its code; nothing is sent
 * with the link instead (a local file has none).
 */
export async function withMediaIds(
  message: TemplateMessage,
  plan: SendPlan,
  phoneNumberId: string,
  media: MediaIdSource,
): Promise<Swapped> {
  const swap = async (header: HeaderParameter | undefined, fromFile: boolean): Promise<HeaderParameter | MediaProblem | undefined> => {
    if (header === undefined || !('link' in header)) return header;
    const { link, ...rest } = header;
    const found = await media.mediaIdFor(phoneNumberId, mediaSourceOf(link, fromFile), mediaFormatOf(header.type));
    return found.ok ? { ...rest, id: found.id } : found;
  };
  const header = await swap(message.header, plan.headerMedia?.from === 'file');
  if (header !== undefined && 'ok' in header) return header;
  const cards = [];
  for (const card of message.cards ?? []) {
    const own = await swap(card.header, false);
    if (own !== undefined && 'ok' in own) return own;
    cards.push(own === undefined ? card : { ...card, header: own });
  }
  return {
    ok: true,
    message: { ...message, ...(header === undefined ? {} : { header }), ...(message.cards === undefined ? {} : { cards }) },
  };
}

/**
 * A row's message of a campaign that sends its media by ID, on the sending number; a worker
 * without the store of uploads fails the row rather than send a file's path as a link.
 */
export async function mediaByIds(
  message: TemplateMessage,
  definition: CampaignDefinition,
  values: readonly string[],
  sending: { phoneNumberId: string; media: MediaIdSource | undefined },
): Promise<Swapped | { ok: false; code: 'JOB_PAYLOAD_INVALID'; detail: string }> {
  const plan = planOfRow(definition, values);
  if (sending.media === undefined || plan === undefined) {
    return {
      ok: false,
      code: 'JOB_PAYLOAD_INVALID',
      detail: 'the campaign sends its media by ID, and this worker has no store of uploads',
    };
  }
  return withMediaIds(message, plan, sending.phoneNumberId, sending.media);
}
