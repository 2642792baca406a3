import type { RefundModel, TransactionModel } from '../../db/models';
import type { SandboxDeps } from '../../sandbox-deps';

/** Paystack's GET /refund?transaction=: every refund of one transaction, oldest first. */
export async function listTransactionRefunds(
  deps: SandboxDeps,
  reference: string,
): Promise<{ refund: RefundModel; transaction: TransactionModel }[]> {
  const transaction = await deps.transactions.findByReference(reference);
  if (!transaction) return [];
  return (await deps.refunds.list([transaction.reference])).map((refund) => ({ refund, transaction }));
}
