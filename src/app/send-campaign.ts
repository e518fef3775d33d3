import { basename } from 'node:path';
import { approvedTemplate, createCampaign, type CreateCampaignDeps, type CreateNotices } from '../campaigns/create-campaign.js';
import type { SendOutcome } from '../campaigns/ingest/producer.js';
import type { RejectsSink } from '../campaigns/ingest/rejects-file.js';
import type { CampaignFlags } from '../campaigns/spec/campaign-flags.js';
import { checkCampaignSpec, type CheckedSpec, type SpecCheckContext } from '../campaigns/spec/check-spec.js';
import type { FieldNames } from '../campaigns/spec/field-names.js';
import { parseCampaignSpec } from '../campaigns/spec/parse-spec.js';
import { specOfFlags } from '../campaigns/spec/spec-of-flags.js';
import { checkSpecWithFile, type TemplateFind } from '../campaigns/spec/spec-with-file.js';
import { AppError } from '../errors/app-error.js';
import type { ProblemItem } from '../errors/problems-error.js';
import type { WhereFilter } from '../audiences/where/where-filter.js';
import type { AudienceFile } from './audience-file.js';
import { testSendSpec } from './test-send.js';
import { ScratchDir } from '../files/scratch-dir.js';

/** What a send needs beyond createCampaign's: an audience's segment written as a file (`--audience`). */
export interface SendCampaignDeps extends CreateCampaignDeps {
  writeAudienceFile?:
    | ((request: {
        name: string;
        where: WhereFilter | undefined;
        phoneNumberId: string;
        whereName: string;
        dir: string;
      }) => Promise<AudienceFile>)
    | undefined;
}

export interface SendCampaignRequest {
  /** The campaign as the CLI's flags or the API's JSON give it: one shape for both. */
  flags: CampaignFlags;
  /** How a refusal names a field: by its flag at the CLI (CLI_FIELD_NAMES), by its JSON field at the API (FLAG_FIELD_NAMES). */
  names: FieldNames;
  /** The CSV of recipients; undefined with `audience` (its segment is written to a file of its own). */
  file: string | undefined;
  /** The CLI's `--templates FILE` and the flag's name (a text campaign refuses it). */
  templatesFile?: { path: string; name: string } | undefined;
  /**
   * Every problem of the spec, of its file's header and of its template at once, with those
   * the caller found reading the flags (the API's 422); without it the first rule broken is
   * said as it is (the CLI).
   */
  everyProblem?: { found: readonly ProblemItem[] } | undefined;
  /** The clock a start is checked against; default this host's. */
  now?: number | undefined;
  /** `campaign retarget`: the campaign whose chosen rows make `file`; the new one is linked to it. */
  sourceCampaign?: string | undefined;
  /** Where refused rows go instead of the rejects file (the API's dry run keeps them for its answer). */
  rejects?: RejectsSink | undefined;
  /** Adds the created (or continued) campaign to its history as the caller is known; a dry run is not recorded. */
  record?: ((campaignId: string, action: 'create' | 'continue', detail: string) => Promise<void>) | undefined;
}

/**
 * `campaign send` and POST /campaigns: a campaign from its flags and a CSV, or an audience's
 * segment written as one. The flags become a spec (specOfFlags) read once and checked once;
 * createCampaign then finds the template, reads the file into the ledger and plans the sending;
 * what it created goes into the history. `testTo`: a test campaign of the first rows instead.
 */
export async function sendCampaign(
  deps: SendCampaignDeps,
  request: SendCampaignRequest,
  notices: CreateNotices = {},
): Promise<SendOutcome> {
  const scratch = new ScratchDir('campaign-send-');
  try {
    const source = await recipientsOf(deps, request, scratch);
    const flags = source.phoneColumn === undefined ? request.flags : { ...request.flags, phoneColumn: source.phoneColumn, delimiter: ',' };
    const checked = await checkedSpec(deps, { ...request, flags, file: source.file });
    const test = checked.testTo === undefined ? undefined : await testSendSpec(checked, source.file, request.names, await scratch.path());
    const spec = test?.spec ?? checked;
    const file = test?.file ?? source.file;
    let continuing = false;
    const onStart: CreateNotices['onStart'] = (start) => {
      continuing = start.continuing;
      notices.onStart?.(start);
    };
    const outcome = await createCampaign(
      deps,
      {
        spec,
        names: request.names,
        file,
        templatesFile: request.templatesFile?.path,
        sourceCampaign: request.sourceCampaign,
        rejects: request.rejects,
      },
      { ...notices, onStart },
    );
    const detail = sendDetail(request.file ?? source.file, spec, outcome);
    if (!outcome.dryRun) await request.record?.(outcome.id, continuing ? 'continue' : 'create', detail);
    return outcome;
  } finally {
    await scratch.remove();
  }
}

