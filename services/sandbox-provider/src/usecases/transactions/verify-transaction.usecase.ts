import { DomainError } from '@billing/platform';
import { describeTransaction } from '../../resources/paystack-resources';
import type { SandboxDeps } from '../../sandbox-deps';

export async function verifyTransaction(deps: SandboxDeps, reference: string) {
  const transaction = await deps.transactions.findByReference(reference);
  if (!transaction) throw new DomainError('not_found', 'Transaction reference not found');
  return describeTransaction(deps, transaction);
}
