import type { EventEnvelope } from '@billing/platform';
import { emailOfEvent } from '../../domain/customer-emails';
import type { EmailDeps } from '../../notification-deps';

/**
 * The consumer's half of customer emails (docs/api-behaviour.md §24): the emails a batch of
 * events asks for, written QUEUED in one statement for the projects and modes that enabled
 * them, before the events are acked. Idempotent: an event seen before adds nothing (UNIQUE
 * (event_id, type)), so a redelivery never sends twice. Nothing is sent here: the email loop
 * does, apart from the webhooks, so neither waits for the other. Returns how many it queued.
 */
export async function queueCustomerEmails(deps: EmailDeps, envelopes: EventEnvelope[]): Promise<number> {
  const emails = envelopes.flatMap((envelope) => emailOfEvent(envelope) ?? []);
  if (emails.length === 0) return 0;
  const queued = await deps.emails.createForEvents(emails, deps.clock.now());
  if (queued > 0) deps.wakeEmails();
  return queued;
}
