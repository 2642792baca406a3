import { z } from 'zod';
import type { notificationV1 } from '@billing/proto';
import { EXAMPLE, idParam, iso, pageQuery, timestamp } from '../common.schemas';

export const EmailSettingsSchema = z
  .object({
    enabled: z
      .boolean()
      .meta({ description: 'Whether the platform emails this project\u2019s customers in this mode' }),
    from_name: z.string().nullable().meta({ description: 'The name on the From line; null: the address alone' }),
    reply_to: z.string().nullable().meta({ description: 'Where customers\u2019 replies go; null: no Reply-To' }),
  })
  .meta({ id: 'EmailSettings' });

export const UpdateEmailSettingsBody = z
  .object({
    enabled: z.boolean().default(false),
    from_name: z.string().trim().min(1).max(100).nullable().optional().meta({ description: 'At most 100 characters' }),
    reply_to: z.email().max(254).nullable().optional().meta({ description: 'An email address' }),
  })
  .meta({ id: 'UpdateEmailSettingsRequest' });

export const toEmailSettings = (
  settings: notificationV1.EmailSettings | undefined,
): z.input<typeof EmailSettingsSchema> => ({
  enabled: settings?.enabled ?? false,
  from_name: settings?.fromName ?? null,
  reply_to: settings?.replyTo ?? null,
});

export const emailSettingsExample = {
  enabled: true,
  from_name: 'Acme Gym',
  reply_to: 'billing@acme.example',
};

const EMAIL_TYPES = [
  'invoice.created',
  'invoice.paid',
  'invoice.payment_failed',
  'subscription.trial_will_end',
  'subscription.cancelled',
  'credit_note.created',
] as const;

export const CustomerEmailSchema = z
  .object({
    id: z.uuid().meta({ description: 'Also the Message-ID of the email: `<id@domain of the From address>`' }),
    event_id: z.uuid().meta({ description: 'The event the email is about' }),
    type: z.enum(EMAIL_TYPES).meta({ description: 'The name of that event' }),
    to: z.string().nullable().meta({ description: 'The customer\u2019s address; null until the email is written' }),
    subject: z.string().nullable().meta({ description: 'In the customer\u2019s locale; null until written' }),
    status: z.enum(['QUEUED', 'SENT', 'FAILED']).meta({
      description:
        'QUEUED until the SMTP server accepts it (retried with backoff while it cannot be reached), SENT then, ' +
        'FAILED when the server refused it for good or the customer is gone',
    }),
    attempts: z.int(),
    sent_at: timestamp.nullable(),
    created_at: timestamp,
  })
  .meta({ id: 'CustomerEmail' });

export const ListCustomerEmailsQuery = z.object({ ...pageQuery });

export const CustomerEmailParams = z.object({ customer_id: idParam('Customer') });

export const toCustomerEmail = (e: notificationV1.CustomerEmail): z.input<typeof CustomerEmailSchema> => ({
  id: e.id,
  event_id: e.eventId,
  type: e.type as (typeof EMAIL_TYPES)[number],
  to: e.to ?? null,
  subject: e.subject ?? null,
  status: e.status as 'QUEUED' | 'SENT' | 'FAILED',
  attempts: e.attempts,
  sent_at: e.sentAt ? e.sentAt.toISOString() : null,
  created_at: iso(e.createdAt),
});

export const customerEmailExample = {
  id: '6b1f3a52-8d0e-4c36-9a4f-2e7c5d9b1a08',
  event_id: EXAMPLE.eventId,
  type: 'invoice.paid' as const,
  to: EXAMPLE.customerEmail,
  subject: 'Receipt for invoice INV-0001',
  status: 'SENT' as const,
  attempts: 1,
  sent_at: '2026-03-02T09:21:39.120Z',
  created_at: '2026-03-02T09:21:38.412Z',
};
