import { inSpan, recordSpanError, SpanKind } from '@billing/platform';
import type { ClaimedEmail, EmailAttemptRecord } from '../db/repositories/customer-email.repository';
import { emailRetryDelayMs } from '../domain/customer-emails';
import { renderCustomerEmail } from '../domain/email-templates';
import type { EmailDeps } from '../notification-deps';
import { EmailFactsMissing } from './email-facts';

/**
 * One claimed email: written first if it is not yet (billing read, template rendered, stored, so
 * every attempt sends the same words), then, when this process has an SMTP server, sent and its
 * outcome recorded. Without one, a written email is released, QUEUED, for a process that has.
 *
 * "Sent once" (docs/decisions.md, "Customer emails: a row per event, sent once"): the email is
 * claimed with a lease longer than an SMTP exchange can take, so no other process sends it while
 * this one may; the only window left is between the server's 250 and the UPDATE recording it,
 * where a crash makes the next claimer send it again, under the same Message-ID.
 */
export function attemptEmail(deps: EmailDeps, email: ClaimedEmail): Promise<EmailAttemptRecord['outcome'] | 'WRITTEN'> {
  const attributes = { 'email.id': email.id, 'email.type': email.type, 'email.attempt': email.attempts + 1 };
  return inSpan('customer email attempt', { kind: SpanKind.INTERNAL, attributes }, async (span) => {
    const record = await attempt(deps, email);
    if (record === 'WRITTEN') return record;
    if (record.outcome !== 'SENT') recordSpanError(span, new Error(record.error));
    await deps.emails.recordAttempt(record);
    return record.outcome;
  });
}

async function attempt(deps: EmailDeps, email: ClaimedEmail): Promise<EmailAttemptRecord | 'WRITTEN'> {
  const now = deps.clock.now();
  const retry = (error: string): EmailAttemptRecord => ({
    id: email.id,
    outcome: 'RETRY',
    error,
    nextAttemptAt: new Date(now.getTime() + emailRetryDelayMs(email.attempts + 1, deps.email.retryDelaysMs)),
  });
  let composition = email.composition;
  if (!composition) {
    try {
      const { to, facts } = await deps.emailFacts.factsOf(email, now);
      composition = { to, locale: facts.locale, ...renderCustomerEmail(facts) };
    } catch (err) {
      if (err instanceof EmailFactsMissing) return { id: email.id, outcome: 'FAILED', error: err.message };
      deps.logger.warn({ err, email_id: email.id }, 'customer email not written yet; retried');
      return retry(`not written: ${(err as Error).message}`);
    }
    await deps.emails.saveComposition(email.id, composition);
  }
  if (!deps.mailer) {
    await deps.emails.releaseLease(email.id);
    return 'WRITTEN';
  }
  const sent = await deps.mailer.send({
    id: email.id,
    fromName: email.fromName,
    replyTo: email.replyTo,
    to: composition.to,
    subject: composition.subject,
    html: composition.html,
    text: composition.text,
  });
  if (sent.outcome === 'SENT') {
    deps.afterEmailSent?.();
    return { id: email.id, outcome: 'SENT', at: deps.clock.now() };
  }
  if (sent.outcome === 'FAILED') return { id: email.id, outcome: 'FAILED', error: sent.error };
  return retry(sent.error);
}
