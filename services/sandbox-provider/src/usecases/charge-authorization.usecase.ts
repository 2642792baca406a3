import { DomainError } from '@billing/platform';
import { UniqueConstraintError } from 'sequelize';
import { newReference } from '../domain/codes';
import { CHARGE_OUTCOMES } from '../domain/ledger';
import type { AuthorizationModel, TransactionModel } from '../db/models';
import { announceDescribedChargeSuccess } from './announce-charge-success.usecase';
import { describeTransaction, transactionResource, type TransactionResource } from './paystack-resources';
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
 * Returns Paystack's `data` of the charge, built once and shared with the charge.success
 * webhook (the authorization is already loaded; only the customer is looked up).
 */
export async function chargeAuthorization(
  deps: SandboxDeps,
  command: ChargeAuthorizationCommand,
): Promise<TransactionResource> {
  const authorization = await deps.authorizations.findByCode(command.authorizationCode);
  if (!authorization) throw new DomainError('invalid_argument', 'Invalid authorization code');
  if (authorization.email.toLowerCase() !== command.email.toLowerCase()) {
    throw new DomainError('invalid_argument', 'Email does not match Authorization code');
  }
  const reference = command.reference ?? newReference();
  const earlier = await deps.transactions.findByReference(reference);
  if (earlier) return describeTransaction(deps, repeatedCharge(earlier, command));

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
    return describeTransaction(deps, repeatedCharge(winner, command));
  }
  const resource = await describeNewCharge(deps, charged, authorization);
  if (charged.status === 'success') announceDescribedChargeSuccess(deps, resource);
  return resource;
}

/** describeTransaction without reading the authorization again: the charge just used it. */
async function describeNewCharge(
  deps: SandboxDeps,
  charged: TransactionModel,
  authorization: AuthorizationModel,
): Promise<TransactionResource> {
  const customer = await deps.customers.findByEmail(charged.email);
  return transactionResource(charged, customer, authorization);
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
