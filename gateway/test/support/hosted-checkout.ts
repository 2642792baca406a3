import { randomUUID } from 'node:crypto';
import type { Api } from './api';

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields),
  redirect: 'manual' as const,
});

export interface PaidCheckout {
  code: string;
  email: string;
  customerId: string;
  subscriptionId: string;
}

/**
 * Pays a hosted checkout of `planId` over HTTP exactly as a payer's browser does: the hosted
 * form, the sandbox page's "Success", the callback. Leaves a customer with a saved card.
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
  const pay = await fetch(`${gatewayUrl}/checkout/${session.body.code}/pay`, form({ email }));
  if (pay.status !== 303) throw new Error(`hosted page answered ${pay.status}`);
  const outcome = await fetch(pay.headers.get('location')!, form({ outcome: 'success' }));
  if (outcome.status !== 303) throw new Error(`sandbox page answered ${outcome.status}`);
  const callback = await fetch(outcome.headers.get('location')!, { redirect: 'manual' });
  if (callback.status >= 400) throw new Error(`callback answered ${callback.status}`);
  const completed = await api('GET', `/api/v1/checkout/sessions/${session.body.code}`, { apiKey });
  if (completed.body.status !== 'COMPLETED') throw new Error(`session is ${completed.body.status}`);
  return {
    code: session.body.code,
    email,
    customerId: completed.body.customer_id,
    subscriptionId: completed.body.subscription_id,
  };
}
