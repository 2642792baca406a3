import { startPlatform, type PlatformUnderTest, type SmtpInbox } from '@billing/testing';
import { payHostedCheckout, type PaidCheckout } from './hosted-checkout';
import type { Api, Json, RegisteredMerchant } from './api';
import { waitFor } from './wait';

/** The settings the suites enable: the From name and Reply-To every email must carry. */
export const EMAIL_SETTINGS = { enabled: true, from_name: 'Acme Gym', reply_to: 'help@acme.example' };

/**
 * A platform whose notification sends customer emails to `inbox` (docs/api-behaviour.md §24),
 * with short retry delays and quick loops so an outage is waited out in seconds.
 */
export function startEmailPlatform(inbox: SmtpInbox, env: Record<string, string> = {}): Promise<PlatformUnderTest> {
  return startPlatform({
    only: [
      'identity',
      'sandbox-provider',
      'policy',
      'billing',
      'catalog',
      'notification',
      'documents',
      'analytics',
      'gateway',
    ],
    env: {
      SMTP_URL: inbox.url,
      EMAIL_FROM_ADDRESS: 'billing@platform.example',
      EMAIL_RETRY_DELAYS_MS: '300,600,1000',
      EMAIL_TIMEOUT_MS: '2000',
      EMAIL_POLL_MS: '50',
      // The lease of a claimed email counts a billing read's deadline: kept short here so a
      // killed process's emails come back within seconds.
      GRPC_DEADLINE_MS: '5000',
      ALLOW_INSECURE_WEBHOOKS: 'true',
      DELIVERY_POLL_MS: '50',
      ...env,
    },
  });
}

export async function enableEmails(api: Api, m: RegisteredMerchant, settings: Json = EMAIL_SETTINGS): Promise<void> {
  const res = await api('PUT', '/api/v1/email-settings', { apiKey: m.testKey, body: settings });
  if (res.status !== 200) throw new Error(`email settings: ${res.status} ${res.text}`);
}

/** A plan of `amount` and a customer who paid its hosted checkout (invoice.created and invoice.paid). */
export async function paidCustomer(
  api: Api,
  gatewayUrl: string,
  m: RegisteredMerchant,
  label: string,
  plan: Json = {},
): Promise<PaidCheckout & { planId: string }> {
  const created = await api('POST', '/api/v1/plans', {
    apiKey: m.testKey,
    body: { name: `${label} plan`, amount: 150, interval: 'weekly', ...plan },
  });
  if (created.status !== 201) throw new Error(`plan: ${created.status} ${created.text}`);
  const paid = await payHostedCheckout(api, gatewayUrl, m.testKey, created.body.id, label);
  return { ...paid, planId: created.body.id };
}

/** GET /customers/{id}/emails, every page of 100. */
export async function emailsOf(api: Api, m: RegisteredMerchant, customerId: string): Promise<Json[]> {
  const res = await api('GET', `/api/v1/customers/${customerId}/emails?limit=100`, { apiKey: m.testKey });
  if (res.status !== 200) throw new Error(`emails: ${res.status} ${res.text}`);
  return res.body;
}

/** Waits until the customer's emails of these types are all SENT; returns the list. */
export function emailsSent(api: Api, m: RegisteredMerchant, customerId: string, types: string[]): Promise<Json[]> {
  return waitFor(
    `${types.join(', ')} emails SENT`,
    () => emailsOf(api, m, customerId),
    (emails) => types.every((type) => emails.some((e: Json) => e.type === type && e.status === 'SENT')),
  );
}
