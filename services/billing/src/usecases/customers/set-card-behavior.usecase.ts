import { DomainError, type ProjectScope } from '@billing/platform';
import { CARD_BEHAVIORS, type CardBehavior } from '@billing/payments';
import type { BillingDeps } from '../../billing-deps';
import { callProvider } from '../../provider-call';

/** Test helper (docs/api-behaviour.md §16.2): the customer's saved sandbox card succeeds or fails from now on. */
export async function setCardBehavior(
  deps: BillingDeps,
  scope: ProjectScope,
  customerId: string,
  behavior: string,
): Promise<CardBehavior> {
  if (scope.livemode) throw new DomainError('permission_denied', 'Test helpers exist in test mode only');
  if (!(CARD_BEHAVIORS as readonly string[]).includes(behavior)) {
    throw DomainError.invalid([
      {
        loc: ['body', 'behavior'],
        msg: `Input should be ${CARD_BEHAVIORS.map((b) => `'${b}'`).join(', ')}`,
        type: 'enum',
        input: behavior,
      },
    ]);
  }
  const customer = await deps.customers.get(scope, customerId);
  const authorization = await deps.authorizations.findReusable(customer.id);
  if (!authorization) throw new DomainError('failed_precondition', 'The customer has no saved card');
  const controls = deps.sandboxControls;
  if (!controls) throw new DomainError('unavailable', 'The sandbox provider is not configured');
  await callProvider('change the card', () =>
    controls.setAuthorizationBehavior(authorization.authorizationCode, behavior as CardBehavior),
  );
  return behavior as CardBehavior;
}
