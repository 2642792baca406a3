import { randomBytes } from 'node:crypto';
import { DomainError, isUuid, type ProjectScope } from '@billing/platform';
import { VERIFICATION_CHARGE_AMOUNT } from '@billing/payments';
import type { BillingDeps } from '../../billing-deps';
import { callProvider } from '../../provider-call';

export interface StartCardUpdateCommand {
  customerId: string;
  subscriptionId: string;
  /** Where the provider sends the payer back (the portal's callback); ?reference= is added. */
  returnUrl: string;
}

/**
 * "Update card" of the customer portal (docs/api-behaviour.md §20, "Updating the card"): a
 * verification charge of 1.00 in the subscription's currency at the provider's card page (the
 * sandbox in test mode), recorded as STARTED before the provider hears of it, so that whatever
 * becomes of it is applied once (applyCardUpdate). Answers where to send the payer. A subscription
 * that is not this customer's in this scope is a 404 that says nothing of which.
 */
export async function startCardUpdate(
  deps: BillingDeps,
  scope: ProjectScope,
  command: StartCardUpdateCommand,
): Promise<string> {
  const callbackUrl = callbackOf(command.returnUrl);
  const subscription =
    isUuid(command.subscriptionId) && isUuid(command.customerId)
      ? await deps.subscriptions.find(scope, command.subscriptionId)
      : null;
  if (!subscription || subscription.customerId !== command.customerId) {
    throw new DomainError('not_found', 'Subscription not found');
  }
  if (subscription.status === 'CANCELLED' || subscription.status === 'EXPIRED') {
    throw new DomainError(
      'failed_precondition',
      `This subscription is ${subscription.status}: no card pays it any more`,
    );
  }
  // Paystack allows only [A-Za-z0-9.=-] in a reference; 48 random bits tell two presses apart.
  const reference = `card-${subscription.id.replace(/-/g, '')}-${randomBytes(6).toString('hex')}`;
  callbackUrl.searchParams.set('reference', reference);
  const email = await deps.customers.emailOf(subscription.customerId);
  await deps.cardUpdates.recordStart(
    { projectId: scope.projectId, livemode: scope.livemode },
    {
      reference,
      customerId: subscription.customerId,
      subscriptionId: subscription.id,
      amount: VERIFICATION_CHARGE_AMOUNT,
      currency: subscription.currency,
      createdAt: deps.clock.now(),
    },
  );
  const started = await callProvider('start the card update', () =>
    deps.providerFor(scope.livemode).initializeTransaction({
      email,
      amount: VERIFICATION_CHARGE_AMOUNT,
      currency: subscription.currency,
      reference,
      callbackUrl: callbackUrl.toString(),
      metadata: { purpose: 'card_update', customer_id: subscription.customerId, subscription_id: subscription.id },
    }),
  );
  return started.authorizationUrl;
}

/** return_url as a URL the payer's browser can be sent to: http or https only. */
function callbackOf(returnUrl: string): URL {
  let url: URL | null = null;
  try {
    url = new URL(returnUrl);
  } catch {
    url = null;
  }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw DomainError.invalid([
      { loc: ['return_url'], msg: 'value is not a valid http(s) URL', type: 'url_parsing', input: returnUrl },
    ]);
  }
  return url;
}
