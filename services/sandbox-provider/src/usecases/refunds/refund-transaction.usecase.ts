import { DomainError } from '@billing/platform';
import { refundAmount } from '../../domain/refund-rules';
import type { RefundModel, TransactionModel } from '../../db/models';
import type { SandboxDeps } from '../../sandbox-deps';

/**
 * Refunds all or part of a successful transaction. The transaction row is locked while earlier
 * refunds are summed, so concurrent refunds can never together exceed what was paid. The
 * sandbox settles at once: the refund is `processed` when this returns.
 */
export function refundTransaction(
  deps: SandboxDeps,
  command: { reference: string; amount?: number; merchantNote?: string },
): Promise<{ refund: RefundModel; transaction: TransactionModel }> {
  return deps.sequelize.transaction(async (dbTransaction) => {
    const transaction = await deps.transactions.findByReference(command.reference, {
      transaction: dbTransaction,
      forUpdate: true,
    });
    if (!transaction) throw new DomainError('not_found', 'Transaction reference not found');
    const alreadyRefunded = await deps.refunds.totalFor(transaction.reference, dbTransaction);
    const amount = refundAmount(transaction, alreadyRefunded, command.amount);
    const refund = await deps.refunds.create(
      {
        transactionReference: transaction.reference,
        amount,
        status: 'processed',
        merchantNote: command.merchantNote ?? null,
        createdAt: deps.clock.now(),
      },
      dbTransaction,
    );
    return { refund, transaction };
  });
}
