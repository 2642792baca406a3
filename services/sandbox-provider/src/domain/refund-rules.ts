import { DomainError } from '@billing/platform';
import type { TransactionStatus } from './ledger';

/**
 * How much a refund may take: only a successful transaction, never more than what earlier
 * refunds left of it. Without an amount, the refund takes all that is left.
 */
export function refundAmount(
  transaction: { status: TransactionStatus; amount: number },
  alreadyRefunded: number,
  requested: number | undefined,
): number {
  if (transaction.status !== 'success') {
    throw new DomainError('failed_precondition', 'Cannot refund a transaction that was not successful');
  }
  const remaining = transaction.amount - alreadyRefunded;
  if (remaining <= 0) throw new DomainError('failed_precondition', 'Transaction has been fully reversed');
  const amount = requested ?? remaining;
  if (amount > remaining) {
    throw new DomainError(
      'failed_precondition',
      alreadyRefunded === 0
        ? 'Refund amount cannot be more than the transaction amount'
        : `Refund amount cannot be more than the transaction amount not yet refunded (${remaining})`,
    );
  }
  return amount;
}
