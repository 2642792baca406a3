export { createBillingClient, type BillingClient, type BillingClientOptions, type DataMethod } from './client';
export { BillingApiError, type ValidationViolation } from './errors';
export type { components, paths } from './generated/api';
export { IDEMPOTENCY_KEY_HEADER } from './idempotency';
export type { Fetch } from './retry';
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookInput, type WebhookEvent } from './webhooks';

import type { components } from './generated/api';

/** A schema of the document by name, e.g. `Schema<'Plan'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];
