import { randomUUID } from 'node:crypto';
import { UniqueConstraintError, type Transaction } from 'sequelize';
import { DomainError, recordEvent, type FieldViolation, type ProjectScope, recordEvents } from '@billing/platform';
import { PaymentProviderError, type VerifiedTransaction } from '@billing/payments';
import { subscriptionStart, subscriptionTerms, type PlanSnapshot } from '../../domain/checkout-completion';
import { InsufficientBalanceError, usableBalance } from '../../domain/customer-balance';
import { TAX_EXEMPTIONS, totalInvoice, type InvoiceTax, type InvoiceTotals } from '../../domain/invoice-totals';
import { discountColumns, nextInvoiceDiscount, type SubscriptionDiscount } from '../../domain/subscription-discount';
import { checkTaxRateIds } from '../../domain/tax-rates';
import type { CustomerModel, PaymentAuthorizationModel } from '../../db/models';
import { invoiceEvents } from '../../events/invoice.events';
import { subscriptionEvents } from '../../events/subscription.events';
import type { BillingDeps } from '../../billing-deps';
import { countFirstCharge } from '../../billing-metrics';
import { NEVER_CHARGED } from '../../invoicing/invoice-payment';
import { createFirstInvoice, FIRST_CHARGE_PREFIX } from '../../invoicing/first-invoice';
import { attachableTaxRates, attachedTaxRates, invoiceTax } from '../../invoicing/invoice-taxes';
import { viewOf, type SubscriptionView } from '../../read-models/subscription.read-model';

const MAX_TRIAL_DAYS = 730;
const MAX_METADATA_KEYS = 50;

export interface CreateSubscriptionCommand {
  customerId: string;
  /** The plan as catalog has it now (the gateway refused an inactive one). */
  plan: PlanSnapshot;
  /** Overrides the plan's trial (0 = no trial). */
  trialPeriodDays?: number;
  /** Fixed term: the number of paid periods; absent = until cancelled. */
  billingCycles?: number;
  metadata: Record<string, unknown>;
  /** The caller's Idempotency-Key: a retry with it finds this request's subscription or charge. */
  idempotencyKey?: string;
  /**
   * The discount of the coupon the gateway redeemed for this subscription (docs/api-behaviour.md
   * §19): it starts with the first invoice (the one charged now, or the first after the trial).
   */
  discount: SubscriptionDiscount | null;
  /**
   * The subscription's own tax rates (docs/api-behaviour.md §21), replacing its plan's: at most
   * 5, active, of this project and mode; [] = no tax. null: its plan's (plan.taxRateIds).
   */
  taxRateIds: string[] | null;
}

/** The ids a subscription request uses; with an Idempotency-Key they are stored with the key. */
interface CreationIds extends Record<string, unknown> {
  subscriptionId: string;
  invoiceId: string;
}

const IN_PROGRESS = 'The first charge of the request with this Idempotency-Key is still in progress; please retry';
const BALANCE_CHANGED =
  "The customer's balance changed while the first period was being charged; nothing was created, please retry";

/**
 * Subscribes a customer with a saved card to a plan (docs/api-behaviour.md §8).
 *
 * With a trial it starts TRIALING and charges nothing (the card was verified when it was
 * saved). Without one the first period is charged now and nothing is created unless that charge
 * succeeds (402 otherwise). The order keeps money and records together:
 *  1. the ids are chosen up front and the attempt is written to the payments ledger (PENDING)
 *     under a reference derived from the invoice id, so a charge the provider made is never
 *     unknown to billing, even if this process dies right after;
 *  2. the provider charges the saved authorization, idempotently by that reference, the first
 *     invoice's amount_due, tax included (§21): the customer's balance pays the rest
 *     (docs/api-behaviour.md §20), and a balance that covers it all means no charge at all;
 *  3. only on success, one transaction creates the ACTIVE subscription, its PAID invoice (taking
 *     exactly the credit the charge left out from the balance; a balance spent meanwhile by
 *     another invoice refuses it, 503, and settlement refunds the charge), settles the ledger
 *     row and records subscription.created, invoice.created and invoice.paid.
 * A request that dies between 1 and 3 leaves the row PENDING: settleFirstCharges verifies it
 * later and refunds a charge that went through (nothing was created for it). The final
 * transaction locks that row and requires it still PENDING, so the two never both act.
 */
