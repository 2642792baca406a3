import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import { DomainError, isUuid, type FieldViolation, type ProjectScope, recordEvents } from '@billing/platform';
import type { VerifiedTransaction } from '@billing/payments';
import {
  assertCheckoutPaid,
  assertPaymentOfSession,
  quoteCheckout,
  subscriptionStart,
  subscriptionTerms,
  verifiedPaymentFields,
  type CheckoutQuote,
  type PlanSnapshot,
} from '../../domain/checkout-completion';
import { isValidEmail } from '../../domain/customer-rules';
import { discountColumns, type SubscriptionDiscount } from '../../domain/subscription-discount';
import type { CustomerModel, TaxRateModel } from '../../db/models';
import { customerEvents } from '../../events/customer.events';
import { invoiceEvents } from '../../events/invoice.events';
import { subscriptionEvents } from '../../events/subscription.events';
import type { BillingDeps } from '../../billing-deps';
import { countCharge } from '../../billing-metrics';
import { issuePendingRefunds } from '../../invoicing/refund-issuing';
import { callProvider } from '../../provider-call';
import { viewOf } from '../../read-models/subscription.read-model';
import { createFirstInvoice } from '../../invoicing/first-invoice';
import { attachedTaxRates, invoiceTax } from '../../invoicing/invoice-taxes';
import {
  lockCheckoutSession,
  refundUnusedCheckoutPayment,
  type UnusedPaymentOutcome,
} from '../../invoicing/unused-checkout-payment';

export interface CompleteCheckoutCommand {
  checkoutSessionId: string;
  transactionReference: string;
  plan: PlanSnapshot;
  /** The session's e-mail; empty = the e-mail the payer gave the provider. */
  customerEmail: string;
  /** The payer typed customerEmail on the hosted page (the merchant gave none). */
  customerEmailTypedByPayer?: boolean;
  customerName: string;
  /** The session's metadata, kept on the subscription. */
  metadata: Record<string, unknown>;
  /**
   * The discount of the coupon redeemed for the session (docs/api-behaviour.md §19): the payment
   * is the discounted first charge and the subscription keeps it for its invoices.
   */
  discount: SubscriptionDiscount | null;
  /**
   * The session's own tax rates, kept by the subscription (docs/api-behaviour.md §21); null: the
   * plan's (plan.taxRateIds, as the session kept them). Checked when the session was made.
   */
  taxRateIds: string[] | null;
}

export interface CheckoutCompletion {
  customerId: string;
  subscriptionId: string;
  /** The first invoice; null for a trial. */
  invoiceId: string | null;
  /** What became of the command's payment: USED, or (another payment completed it) refunded. */
  paymentOutcome: UnusedPaymentOutcome;
}

/**
 * Turns a paid checkout into a customer, a subscription and (paid start) its PAID first invoice.
 *
 * Exactly once per checkout session, however many callers race (the hosted page's callback and
 * the provider's webhook, on any number of replicas):
 *  - the writes happen in one transaction that first takes an advisory lock on the session id,
 *    so completions of one session run one after the other, and the second finds the first's
 *    subscription (checkout_session_id is UNIQUE as a backstop) and returns its ids;
 *  - the provider's transaction reference is UNIQUE in the payments ledger, so one payment
 *    cannot pay for two sessions;
 *  - the verification charge of a trial is refunded after commit from a refund row written in
 *    the same transaction and claimed before issuing, so it is refunded once.
 */
export async function completeCheckout(
  deps: BillingDeps,
  scope: ProjectScope,
  command: CompleteCheckoutCommand,
): Promise<CheckoutCompletion> {
  assertCommand(command);
  // A repeat: the first completion's answer stands, and a second payment is refunded.
  const earlier = await findCompletion(deps, scope, command.checkoutSessionId);
  if (earlier) return settleRepeat(deps, scope, command, earlier);

  // The rates the session carries, active or not: they were attachable when it was made and an
  // attached rate keeps applying (§21).
  const rates = await attachedTaxRates(deps, scope, command.taxRateIds ?? command.plan.taxRateIds);
  // The page quoted and charged with exemption NONE: the payer was not known yet.
  const quote = quoteCheckout(command.plan, command.discount, invoiceTax(rates, 'NONE'));
  const verified = assertCheckoutPaid(
    await callProvider('verify the payment', () =>
      deps.providerFor(scope.livemode).verifyTransaction(command.transactionReference),
    ),
    command.plan,
    quote,
  );
  assertPaymentOfSession(verified, command.checkoutSessionId);
  const email = (command.customerEmail || verified.customer?.email || '').trim();
  if (!isValidEmail(email)) {
    throw DomainError.invalid([
      { loc: ['customer_email'], msg: 'value is not a valid email address', type: 'value_error', input: email },
    ]);
  }

  let completion: CheckoutCompletion;
  try {
    completion = await deps.sequelize.transaction((transaction) =>
      recordCompletion(deps, scope, { ...command, customerEmail: email }, { verified, quote, rates }, transaction),
    );
  } catch (err) {
    if ((err as { name?: string }).name !== 'SequelizeUniqueConstraintError') throw err;
    // The session's own race is serialized by the lock, so this is the payment reference: it
    // already paid for another checkout session.
    const again = await findCompletion(deps, scope, command.checkoutSessionId);
    if (again) return settleRepeat(deps, scope, command, again);
    throw paymentAlreadyUsed();
  }
  return settle(deps, completion);
}

