import type { RefundModel, TransactionModel } from '../../db/models';
import type { SandboxDeps } from '../../sandbox-deps';

/**
 * Exactly what was charged and refunded, oldest first, so tests (and people) can check money
 * movements without trusting the platform's own records. Filters combine; none gives everything.
 */
export async function readLedger(deps: SandboxDeps, filter: { email?: string; reference?: string }) {
  const transactions = await deps.transactions.list(filter);
  const filtered = Boolean(filter.email || filter.reference);
  const refunds = await deps.refunds.list(filtered ? transactions.map((t) => t.reference) : undefined);
  return { transactions: transactions.map(ledgerTransaction), refunds: refunds.map(ledgerRefund) };
}

const ledgerTransaction = (t: TransactionModel) => ({
  reference: t.reference,
  amount: t.amount,
  currency: t.currency,
  email: t.email,
  status: t.status,
  gateway_response: t.gatewayResponse,
  channel: t.channel,
  authorization_code: t.authorizationCode,
  paid_at: t.paidAt ? t.paidAt.toISOString() : null,
  created_at: t.createdAt.toISOString(),
  metadata: t.metadata,
});

const ledgerRefund = (r: RefundModel) => ({
  id: r.id,
  transaction_reference: r.transactionReference,
  amount: r.amount,
  status: r.status,
  created_at: r.createdAt.toISOString(),
});