export async function createSubscription(
  deps: BillingDeps,
  scope: ProjectScope,
  command: CreateSubscriptionCommand,
): Promise<SubscriptionView> {
  assertCommand(command);
  // At most 5, each once (422), before anything is looked up; each rate is looked up below.
  if (command.taxRateIds) checkTaxRateIds(command.taxRateIds, ['body', 'tax_rate_ids']);
  const customer = await deps.customers.get(scope, command.customerId);
  let ids: CreationIds = { subscriptionId: randomUUID(), invoiceId: randomUUID() };
  if (command.idempotencyKey) {
    const keyed = await deps.idempotencyKeys.claim(
      scope,
      {
        operation: 'create_subscription',
        key: command.idempotencyKey,
        fingerprint: `${customer.id}:${command.plan.planId}`,
        resource: ids,
      },
      deps.clock.now(),
    );
    ids = keyed.resource;
    if (!keyed.fresh) {
      const earlier = await findEarlierCreation(deps, scope, { command, customer, ids });
      if (earlier === 'never_charged') {
        // Its charge never reached the provider: new ids (a new reference) for the first real charge.
        const next = { subscriptionId: randomUUID(), invoiceId: randomUUID() };
        const replaced = await deps.idempotencyKeys.replace(
          scope,
          { operation: 'create_subscription', key: command.idempotencyKey },
          { field: 'invoiceId', value: ids.invoiceId },
          next,
        );
        if (!replaced) throw new DomainError('unavailable', IN_PROGRESS);
        ids = next;
      } else if (earlier) return earlier;
    }
  }
  const authorization = await deps.authorizations.findReusable(customer.id);
  if (!authorization) {
    throw new DomainError(
      'failed_precondition',
      'The customer has no saved card; it is saved when the customer pays a checkout',
    );
  }
  const plan: PlanSnapshot = {
    ...command.plan,
    trialPeriodDays: command.trialPeriodDays ?? command.plan.trialPeriodDays,
  };
  // null: the plan's rates, attached to it already (an inactive one keeps applying, §21).
  const rates =
    command.taxRateIds === null
      ? await attachedTaxRates(deps, scope, plan.taxRateIds)
      : await attachableTaxRates(deps, scope, command.taxRateIds, ['body', 'tax_rate_ids']);
  const tax = invoiceTax(rates, customer.taxExempt);
  const now = await deps.clocks.now(scope);
  const start = subscriptionStart(plan, now);
  // The subscription this request creates may spend the balance: it is the merchant's own call.
  const balance = usableBalance(
    { amount: customer.balance, currency: customer.balanceCurrency },
    { currency: plan.currency, usesCustomerBalance: true },
  );
  const money = firstInvoiceMoney(plan, command.discount, tax, balance);

  // A trial charges nothing now; a free plan, or one the discount or the balance pays in full, has nothing to charge.
  if (start.status === 'TRIALING' || money.amountDue === 0) {
    const credit = start.status === 'TRIALING' ? 0 : money.creditApplied;
    try {
      return await deps.sequelize.transaction((transaction) =>
        record(deps, scope, { command, plan, customer, now, ids, charged: null, credit, tax }, transaction),
      );
    } catch (err) {
      // A concurrent request with the same Idempotency-Key created it first.
      const created = err instanceof UniqueConstraintError && (await findSubscription(deps, scope, ids.subscriptionId));
      if (created) return created;
      throw err;
    }
  }

  const reference = firstChargeReference(ids.invoiceId);
  await deps.sequelize
    .transaction(async (transaction) => {
      await deps.payments.record(
        scope,
        {
          id: randomUUID(),
          reference,
          purpose: 'INVOICE',
          customerId: customer.id,
          invoiceId: null,
          amount: money.amountDue,
          currency: plan.currency,
          status: 'PENDING',
          gatewayResponse: null,
          // The credit the charge leaves out and the exemption it was taxed by: a retry with the
          // Idempotency-Key records the same.
          providerResponse: {
            subscription_id: ids.subscriptionId,
            invoice_id: ids.invoiceId,
            credit_applied: money.creditApplied,
            tax_exempt: tax.exempt,
          },
          createdAt: now,
        },
        transaction,
      );
      // Real time: settlement takes over a row this request has held for too long.
      await deps.payments.startCharge(reference, deps.clock.now(), transaction);
    })
    .catch((err: unknown) => {
      // The same ids: a concurrent request with this Idempotency-Key is making the charge.
      if (err instanceof UniqueConstraintError && command.idempotencyKey)
        throw new DomainError('unavailable', IN_PROGRESS);
      throw err;
    });
  const charged = await chargeFirstPeriod(deps, scope, {
    customer,
    authorization,
    amount: money.amountDue,
    currency: plan.currency,
    reference,
    ids,
  });
  countFirstCharge(
    charged.status === 'success' ? 'succeeded' : charged.status === 'pending' ? 'pending' : 'failed',
    scope.livemode,
  );
  if (charged.status === 'pending') {
    throw new DomainError('unavailable', 'The payment provider has not settled the first charge yet; please retry');
  }
  if (charged.status !== 'success') {
    await settlePayment(deps, reference, 'FAILED', charged, null, now);
    throw new DomainError('payment_required', charged.gatewayResponse || `Payment ${charged.status}`);
  }
  return deps.sequelize.transaction((transaction) =>
    record(deps, scope, { command, plan, customer, now, ids, charged, credit: money.creditApplied, tax }, transaction),
  );
}

