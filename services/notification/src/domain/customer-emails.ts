import type { EventEnvelope, FieldViolation } from '@billing/platform';

/**
 * Which events email the customer, and how an email's attempts go (docs/api-behaviour.md §24).
 * Pure: no database, no SMTP.
 */

/** The events that email the customer; the email's `type` is its event's name. */
export const CUSTOMER_EMAIL_TYPES = [
  'invoice.created',
  'invoice.paid',
  'invoice.payment_failed',
  'subscription.trial_will_end',
  'subscription.cancelled',
  'credit_note.created',
] as const;

export type CustomerEmailType = (typeof CUSTOMER_EMAIL_TYPES)[number];

/** QUEUED until the SMTP server accepted it (SENT) or refused it for good (FAILED). */
export type CustomerEmailStatus = 'QUEUED' | 'SENT' | 'FAILED';

/** An event that emails its customer: its type, and the customer it names. */
export interface EmailOfEvent {
  eventId: string;
  type: CustomerEmailType;
  projectId: string;
  livemode: boolean;
  customerId: string;
  data: Record<string, unknown>;
}

const TYPES = new Set<string>(CUSTOMER_EMAIL_TYPES);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The email an event asks for, or null: events outside §24's list, of no project, naming no
 * customer, and an `invoice.created` that asks for nothing (amount_due 0: nothing to pay) send
 * none. Whether the project has emails enabled is the settings' row, checked where the email is
 * written.
 */
export function emailOfEvent(envelope: EventEnvelope): EmailOfEvent | null {
  if (!TYPES.has(envelope.event) || !envelope.project_id || envelope.livemode === null) return null;
  const data = (envelope.data ?? {}) as Record<string, unknown>;
  const customerId = data.customer_id;
  if (typeof customerId !== 'string' || !UUID.test(customerId)) return null;
  if (envelope.event === 'invoice.created' && !(Number(data.amount_due) > 0)) return null;
  return {
    eventId: envelope.id,
    type: envelope.event as CustomerEmailType,
    projectId: envelope.project_id,
    livemode: envelope.livemode,
    customerId,
    data,
  };
}

/**
 * The wait before the next attempt after `attempts` failed ones: the configured delays in turn,
 * then the last one again and again. A server that is down is waited for, never given up on
 * (nothing is lost); only a refusal for good (an SMTP 5xx) makes an email FAILED.
 */
export function emailRetryDelayMs(attempts: number, delaysMs: readonly number[]): number {
  return delaysMs[Math.min(Math.max(attempts, 1), delaysMs.length) - 1];
}

/** The settings of a project and mode, as stored and answered. */
export interface EmailSettings {
  enabled: boolean;
  fromName: string | null;
  replyTo: string | null;
}

/** Never set: nothing is sent. */
export const DEFAULT_EMAIL_SETTINGS: EmailSettings = { enabled: false, fromName: null, replyTo: null };

export const FROM_NAME_MAX = 100;

// One address, as a mail header carries it: no spaces, no angle brackets, no commas or quotes
// (no header injection, no second recipient), a dotted domain.
const EMAIL_ADDRESS = /^[^\s@<>,;:"()[\]\\]+@[^\s@<>,;:"()[\]\\]+\.[^\s@<>,;:"()[\]\\]+$/;

/** Field violations of settings to store (the REST body's names in `loc`). */
export function emailSettingsViolations(settings: EmailSettings): FieldViolation[] {
  const violations: FieldViolation[] = [];
  if (settings.fromName !== null && settings.fromName.length > FROM_NAME_MAX) {
    violations.push({
      loc: ['body', 'from_name'],
      msg: `String should have at most ${FROM_NAME_MAX} characters`,
      type: 'string_too_long',
      input: settings.fromName,
    });
  }
  // A display name is one line: a line break would start a header of its own.
  if (settings.fromName !== null && /[\r\n]/.test(settings.fromName)) {
    violations.push({
      loc: ['body', 'from_name'],
      msg: 'from_name is one line',
      type: 'value_error',
      input: settings.fromName,
    });
  }
  if (settings.replyTo !== null && (settings.replyTo.length > 254 || !EMAIL_ADDRESS.test(settings.replyTo))) {
    violations.push({
      loc: ['body', 'reply_to'],
      msg: 'value is not a valid email address',
      type: 'value_error',
      input: settings.replyTo,
    });
  }
  return violations;
}
