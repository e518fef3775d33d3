import { rejectedRowSchema } from './send-summary-schema.js';
import { z } from 'zod';
import { optOutViewSchema } from '../../app/views/opt-out-view.js';

/** A phone number this service can send from, for a number picker. */
export const numberViewSchema = z
  .object({
    phoneNumberId: z.string(),
    sendRate: z.number().int().min(0).meta({ description: 'Messages per second (SEND_RATES, else SEND_RATE); 0 = unlimited.' }),
    portfolio: z.string().meta({
      description: "Its business portfolio (PORTFOLIOS; `default` when not named): opt-outs and the messaging limit are the portfolio's.",
    }),
    isDefault: z.boolean().meta({ description: 'WHATSAPP_PHONE_NUMBER_ID: the number a campaign sends from unless it names another.' }),
    knownFrom: z
      .array(z.enum(['WHATSAPP_PHONE_NUMBER_ID', 'SEND_RATES', 'PORTFOLIOS', 'campaigns']))
      .meta({ description: 'Where this service knows it from: its settings, or campaigns sent from it.' }),
  })
  .meta({ id: 'PhoneNumber' });

export const numbersAnswerSchema = z.object({
  numbers: z.array(numberViewSchema).meta({ description: 'Sorted by ID.' }),
  defaultPhoneNumberId: z.string().nullable(),
});

const optOutsTargetFields = {
  portfolio: z.string(),
  phoneNumberId: z.string().nullable().meta({ description: 'The number it was named through; null when named by portfolio.' }),
};

export const optOutsListSchema = z.object({
  ...optOutsTargetFields,
  optOuts: z.array(optOutViewSchema).meta({ description: 'Oldest first.' }),
});

export const optOutsChangeSchema = z.object({
  ...optOutsTargetFields,
  changed: z
    .array(z.string())
    .meta({ description: 'The numbers (E.164) opted out (POST) or no longer opted out (DELETE) by this request.' }),
  unchanged: z.array(z.string()).meta({ description: 'The numbers that already were (POST), or were not (DELETE), opted out.' }),
});

/** The first rows of a campaign's rejects file, as JSON. */
export const rejectsJsonSchema = z.object({
  rows: z.array(rejectedRowSchema).meta({ description: 'Each value as it was in the file (the CSV form quotes a formula-like value).' }),
  truncated: z.boolean().meta({ description: 'The file has more rows than `limit`.' }),
});
