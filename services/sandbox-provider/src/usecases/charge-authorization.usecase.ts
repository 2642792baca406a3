import { DomainError } from '@billing/platform';
import { UniqueConstraintError } from 'sequelize';
import { newReference } from '../domain/codes';
import { CHARGE_OUTCOMES } from '../domain/ledger';
import type { TransactionModel } from '../db/models';
import { announceChargeSuccess } from './announce-charge-success.usecase';
import type { SandboxDeps } from './sandbox-deps';

export interface ChargeAuthorizationCommand {
  authorizationCode: string;
  email: string;
  amount: number;
  currency: string;
  reference?: string;
  metadata: Record<string, unknown>;
}

/**
 * Charges a saved card as its behavior says. Idempotent per reference: the same charge sent
 * again (a retry after a timeout, a restart before the outcome was recorded) returns the first
 * transaction and never charges twice; a different charge under a used reference is refused.
 */
export async function chargeAuthorization(
  deps: SandboxDeps,
  command: ChargeAuthorizationCommand,
): Promise<TransactionModel> {
  const authorization = await deps.authorizations.findByCode(command.authorizationCode);
  if (!authorization) throw new DomainError('invalid_argument', 'Invalid authorization code');
  if (authorization.email.toLowerCase() !== command.email.toLowerCase()) {
    throw new DomainError('invalid_argument', 'Email does not match Authorization code');
  }
  const reference = command.reference ?? newReference();
  const earlier = await deps.transactions.findByReference(reference);
  if (earlier) return repeatedCharge(earlier, command);

  const outcome = CHARGE_OUTCOMES[authorization.behavior];
  const now = deps.clock.now();
  let charged: TransactionModel;
  try {
    charged = await deps.transactions.create({
      reference,
      amount: command.amount,
      currency: command.currency,
      email: authorization.email,
      status: outcome.status,
      gatewayResponse: outcome.gatewayResponse,
      accessCode: null,
      callbackUrl: null,
      metadata: command.metadata,
      authorizationCode: authorization.authorizationCode,
      channel: 'authorization',
      paidAt: outcome.status === 'success' ? now : null,
      createdAt: now,
    });
  } catch (err) {
    // The same charge raced itself: the unique reference let one in; answer with that one.
    if (!(err instanceof UniqueConstraintError)) throw err;
    const winner = await deps.transactions.findByReference(reference);
    if (!winner) throw err;
    return repeatedCharge(winner, command);
  }
  if (charged.status === 'success') await announceChargeSuccess(deps, charged);
  return charged;
}

function repeatedCharge(earlier: TransactionModel, command: ChargeAuthorizationCommand): TransactionModel {
  const sameCharge =
    earlier.channel === 'authorization' &&
    earlier.authorizationCode === command.authorizationCode &&
    earlier.amount === command.amount &&
    earlier.currency === command.currency;
  if (!sameCharge) throw new DomainError('already_exists', 'Duplicate Transaction Reference');
  return earlier;
}
