import { SANDBOX_CARD } from '../domain/ledger';
import type { AuthorizationRow, CustomerRow, RefundModel, TransactionModel, TransactionRow } from '../db/models';
import type { SandboxDeps } from '../sandbox-deps';

/**
 * Paystack's JSON shapes, built in one place so verify, charge and webhooks never drift apart.
 * They read plain rows: a model instance is one, and so is what a raw query reads back.
 */

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function customerResource(customer: CustomerRow) {
  return {
    id: customer.id,
    customer_code: customer.customerCode,
    email: customer.email,
    first_name: customer.firstName,
    last_name: customer.lastName,
    phone: null,
    metadata: {},
    risk_action: 'default',
    domain: 'test',
    createdAt: customer.createdAt.toISOString(),
  };
}

export function authorizationResource(authorization: AuthorizationRow) {
  return {
    authorization_code: authorization.authorizationCode,
    bin: SANDBOX_CARD.bin,
    last4: authorization.last4,
    exp_month: authorization.expMonth,
    exp_year: authorization.expYear,
    channel: 'card',
    card_type: SANDBOX_CARD.cardType,
    bank: SANDBOX_CARD.bank,
    country_code: 'NG',
    brand: authorization.brand,
    reusable: true,
    account_name: null,
  };
}

export type TransactionResource = ReturnType<typeof transactionResource>;

/** The `data` of GET /transaction/verify, of charge_authorization and of `charge.success`. */
export function transactionResource(
  transaction: TransactionRow,
  customer: CustomerRow | null,
  authorization: AuthorizationRow | null,
) {
  return {
    id: transaction.id,
    domain: 'test',
    status: transaction.status,
    reference: transaction.reference,
    amount: transaction.amount,
    requested_amount: transaction.amount,
    message: null,
    gateway_response: transaction.gatewayResponse,
    paid_at: iso(transaction.paidAt),
    created_at: transaction.createdAt.toISOString(),
    // Paystack reports a saved-card charge as a card payment too.
    channel: 'card',
    currency: transaction.currency,
    metadata: transaction.metadata,
    customer: customer ? customerResource(customer) : null,
    // Paystack sends an empty object, not null, before a card is attached.
    authorization: authorization ? authorizationResource(authorization) : {},
  };
}

export async function describeTransaction(deps: SandboxDeps, transaction: TransactionRow) {
  const [customer, authorization] = await Promise.all([
    deps.customers.findByEmail(transaction.email),
    transaction.authorizationCode ? deps.authorizations.findByCode(transaction.authorizationCode) : null,
  ]);
  return transactionResource(transaction, customer, authorization);
}

export function refundResource(refund: RefundModel, transaction: TransactionModel) {
  return {
    id: refund.id,
    transaction: {
      id: transaction.id,
      reference: transaction.reference,
      amount: transaction.amount,
      currency: transaction.currency,
    },
    amount: refund.amount,
    currency: transaction.currency,
    status: refund.status,
    merchant_note: refund.merchantNote,
    domain: 'test',
    createdAt: refund.createdAt.toISOString(),
  };
}
