import { DomainError } from '@billing/platform';
import { newReference } from '../../domain/codes';
import { CARD_BEHAVIORS, CHARGE_OUTCOMES, type CardBehavior } from '../../domain/ledger';
import type { TransactionRow } from '../../db/models';
import type { RecordedOutcome } from '../../db/repositories/transaction.repository';
import { transactionResource, type TransactionResource } from '../../resources/paystack-resources';
import type { SandboxDeps } from '../../sandbox-deps';
import { announceDescribedChargeSuccess } from '../../webhooks/charge-success-webhook';

export interface ChargeAuthorizationCommand {
  authorizationCode: string;
  email: string;
  amount: number;
  currency: string;
  reference?: string;
  metadata: Record<string, unknown>;
}

/**
 * Charges a saved card as its behavior says. Idempotent per reference: the same charge sent
 * again (a retry after a timeout, a restart before the outcome was recorded) returns the first
 * transaction and never charges twice; a different charge under a used reference is refused.
 * Returns Paystack's `data` of the charge, built once and shared with the charge.success webhook.
 *
 * The hot path of every renewal, so one round trip: the repository reads the card and its
 * customer and records the charge in a single statement, applying the outcomes decided here.
 */
export async function chargeAuthorization(
  deps: SandboxDeps,
  command: ChargeAuthorizationCommand,
): Promise<TransactionResource> {
  const now = deps.clock.now();
  const attempt = await deps.transactions.chargeAuthorization({
    authorizationCode: command.authorizationCode,
    email: command.email,
    reference: command.reference ?? newReference(),
    amount: command.amount,
    currency: command.currency,
    metadata: command.metadata,
    createdAt: now,
    outcomes: recordedOutcomes(now),
  });
  const { authorization, customer } = attempt;
  if (!authorization) throw new DomainError('invalid_argument', 'Invalid authorization code');
  if (!attempt.emailMatches) throw new DomainError('invalid_argument', 'Email does not match Authorization code');
  if (attempt.charged) {
    const resource = transactionResource(attempt.charged, customer, authorization);
    if (attempt.charged.status === 'success') announceDescribedChargeSuccess(deps, resource);
    return resource;
  }
  // A repeat is on this very card (repeatedCharge checks the code), and a saved-card charge
  // records its card's email: the card and customer just read are the earlier charge's too.
  return transactionResource(repeatedCharge(attempt.earlier!, command), customer, authorization);
}

/** What a charge made now records for each card behavior; only a success is paid. */
function recordedOutcomes(now: Date): Record<CardBehavior, RecordedOutcome> {
  const recorded = {} as Record<CardBehavior, RecordedOutcome>;
  for (const behavior of CARD_BEHAVIORS) {
    const outcome = CHARGE_OUTCOMES[behavior];
    recorded[behavior] = { ...outcome, paidAt: outcome.status === 'success' ? now : null };
  }
  return recorded;
}

function repeatedCharge(earlier: TransactionRow, command: ChargeAuthorizationCommand): TransactionRow {
  const sameCharge =
    earlier.channel === 'authorization' &&
    earlier.authorizationCode === command.authorizationCode &&
    earlier.amount === command.amount &&
    earlier.currency === command.currency;
  if (!sameCharge) throw new DomainError('already_exists', 'Duplicate Transaction Reference');
  return earlier;
}
