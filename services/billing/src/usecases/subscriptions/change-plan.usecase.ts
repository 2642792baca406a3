import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import { DomainError, recordEvent, type ProjectScope } from '@billing/platform';
import type { SubscriptionModel } from '../../db/models';
import type { PlanChange, PlanChangeRequest, StoredPlanChange } from '../../domain/plan-change';
import { planChangeRequestOf, type PlanChangeCommand } from '../../subscription-changes/plan-change-request';
import { invoiceEvents } from '../../events/invoice.events';
import type { BillingDeps } from '../../billing-deps';
import {
  claimInvoiceCharges,
  invoiceChargeReference,
  NEVER_CHARGED,
  recordChargeOutcome,
  sendClaimedCharge,
  type ChargeClaim,
  type ChargeResult,
} from '../../invoicing/invoice-payment';
import { createInvoices, invoiceDiscountOf } from '../../invoicing/invoice-money';
import { invoiceTaxOf } from '../../invoicing/invoice-taxes';
import { invoiceView, type InvoiceView } from '../../read-models/invoice.read-model';
import { quotePlanChange, type PlanChangeQuote } from '../../subscription-changes/quote-plan-change';
import { viewOf, type SubscriptionView } from '../../read-models/subscription.read-model';
import { changeSubscription } from '../../subscription-changes/change-subscription';
import { pendingColumns, recordSubscriptionUpdated, switchPlan } from '../../subscription-changes/switch-plan';

export interface PlanChangeResult {
  view: SubscriptionView;
  /** The invoice the change made (proration, or a new period's); null when it made none. */
  invoice: InvoiceView | null;
}

/** What the change's transaction decided, for what follows its commit. */
interface Decided {
  /** The invoice the change made; null when it made none. */
  invoiceId: string | null;
  /** Its charge, claimed in the change's transaction and sent after commit; null when none is due. */
  claim: ChargeClaim | null;
  /** A retry with the Idempotency-Key of an earlier change: answered from that change. */
  earlier: boolean;
}

/**
 * POST /subscriptions/{id}/change-plan (docs/api-behaviour.md §18). Under the subscription's row
 * lock (a change and a renewal, or two changes, run one after the other; the renewal scheduler
 * skips the locked row), quotePlanChange decides what the change does, the same computation its
 * preview makes:
 *  - at the period's end: the pending plan is stored (replacing any), or dropped for the current
 *    plan; the renewal at that moment applies it;
 *  - a trial, or NONE on the same interval: the plan changes now, no invoice;
 *  - otherwise an invoice (the proration, or a new period's) with its money from createInvoices
 *    (discount, tax, balance, amount_due; a negative total, with the exclusive tax its credit
 *    carries back, to the balance), its usage billed on it,
 *    and its charge claimed (a PENDING payment under the reference inv-<id>-1) in the same
 *    transaction. The plan changes only when that invoice is paid (applyPlanChangeOutcome): at
 *    once when nothing is due, else after commit when the provider says the charge succeeded.
 *    A declined charge voids the invoice and changes nothing: 402.
 * subscription.updated (with previous_plan_id) is recorded with each change of the row. While a
 * change's invoice is OPEN, the subscription is not renewed (an OPEN invoice holds its renewal).
 */
export async function changePlan(
  deps: BillingDeps,
  scope: ProjectScope,
  command: PlanChangeCommand,
): Promise<PlanChangeResult> {
  const request = planChangeRequestOf(command);
  const key = command.idempotencyKey && ({ operation: 'change_plan', key: command.idempotencyKey } as const);
  const decided: Decided = { invoiceId: null, claim: null, earlier: false };
  const view = await changeSubscription(deps, scope, command.subscriptionId, async (subscription, now, transaction) => {
    if (key) {
      const keyed = await deps.idempotencyKeys.claim(
        scope,
        {
          ...key,
          fingerprint: `${subscription.id}:${command.plan.planId}:${command.proration}:${command.atPeriodEnd}`,
          resource: { invoiceId: null as string | null },
        },
        deps.clock.now(),
        transaction,
      );
      if (!keyed.fresh) {
        Object.assign(decided, { earlier: true, invoiceId: keyed.resource.invoiceId });
        return;
      }
    }
    Object.assign(decided, await applyPlanChange(deps, subscription, request, now, transaction));
    if (key && decided.invoiceId) {
      await deps.idempotencyKeys.attach(scope, key, { invoiceId: decided.invoiceId }, transaction);
    }
  });
  if (!decided.invoiceId) return { view, invoice: null };
  if (decided.earlier) return answerEarlierChange(deps, scope, command.subscriptionId, decided.invoiceId);
  if (decided.claim) {
    // After commit: a provider call cannot be rolled back with a transaction.
    const answer = await sendClaimedCharge(deps, decided.claim);
    if (!answer) throw outcomeUnknown();
    answered(await recordChargeOutcome(deps, decided.claim.reference, answer, decided.claim.at));
  }
  return changed(deps, scope, command.subscriptionId, decided.invoiceId);
}

