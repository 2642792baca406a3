import type { TransactionModel } from '../../db/models';
import { unknownPayment } from '../../domain/hosted-payment';
import type { SandboxDeps } from '../../sandbox-deps';

/** The payment a hosted page's link names, to show the payer. */
export async function findHostedPayment(deps: SandboxDeps, accessCode: string): Promise<TransactionModel> {
  const transaction = await deps.transactions.findByAccessCode(accessCode);
  if (!transaction) throw unknownPayment();
  return transaction;
}
