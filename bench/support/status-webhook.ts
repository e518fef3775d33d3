/** The body Meta posts for statuses of one phone number: one entry, one `messages` change. */
export function statusWebhookBody(phoneNumberId: string, statuses: readonly object[]): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '1',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '1', phone_number_id: phoneNumberId },
              statuses,
            },
          },
        ],
      },
    ],
  });
}