/** The file of recipients: the request's, or the audience's segment written to `scratch` (with its phone column's name). */
async function recipientsOf(
  deps: SendCampaignDeps,
  request: SendCampaignRequest,
  scratch: ScratchDir,
): Promise<{ file: string; phoneColumn?: string | undefined }> {
  const { names, flags } = request;
  if (flags.audience === undefined) {
    if (request.file === undefined)
      throw new AppError(
        'OPTION_INVALID',
        `Give the CSV file of recipients, or ${names['audience.name']} NAME to send to a stored audience`,
      );
    return { file: request.file };
  }
  if (request.file !== undefined)
    throw new AppError('OPTION_INVALID', `${names['audience.name']} sends to a stored audience: give it or a CSV file, not both`);
  // The audience's own options are checked first (its name, the filter): the rest is checked with its file.
  const spec = checkCampaignSpec(parseCampaignSpec(specOfFlags(flags), names), names, specContext(deps, request));
  if (spec.audience === undefined || deps.writeAudienceFile === undefined)
    throw new AppError('OPTION_INVALID', `${names['audience.name']}: this service cannot read audiences`);
  const written = await deps.writeAudienceFile({
    name: spec.audience.name,
    where: spec.audience.where,
    phoneNumberId: spec.phoneNumberId,
    whereName: names['audience.where'],
    dir: await scratch.path(),
  });
  return { file: written.file, phoneColumn: written.phoneColumn };
}

function specContext(deps: CreateCampaignDeps, request: SendCampaignRequest): SpecCheckContext {
  return {
    now: request.now ?? Date.now(),
    defaultPhoneNumberId: deps.defaultPhoneNumberId,
    templateOnly: request.templatesFile === undefined ? [] : [request.templatesFile.name],
  };
}

/** The request's spec, read and checked: alone (the first broken rule), or with its file and template (every problem). */
async function checkedSpec(deps: CreateCampaignDeps, request: SendCampaignRequest & { file: string }): Promise<CheckedSpec> {
  const { names, templatesFile } = request;
  const spec = parseCampaignSpec(specOfFlags(request.flags), names);
  const context = specContext(deps, request);
  if (request.everyProblem === undefined) return checkCampaignSpec(spec, names, context);
  // Asked only when the spec has other problems, so they are all listed at once; else createCampaign finds it, once.
  const find: TemplateFind = (name, language) => approvedTemplate(deps.openTemplates(templatesFile?.path), name, language, names);
  return checkSpecWithFile(spec, request.file, names, context, request.everyProblem.found, find);
}

/** The history's word on a send: its file (by name: the path is the sender's machine's) or audience, what it queued, and how. */
function sendDetail(file: string, spec: CheckedSpec, outcome: SendOutcome): string {
  const stopped = outcome.interruptedAtRow === undefined ? '' : `; reading stopped at row ${outcome.interruptedAtRow}`;
  const { audience } = spec;
  const from =
    audience === undefined
      ? basename(file)
      : `audience ${audience.name}${audience.where === undefined ? '' : ` where ${audience.where.text}`}`;
  const how = [
    spec.testTo === undefined ? '' : `; a test send to ${spec.testTo.length} test numbers`,
    spec.ignoreFrequencyCaps ? '; --ignore-frequency-caps: FREQUENCY_CAPS do not hold for it' : '',
    spec.requireConsent ? '; --require-consent' : '',
  ].join('');
  return `${from}: ${outcome.queued} rows queued${stopped}${how}`;
}