/**
 * What the first invoice will come to (createFirstInvoice computes it again, through
 * createInvoices, when it writes the invoice, with the same tax): the card is charged its
 * amount_due before the invoice exists, so the credit is decided here, from the balance as read now.
 */
function firstInvoiceMoney(
  plan: PlanSnapshot,
  discount: SubscriptionDiscount | null,
  tax: InvoiceTax,
  balance: number,
): InvoiceTotals {
  // The discount is what invoiceDiscountOf gives the subscription record() creates with it.
  return totalInvoice([{ type: 'SUBSCRIPTION', amount: plan.amount }], nextInvoiceDiscount(discount), tax, balance);
}

/**
 * The tax the first charge of an earlier request with the same Idempotency-Key was computed
 * with: the rates it named (checked then; a rate deactivated since still applies where attached)
 * and the exemption its ledger row recorded.
 */
async function earlierChargeTax(
  deps: BillingDeps,
  scope: ProjectScope,
  command: CreateSubscriptionCommand,
  recorded: unknown,
  customer: CustomerModel,
): Promise<InvoiceTax> {
  const rates = await attachedTaxRates(deps, scope, command.taxRateIds ?? command.plan.taxRateIds);
  const exempt = TAX_EXEMPTIONS.find((e) => e === recorded) ?? customer.taxExempt;
  return invoiceTax(rates, exempt);
}

const firstChargeReference = (invoiceId: string) => `${FIRST_CHARGE_PREFIX}${invoiceId}`;

async function findSubscription(deps: BillingDeps, scope: ProjectScope, id: string, transaction?: Transaction) {
  const subscription = await deps.subscriptions.find(scope, id, transaction);
  return subscription && viewOf(deps, subscription, transaction);
}

/**
 * What an earlier request with the same Idempotency-Key did, or null when it did nothing that
 * lasts (it died before its charge was written), or 'never_charged' when settlement found its
 * charge unknown to the provider (nothing was charged): the subscription it created; else its first
 * charge, finished here when the provider already knows the outcome (a success creates the
 * subscription, a failure is the 402 the first request would have answered). A charge whose
 * outcome is not known yet is never sent again: 503 until it is.
 */