/**
 * The session is completed already. The same payment again (callback and webhook racing) is
 * USED; another payment of the session (a second tab's Pay) completed nothing and is refunded.
 */
async function settleRepeat(
  deps: BillingDeps,
  scope: ProjectScope,
  command: CompleteCheckoutCommand,
  earlier: CheckoutCompletion,
): Promise<CheckoutCompletion> {
  const paymentOutcome = await refundUnusedCheckoutPayment(deps, scope, {
    checkoutSessionId: command.checkoutSessionId,
    transactionReference: command.transactionReference,
  });
  return { ...(await settle(deps, earlier)), paymentOutcome };
}

const paymentAlreadyUsed = () =>
  new DomainError('failed_precondition', 'This payment was already used to complete another checkout');

function assertCommand(command: CompleteCheckoutCommand): void {
  const violations: FieldViolation[] = [];
  if (!isUuid(command.checkoutSessionId)) {
    violations.push({
      loc: ['checkout_session_id'],
      msg: 'Input should be a valid UUID',
      type: 'uuid_parsing',
      input: command.checkoutSessionId,
    });
  }
  if (!command.transactionReference.trim()) {
    violations.push({ loc: ['transaction_reference'], msg: 'Field required', type: 'missing' });
  }
  if (violations.length) throw DomainError.invalid(violations);
}

/** After commit: issue the refunds the completion decided, then answer with its ids. */
async function settle(deps: BillingDeps, completion: CheckoutCompletion): Promise<CheckoutCompletion> {
  await issuePendingRefunds(deps, completion.subscriptionId);
  return completion;
}

async function findCompletion(
  deps: BillingDeps,
  scope: ProjectScope,
  checkoutSessionId: string,
  transaction?: Transaction,
): Promise<CheckoutCompletion | null> {
  const subscription = await deps.subscriptions.findByCheckoutSession(checkoutSessionId, transaction);
  if (!subscription) return null;
  if (subscription.projectId !== scope.projectId || subscription.livemode !== scope.livemode) {
    throw new DomainError('permission_denied', 'This checkout session was completed in another project');
  }
  const invoice = await deps.invoices.findFirstOfSubscription(subscription.id, transaction);
  return {
    customerId: subscription.customerId,
    subscriptionId: subscription.id,
    invoiceId: invoice?.id ?? null,
    paymentOutcome: 'USED',
  };
}

