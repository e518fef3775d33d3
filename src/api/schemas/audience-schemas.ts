import { z } from 'zod';
import { SPEC_FORMATS } from '../../campaigns/spec/spec-formats.js';
import { rejectedRowSchema } from './send-summary-schema.js';

const count = z.number().int().min(0);
const instant = z.string().meta({ format: 'date-time', description: 'ISO 8601, UTC.' });

/** Which portfolio's audiences: named, or through one of its numbers; neither: WHATSAPP_PHONE_NUMBER_ID's (as the CLI). */
export const audienceTargetFields = {
  portfolio: z
    .string()
    .max(64)
    .optional()
    .meta({ description: 'The business portfolio, as PORTFOLIOS names it (default: the portfolio of WHATSAPP_PHONE_NUMBER_ID).' }),
  phoneNumberId: z
    .string()
    .max(64)
    .optional()
    .meta({ description: 'A number of the portfolio, instead of `portfolio` (both: they must agree).' }),
};

/**
 * `/audiences/{name}`: the name as given; a name of another form is refused by the use case
 * (422 AUDIENCE_NAME_INVALID, naming what a name may hold), the document states the form.
 */
export const audienceNameParams = z.strictObject({
  name: z.string().meta({
    pattern: SPEC_FORMATS.audienceName,
    description:
      'The audience: a letter or digit, then letters, digits, `_`, `-` or `.`, 64 characters at most; another is refused ' +
      '(422 AUDIENCE_NAME_INVALID).',
  }),
});

const importCountsSchema = z
  .object({
    read: count.meta({ description: 'Data rows read.' }),
    added: count.meta({ description: 'Contacts new to the audience.' }),
    updated: count.meta({ description: 'Contacts it had, their columns of the file replaced.' }),
    rejected: count.meta({ description: 'Rows refused (PHONE_MISSING, PHONE_INVALID, FIELD_COUNT, MALFORMED_RECORD).' }),
    duplicates: count.meta({ description: 'Rows a later row of the same number replaced (DUPLICATE_PHONE).' }),
  })
  .meta({ id: 'AudienceImportCounts' });

/** An audience as listed (AudienceSummary). */
export const audienceSummarySchema = z
  .object({
    name: z.string(),
    contacts: count,
    columns: z.array(z.string()).meta({ description: 'The attributes (the columns its imports brought, but the phone), in order.' }),
    createdAt: instant,
    updatedAt: instant.meta({ description: 'The last import (what AUDIENCE_RETENTION_DAYS counts from).' }),
    importedFrom: z.string().meta({ description: 'The name of the file last imported.' }),
    lastImport: importCountsSchema,
  })
  .meta({ id: 'AudienceSummary' });

export const audienceListSchema = z.object({
  portfolio: z.string(),
  audiences: z.array(audienceSummarySchema).meta({ description: 'By name.' }),
});

/** An audience with what its contacts hold (AudienceDetail). */
export const audienceDetailSchema = audienceSummarySchema
  .extend({
    portfolio: z.string(),
    filled: z.record(z.string(), count).meta({ description: 'Per attribute: how many contacts have a value in it.' }),
    optedOut: count.meta({ description: "Contacts on the portfolio's opt-outs (MARKETING campaigns skip them)." }),
    withConsent: count.meta({ description: 'Contacts whose newest consent entry is an opt-in.' }),
    withUserId: count.meta({ description: 'Contacts whose business-scoped user ID the webhooks taught.' }),
    bytes: count.meta({ description: 'Redis memory its contacts take (sampled).' }),
  })
  .meta({ id: 'AudienceDetail' });

/** What PUT /audiences/{name} answers: the import's outcome and its first refused rows. */
export const audienceImportSchema = importCountsSchema
  .extend({
    name: z.string(),
    portfolio: z.string(),
    created: z.boolean().meta({ description: 'The audience was made by this import (it did not exist, or `replace` was given).' }),
    replaced: count.nullable().meta({ description: '`replace`: the contacts the audience had before; null otherwise.' }),
    columns: z.array(z.string()).meta({ description: "The audience's attributes after the import." }),
    contacts: count.meta({ description: 'Contacts in the audience now.' }),
    bytes: count.meta({ description: 'Redis memory of its contacts now (sampled).' }),
    consentRecorded: count.meta({ description: 'Opt-ins recorded from `consentColumn`.' }),
    delimiter: z.string(),
    rejectsFile: z
      .string()
      .nullable()
      .meta({ description: 'The name of the rejects file written in REPORTS_DIR (`row,phone,reason`); null when no row was refused.' }),
    rejects: z.array(rejectedRowSchema).meta({ description: 'The first 20 refused rows (rejected, then duplicates as met).' }),
    rejectsTotal: count.meta({ description: 'Rows refused in all: `rejected` + `duplicates`.' }),
  })
  .meta({ id: 'AudienceImport' });

export const contactsRemovalSchema = z.object({
  removed: count.meta({ description: 'Contacts removed.' }),
  notFound: z
    .array(z.string())
    .meta({ description: 'The phones, as given, that are not numbers or were not in the audience (nothing was removed for them).' }),
});