async function findEarlierCreation(
  deps: BillingDeps,
  scope: ProjectScope,
  input: { command: CreateSubscriptionCommand; customer: CustomerModel; ids: CreationIds },
): Promise<SubscriptionView | null | 'never_charged'> {
  const { ids } = input;
  const created = await findSubscription(deps, scope, ids.subscriptionId);
  if (created) return created;
  const reference = firstChargeReference(ids.invoiceId);
  const payment = await deps.payments.findByReference(reference);
  if (!payment) return null;
  if (payment.status === 'FAILED' && payment.gatewayResponse === NEVER_CHARGED) return 'never_charged';
  if (payment.status === 'FAILED') {
    throw new DomainError('payment_required', payment.gatewayResponse || 'Payment failed');
  }
  if (payment.status === 'SUCCEEDED') {
    // Committed with the subscription, unless settlement took the charge over and refunded it.
    const committed = await findSubscription(deps, scope, ids.subscriptionId);
    if (committed) return committed;
    throw new DomainError(
      'conflict',
      'The request with this Idempotency-Key was abandoned and its charge refunded; send a new key to subscribe',
    );
  }
  // "Not found" is no answer here: the first request's charge may still be on its way.
  const known = await deps
    .providerFor(scope.livemode)
    .verifyTransaction(reference)
    .catch(() => null);
  if (known?.status === 'failed' || known?.status === 'abandoned') {
    await settlePayment(deps, reference, 'FAILED', known, null, deps.clock.now());
    throw new DomainError('payment_required', known.gatewayResponse || `Payment ${known.status}`);
  }
  if (known?.status !== 'success') throw new DomainError('unavailable', IN_PROGRESS);
  const plan = { ...input.command.plan, trialPeriodDays: 0 };
  const credit = Number(payment.providerResponse.credit_applied ?? 0);
  const tax = await earlierChargeTax(deps, scope, input.command, payment.providerResponse.tax_exempt, input.customer);
  return deps.sequelize.transaction((transaction) =>
    record(
      deps,
      scope,
      {
        command: input.command,
        plan,
        customer: input.customer,
        now: payment.createdAt,
        ids,
        charged: known,
        credit,
        tax,
      },
      transaction,
    ),
  );
}

function assertCommand(command: CreateSubscriptionCommand): void {
  const violations: FieldViolation[] = [];
  const { trialPeriodDays, billingCycles, metadata } = command;
  if (
    trialPeriodDays !== undefined &&
    (!Number.isInteger(trialPeriodDays) || trialPeriodDays < 0 || trialPeriodDays > MAX_TRIAL_DAYS)
  ) {
    violations.push({
      loc: ['body', 'trial_period_days'],
      msg: `Input should be an integer from 0 to ${MAX_TRIAL_DAYS}`,
      type: 'value_error',
      input: trialPeriodDays,
    });
  }
  if (billingCycles !== undefined && (!Number.isInteger(billingCycles) || billingCycles < 1)) {
    violations.push({
      loc: ['body', 'billing_cycles'],
      msg: 'Input should be greater than or equal to 1',
      type: 'greater_than_equal',
      input: billingCycles,
    });
  }
  if (Object.keys(metadata).length > MAX_METADATA_KEYS) {
    violations.push({
      loc: ['body', 'metadata'],
      msg: `Metadata can have at most ${MAX_METADATA_KEYS} keys`,
      type: 'too_long',
      ctx: { max_length: MAX_METADATA_KEYS },
    });
  }
  if (violations.length) throw DomainError.invalid(violations);
}

/** What the provider said about the first charge. */
type ChargeAnswer = Pick<VerifiedTransaction, 'reference' | 'status' | 'gatewayResponse' | 'paidAt'>;

/**
 * The provider's answer for the first charge. A refused request charged nothing (a failure in
 * the provider's words). A provider that cannot be reached may still have charged: the same
 * reference is then asked about (verify); an outcome that stays unknown is a 503 with the ledger
 * row left PENDING for reconciliation, never a second charge.
 */
async function chargeFirstPeriod(
  deps: BillingDeps,
  scope: ProjectScope,
  input: {
    customer: CustomerModel;
    authorization: PaymentAuthorizationModel;
    /** The first invoice's amount_due (minor units). */
    amount: number;
    currency: string;
    reference: string;
    ids: { subscriptionId: string; invoiceId: string };
  },
): Promise<ChargeAnswer> {
  const provider = deps.providerFor(scope.livemode);
  try {
    return await provider.chargeAuthorization({
      authorizationCode: input.authorization.authorizationCode,
      email: input.customer.email,
      amount: input.amount,
      currency: input.currency,
      reference: input.reference,
      metadata: { subscription_id: input.ids.subscriptionId, invoice_id: input.ids.invoiceId },
    });
  } catch (err) {
    if (!(err instanceof PaymentProviderError)) throw err;
    if (!err.retryable) {
      return { reference: input.reference, status: 'failed', gatewayResponse: err.message, paidAt: null };
    }
    const known = await provider.verifyTransaction(input.reference).catch(() => null);
    if (known && known.status !== 'pending') return known;
    deps.logger.warn({ err, reference: input.reference }, 'first charge outcome unknown; left PENDING');
    throw new DomainError(
      'unavailable',
      'The payment provider could not be reached to charge the first period; please retry',
    );
  }
}

