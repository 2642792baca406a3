import { BoundedConcurrency } from '@billing/platform';
import { attemptEmail } from '../../emails/email-attempts';
import type { EmailDeps } from '../../notification-deps';

/** Emails claimed per pass, and sent side by side at most. */
const CLAIM_LIMIT = 100;
const CONCURRENCY = 10;

/**
 * One pass of the email loop: claims due QUEUED emails (with a lease) and writes and sends each
 * (docs/api-behaviour.md §24). Without an SMTP server it only writes the ones not written yet,
 * which stay QUEUED. Returns how many it claimed.
 */
export async function sendDueEmails(deps: EmailDeps): Promise<number> {
  const claimed = await deps.emails.claimDue(deps.clock.now(), CLAIM_LIMIT, deps.email.leaseMs, !deps.mailer);
  const slots = new BoundedConcurrency(CONCURRENCY, CLAIM_LIMIT, 'customer emails');
  await Promise.all(
    claimed.map((email) =>
      slots.run(async () => {
        try {
          await attemptEmail(deps, email);
        } catch (err) {
          // Its lease runs out and any process tries again.
          deps.logger.error(
            { err, email_id: email.id },
            'customer email attempt not recorded; retried after its lease',
          );
        }
      }),
    ),
  );
  return claimed.length;
}
