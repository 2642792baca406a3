import type { Resource } from '../../http/route';
import { analyticsResource } from './analytics/analytics.routes';
import { apiKeysResource } from './api-keys/api-keys.routes';
import { authResource } from './auth/auth.routes';
import { cancellationPoliciesResource } from './cancellation-policies/cancellation-policies.routes';
import { checkoutResource } from './checkout/checkout.routes';
import { couponsResource } from './coupons/coupons.routes';
import { creditNotesResource, invoiceCreditNotesResource } from './credit-notes/credit-notes.routes';
import { customerEmailsResource, emailSettingsResource } from './customer-emails/customer-emails.routes';
import { customersResource } from './customers/customers.routes';
import { invoicesResource } from './invoices/invoices.routes';
import { testClockResource } from './test-clock/test-clock.routes';
import { testHelpersResource } from './test-helpers/test-helpers.routes';
import { merchantsResource } from './merchants/merchants.routes';
import { plansResource } from './plans/plans.routes';
import { portalResource } from './portal/portal.routes';
import { projectsResource } from './projects/projects.routes';
import { subscriptionUsageResource, usageBatchResource } from './usage/usage.routes';
import { subscriptionsResource } from './subscriptions/subscriptions.routes';
import { taxRatesResource } from './tax-rates/tax-rates.routes';
import { webhooksResource } from './webhooks/webhooks.routes';

/** Every resource under /api/v1; a new resource folder adds one line here. */
export const v1Resources: Resource[] = [
  authResource,
  merchantsResource,
  projectsResource,
  apiKeysResource,
  plansResource,
  checkoutResource,
  couponsResource,
  customersResource,
  customerEmailsResource,
  emailSettingsResource,
  invoicesResource,
  taxRatesResource,
  invoiceCreditNotesResource,
  creditNotesResource,
  cancellationPoliciesResource,
  testClockResource,
  testHelpersResource,
  subscriptionUsageResource,
  usageBatchResource,
  subscriptionsResource,
  webhooksResource,
  portalResource,
  analyticsResource,
];