async function recordCompletion(
  deps: BillingDeps,
  scope: ProjectScope,
  command: CompleteCheckoutCommand,
  paid: { verified: VerifiedTransaction; quote: CheckoutQuote; rates: TaxRateModel[] },
  transaction: Transaction,
): Promise<CheckoutCompletion> {
  const { verified, quote, rates } = paid;
  // Held until commit: concurrent completions of this session wait here, then see its result.
  await lockCheckoutSession(deps, command.checkoutSessionId, transaction);
  const earlier = await findCompletion(deps, scope, command.checkoutSessionId, transaction);
  if (earlier) return earlier;
  // One payment pays for one checkout (the ledger's unique reference is the backstop).
  if (await deps.payments.findByReference(verified.reference, transaction)) throw paymentAlreadyUsed();

  const now = await deps.clocks.now(scope, transaction);
  const { plan } = command;
  const { customer, created } = await findOrCreateCustomer(deps, scope, command, verified, now, transaction);
  // A payer who only typed an existing customer's e-mail does not become that customer for
  // anything but this checkout's subscription: their card pays it alone, and it spends none of
  // the customer's balance (docs/api-behaviour.md §20). A new customer, or one the merchant named
  // on the session, is joined in full.
  const joinsCustomer = created || !command.customerEmailTypedByPayer;
  const subscriptionId = randomUUID();
  if (verified.authorization) {
    await deps.authorizations.save(
      customer.id,
      verified.authorization,
      now,
      transaction,
      joinsCustomer ? null : subscriptionId,
    );
  }

  const start = subscriptionStart(plan, now);
  const subscription = await deps.subscriptions.create(
    scope,
    {
      id: subscriptionId,
      usesCustomerBalance: joinsCustomer,
      customerId: customer.id,
      ...subscriptionTerms(plan, start),
      billingCycles: null,
      metadata: command.metadata,
      checkoutSessionId: command.checkoutSessionId,
      createdAt: now,
      // Its own rates when the session had them; else its plan's, kept by subscriptionTerms.
      taxRateIds: command.taxRateIds && rates.map((rate) => rate.id),
      ...discountColumns(command.discount),
    },
    transaction,
  );

  // A discount that leaves nothing to pay makes the checkout's charge a card check too.
  const { verification } = quote;
  const invoice =
    start.status === 'TRIALING'
      ? null
      : await createFirstInvoice(deps, scope, subscription, {
          // A free plan's card check is refunded; it does not pay the invoice.
          transactionReference: verification ? null : verified.reference,
          now,
          transaction,
          // The hosted page charged the (discounted) price: no balance is used on this invoice (§20).
          credit: 0,
          // Taxed as the page quoted and charged it (§21): the session's rates, exemption NONE,
          // since the payer was unknown when the price was shown; the customer's exemption
          // applies from the next invoice on.
          tax: invoiceTax(rates, 'NONE'),
        });
  const payment = await deps.payments.record(
    scope,
    {
      id: randomUUID(),
      purpose: verification ? 'VERIFICATION' : 'INVOICE',
      customerId: customer.id,
      checkoutSessionId: command.checkoutSessionId,
      invoiceId: verification ? null : (invoice?.id ?? null),
      ...verifiedPaymentFields(verified),
      createdAt: now,
    },
    transaction,
  );
  // The payer's payment on the hosted page paid the first invoice: counted as its charge.
  if (invoice && !verification) countCharge('succeeded', scope.livemode, transaction);
  if (verification) {
    // Decided here, issued after commit (a provider call inside the transaction could not be
    // rolled back with it).
    await deps.refunds.create(
      scope,
      {
        id: randomUUID(),
        reference: `verification:${verified.reference}`,
        paymentId: payment.id,
        transactionReference: verified.reference,
        invoiceId: null,
        subscriptionId: subscription.id,
        amount: verified.amount,
        currency: payment.currency,
        reason: 'VERIFICATION',
        createdAt: now,
        updatedAt: deps.clock.now(),
      },
      transaction,
    );
  }

  await recordEvents(deps.sequelize, transaction, [
    ...(created ? [customerEvents.created(customer, now)] : []),
    subscriptionEvents.created(await viewOf(deps, subscription, transaction), now),
    ...(invoice
      ? [invoiceEvents.created(invoice, customer.email, now), invoiceEvents.paid(invoice, customer.email, now)]
      : []),
  ]);
  return {
    customerId: customer.id,
    subscriptionId: subscription.id,
    invoiceId: invoice?.id ?? null,
    paymentOutcome: 'USED',
  };
}

/** The customer of this e-mail in the scope, created if new; fills what an earlier record lacked. */
async function findOrCreateCustomer(
  deps: BillingDeps,
  scope: ProjectScope,
  command: CompleteCheckoutCommand,
  verified: VerifiedTransaction,
  now: Date,
  transaction: Transaction,
): Promise<{ customer: CustomerModel; created: boolean }> {
  const name = command.customerName.trim() || null;
  const gatewayCustomerId = verified.customer?.customerCode ?? null;
  const found = await deps.customers.findOrCreateByEmail(
    scope,
    { id: randomUUID(), email: command.customerEmail, name, gatewayCustomerId, metadata: {}, createdAt: now },
    transaction,
  );
  const { customer } = found;
  if (!found.created && ((!customer.name && name) || (!customer.gatewayCustomerId && gatewayCustomerId))) {
    await deps.customers.fillMissing(customer, { name, gatewayCustomerId }, now, transaction);
  }
  return found;
}