/** Settles the first charge's ledger row, only while it is still PENDING (settlement may own it). */
async function settlePayment(
  deps: BillingDeps,
  reference: string,
  status: 'SUCCEEDED' | 'FAILED',
  charged: ChargeAnswer,
  invoiceId: string | null,
  at: Date,
  transaction?: Transaction,
): Promise<void> {
  await deps.payments.settlePending(
    reference,
    {
      status,
      invoiceId,
      gatewayResponse: charged.gatewayResponse || null,
      providerResponse: { status: charged.status, paid_at: charged.paidAt?.toISOString() ?? null },
      at,
    },
    transaction,
  );
}

async function record(
  deps: BillingDeps,
  scope: ProjectScope,
  input: {
    command: CreateSubscriptionCommand;
    plan: PlanSnapshot;
    customer: CustomerModel;
    now: Date;
    ids: { subscriptionId: string; invoiceId: string };
    charged: ChargeAnswer | null;
    /** The customer's balance the first invoice takes (what the charge left out). */
    credit: number;
    /** The tax the first charge was computed with (§21). */
    tax: InvoiceTax;
  },
  transaction: Transaction,
): Promise<SubscriptionView> {
  const { plan, customer, now, charged } = input;
  if (charged) {
    // Held until commit; a row no longer PENDING was taken over (and refunded) by settlement.
    const payment = await deps.payments.lockByReference(charged.reference, transaction);
    if (payment?.status !== 'PENDING') {
      // A concurrent request with the same Idempotency-Key recorded it first.
      const created =
        payment?.invoiceId && (await findSubscription(deps, scope, input.ids.subscriptionId, transaction));
      if (created) return created;
      throw new DomainError('unavailable', 'The first charge took too long and was refunded; please retry');
    }
  }
  const start = subscriptionStart(plan, now);
  const subscription = await deps.subscriptions.create(
    scope,
    {
      id: input.ids.subscriptionId,
      customerId: customer.id,
      ...subscriptionTerms(plan, start),
      billingCycles: input.command.billingCycles ?? null,
      metadata: input.command.metadata,
      checkoutSessionId: null,
      createdAt: now,
      // The rates as looked up (in order, ids in their stored form); null: the plan's.
      taxRateIds: input.command.taxRateIds && input.tax.rates.map((rate) => rate.taxRateId),
      ...discountColumns(input.command.discount),
    },
    transaction,
  );
  const view = await viewOf(deps, subscription, transaction);
  await recordEvent(deps.sequelize, transaction, subscriptionEvents.created(view, now));
  if (start.status === 'TRIALING') return view;

  const invoice = await createFirstInvoice(deps, scope, subscription, {
    transactionReference: charged?.reference ?? null,
    now,
    transaction,
    invoiceId: input.ids.invoiceId,
    credit: input.credit,
    tax: input.tax,
  }).catch((err: unknown) => {
    // Another invoice (or an adjustment) spent the credit since it was counted: the first
    // invoice would not be paid in full. Nothing is created; a charge made is refunded by
    // settleFirstCharges, its ledger row being left PENDING.
    if (err instanceof InsufficientBalanceError) throw new DomainError('unavailable', BALANCE_CHANGED);
    throw err;
  });
  if (charged) await settlePayment(deps, charged.reference, 'SUCCEEDED', charged, invoice.id, now, transaction);
  await recordEvents(deps.sequelize, transaction, [
    invoiceEvents.created(invoice, customer.email, now),
    invoiceEvents.paid(invoice, customer.email, now),
  ]);
  return view;
}
