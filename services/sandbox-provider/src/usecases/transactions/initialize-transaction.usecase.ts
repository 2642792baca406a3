import { DomainError } from '@billing/platform';
import { UniqueConstraintError } from 'sequelize';
import { findOrCreateCustomer } from '../../customers/find-or-create-customer';
import { newAccessCode, newReference } from '../../domain/codes';
import type { SandboxDeps } from '../../sandbox-deps';

export interface InitializeTransactionCommand {
  email: string;
  amount: number;
  currency: string;
  reference?: string;
  callbackUrl?: string;
  metadata: Record<string, unknown>;
}

const duplicateReference = () => new DomainError('already_exists', 'Duplicate Transaction Reference');

/** Opens a pending hosted payment; the payer completes it on GET /pay/:access_code. */
export async function initializeTransaction(deps: SandboxDeps, command: InitializeTransactionCommand) {
  const reference = command.reference ?? newReference();
  if (await deps.transactions.findByReference(reference)) throw duplicateReference();
  // Paystack knows the customer from initialization on, so verify shows it even while pending.
  await findOrCreateCustomer(deps, { email: command.email });
  const accessCode = newAccessCode();
  try {
    await deps.transactions.create({
      reference,
      amount: command.amount,
      currency: command.currency,
      email: command.email,
      status: 'pending',
      gatewayResponse: null,
      accessCode,
      callbackUrl: command.callbackUrl ?? null,
      metadata: command.metadata,
      authorizationCode: null,
      channel: 'card',
      paidAt: null,
      createdAt: deps.clock.now(),
    });
  } catch (err) {
    // Two initializations with one reference at once: the unique index lets exactly one in.
    if (err instanceof UniqueConstraintError) throw duplicateReference();
    throw err;
  }
  return { authorizationUrl: `${deps.publicUrl}/pay/${accessCode}`, accessCode, reference };
}