/** The change itself, in the transaction holding the subscription's lock. */
async function applyPlanChange(
  deps: BillingDeps,
  subscription: SubscriptionModel,
  request: PlanChangeRequest,
  now: Date,
  transaction: Transaction,
): Promise<Pick<Decided, 'invoiceId' | 'claim'>> {
  // Chosen first: the usage up to the change is billed on this invoice as it is summed.
  const invoiceId = randomUUID();
  const quote = await quotePlanChange(deps, subscription, request, now, {
    billOn: invoiceId,
    billedAt: now,
    transaction,
  });
  const { change } = quote;
  const none = { invoiceId: null, claim: null };
  switch (change.kind) {
    case 'schedule':
      await deps.subscriptions.setPendingPlan(subscription, pendingColumns(change.plan, change.at), now, transaction);
      await recordSubscriptionUpdated(deps, subscription, subscription.planId, now, transaction);
      return none;
    case 'clear_pending':
      if (!subscription.pendingPlanId) return none;
      await deps.subscriptions.setPendingPlan(subscription, pendingColumns(null, null), now, transaction);
      await recordSubscriptionUpdated(deps, subscription, subscription.planId, now, transaction);
      return none;
    case 'swap':
      await switchPlan(deps, subscription, change.plan, change.at, transaction);
      return none;
    case 'invoice':
      return {
        invoiceId,
        claim: await invoiceChange(deps, subscription, { ...quote, change }, invoiceId, now, transaction),
      };
  }
}

/**
 * The invoice of an immediate change: created OPEN with the quote's lines and its money, the
 * change it pays for stored on it, invoice.created; then its charge claimed. Nothing due (the
 * balance covers it, or the total is negative: its credit goes to the balance) -> PAID at once
 * and the change applied in this transaction; else the claim, for the caller to send after commit.
 */
async function invoiceChange(
  deps: BillingDeps,
  subscription: SubscriptionModel,
  quote: PlanChangeQuote & { change: Extract<PlanChange, { kind: 'invoice' }> },
  invoiceId: string,
  now: Date,
  transaction: Transaction,
): Promise<ChargeClaim | null> {
  const { change } = quote;
  const planChange: StoredPlanChange = {
    plan: change.plan,
    previousPlanId: subscription.planId,
    at: change.at.toISOString(),
    newPeriod: change.newPeriod && {
      start: change.newPeriod.start.toISOString(),
      end: change.newPeriod.end.toISOString(),
    },
  };
  const [{ invoice }] = await createInvoices(
    deps,
    [
      {
        id: invoiceId,
        projectId: subscription.projectId,
        livemode: subscription.livemode,
        subscriptionId: subscription.id,
        customerId: subscription.customerId,
        currency: subscription.currency,
        periodStart: quote.period.start,
        periodEnd: quote.period.end,
        createdAt: now,
        lines: quote.lines,
        discount: invoiceDiscountOf(subscription),
        tax: await invoiceTaxOf(deps, subscription, transaction),
        collection: { status: 'OPEN', chargeAt: null },
        planChange,
      },
    ],
    transaction,
  );
  const customerEmail = await deps.customers.emailOf(subscription.customerId, transaction);
  await recordEvent(deps.sequelize, transaction, invoiceEvents.created(invoice, customerEmail, now));
  const [claimed] = await claimInvoiceCharges(deps, [{ invoice, at: now }], transaction);
  if ('claim' in claimed) return claimed.claim;
  answered(claimed.done);
  return null;
}

const outcomeUnknown = () =>
  new DomainError(
    'unavailable',
    'The payment provider has not given the outcome of the plan change charge yet; retry with the same Idempotency-Key',
  );

/** A charge's result as the change answers it: paid goes on, declined is a 402, unknown a 503. */
function answered(result: ChargeResult): void {
  if (result.pending) throw outcomeUnknown();
  if (!result.paid) throw new DomainError('payment_required', result.failure ?? 'The payment failed');
}

/** The subscription and the change's invoice as they are now. */
async function changed(
  deps: BillingDeps,
  scope: ProjectScope,
  subscriptionId: string,
  invoiceId: string,
): Promise<PlanChangeResult> {
  const [subscription, invoice] = await Promise.all([
    deps.subscriptions.get(scope, subscriptionId),
    deps.invoices.get(scope, invoiceId),
  ]);
  return { view: await viewOf(deps, subscription), invoice: await invoiceView(deps, invoice) };
}

/**
 * The answer of the change an earlier request with the same Idempotency-Key made: its invoice
 * PAID -> the change as it stands; VOID -> the 402 it answered; still OPEN -> its charge's
 * outcome, asked of the provider (and recorded) when not known yet, 503 while unknown. A charge
 * that never reached the provider (settlement found it unknown and nothing to send again) is
 * not made again under this key.
 */
async function answerEarlierChange(
  deps: BillingDeps,
  scope: ProjectScope,
  subscriptionId: string,
  invoiceId: string,
): Promise<PlanChangeResult> {
  const invoice = await deps.invoices.get(scope, invoiceId);
  const reference = invoiceChargeReference(invoice.id, 1);
  const payment = await deps.payments.findByReference(reference);
  if (invoice.status === 'OPEN' && payment?.status === 'PENDING') {
    const known = await deps
      .providerFor(scope.livemode)
      .verifyTransaction(reference)
      .catch(() => null);
    if (!known || known.status === 'pending') throw outcomeUnknown();
    answered(await recordChargeOutcome(deps, reference, known, payment.createdAt));
    return changed(deps, scope, subscriptionId, invoiceId);
  }
  if (invoice.status === 'PAID') return changed(deps, scope, subscriptionId, invoiceId);
  if (payment?.gatewayResponse === NEVER_CHARGED || invoice.status === 'OPEN') {
    throw new DomainError(
      'conflict',
      'The plan change of the request with this Idempotency-Key was never charged; send a new key to change the plan',
    );
  }
  throw new DomainError('payment_required', payment?.gatewayResponse || 'The payment failed');
}
