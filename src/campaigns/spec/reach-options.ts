import { checkAudienceName } from '../../audiences/audience-name.js';
import { parseWhere } from '../../audiences/where/parse-where.js';
import type { WhereFilter } from '../../audiences/where/where-filter.js';
import { AppError } from '../../errors/app-error.js';
import { toE164 } from '../../phone/e164.js';
import type { CampaignSpec } from './campaign-spec.js';
import type { FieldNames } from './field-names.js';
import type { SpecProblems } from './spec-problems.js';
import { parseDuration } from './time-options.js';

/** Who a campaign reaches beyond its file's rows: an audience or a segment of it, consent, frequency caps, a test. */
export interface ReachOptions {
  /** Send to this stored audience (its segment `where` chooses) instead of a file. */
  audience: { name: string; where: WhereFilter | undefined } | undefined;
  requireConsent: boolean;
  ignoreFrequencyCaps: boolean;
  /** A row Meta failed with 131049 is sent again once, this long after (ms); undefined: never. */
  retryCappedAfterMs: number | undefined;
  /** A test send to these numbers (E.164), one of the first rows each; undefined: a real campaign. */
  testTo: string[] | undefined;
}

/** The spec's reach options, each broken rule added to `problems` (undefined where one broke). */
export function checkReachOptions(spec: CampaignSpec, names: FieldNames, problems: SpecProblems): ReachOptions {
  const audience = problems.check(() => checkAudience(spec, names));
  const retryCappedAfterMs = problems.check(() =>
    spec.retryCappedAfter === undefined ? undefined : parseDuration(names.retryCappedAfter, spec.retryCappedAfter),
  );
  const testTo = problems.check(() => checkTestTo(spec, names));
  return {
    audience,
    requireConsent: spec.requireConsent === true,
    ignoreFrequencyCaps: spec.ignoreFrequencyCaps === true,
    retryCappedAfterMs,
    testTo,
  };
}

function checkAudience(spec: CampaignSpec, names: FieldNames): ReachOptions['audience'] {
  const name = spec.audience?.name;
  const where = spec.audience?.where;
  if (name === undefined) {
    if (where !== undefined)
      throw new AppError(
        'OPTION_INVALID',
        `${names['audience.where']} chooses contacts of an audience: give ${names['audience.name']} too`,
      );
    return undefined;
  }
  checkAudienceName(name, names['audience.name']);
  if (spec.campaignId !== undefined)
    throw new AppError(
      'OPTION_INVALID',
      `${names['audience.name']} starts a new campaign from the audience as it is now; ${names.campaignId} continues one from its own file`,
    );
  return { name, where: where === undefined ? undefined : parseWhere(where, names['audience.where']) };
}

function checkTestTo(spec: CampaignSpec, names: FieldNames): string[] | undefined {
  const numbers = spec.testTo;
  if (numbers === undefined) return undefined;
  const flag = names.testTo;
  const refuse = (why: string) => new AppError('OPTION_INVALID', `${flag} ${why}`);
  if (spec.dryRun === true) throw refuse(`sends real messages to the test numbers; not with ${names.dryRun}`);
  if (spec.campaignId !== undefined) throw refuse(`sends a new test campaign; not with ${names.campaignId}`);
  if (spec.schedule?.at !== undefined) throw refuse(`sends now; not with ${names['schedule.at']}`);
  if (numbers.length === 0 || numbers.length > 10) throw new AppError('TEST_SEND_INVALID', `${flag}: give one to ten numbers`);
  const e164 = numbers.map((raw) => {
    const phone = toE164(raw);
    if (!phone.ok) throw new AppError('TEST_SEND_INVALID', `${flag}: ${phone.reason}`);
    return phone.e164;
  });
  const twice = e164.find((phone, i) => e164.indexOf(phone) !== i);
  if (twice !== undefined) throw new AppError('TEST_SEND_INVALID', `${flag}: ${twice} is given twice; each test number gets one message`);
  return e164;
}
