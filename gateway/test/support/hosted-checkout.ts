import { randomUUID } from 'node:crypto';
import { payCheckoutPageInSandbox } from '@billing/testing';
import type { Api } from './api';

export interface PaidCheckout {
  code: string;
  email: string;
  customerId: string;
  subscriptionId: string;
}

/**
 * Opens a checkout session of `planId` and pays it over HTTP exactly as a payer's browser does
 * (payCheckoutPageInSandbox). Leaves a customer with a saved card.
 */
export async function payHostedCheckout(
  api: Api,
  gatewayUrl: string,
  apiKey: string,
  planId: string,
  label = 'payer',
): Promise<PaidCheckout> {
  const email = `${label}-${randomUUID().slice(0, 8)}@example.com`;
  const session = await api('POST', '/api/v1/checkout/sessions', { apiKey, body: { plan_id: planId } });
  if (session.status !== 201) throw new Error(`checkout session: ${session.status} ${session.text}`);
  await payCheckoutPageInSandbox(gatewayUrl, session.body.code, email);
  const completed = await api('GET', `/api/v1/checkout/sessions/${session.body.code}`, { apiKey });
  if (completed.body.status !== 'COMPLETED') throw new Error(`session is ${completed.body.status}`);
  return {
    code: session.body.code,
    email,
    customerId: completed.body.customer_id,
    subscriptionId: completed.body.subscription_id,
  };
}
