import type { z } from 'zod';
import type {
  AnalyticsSummarySchema,
  MrrMonthSchema,
  RevenueMonthSchema,
} from '../routes/v1/analytics/analytics.schemas';
import type { ApiKeySchema, ApiKeyWithSecretSchema } from '../routes/v1/api-keys/api-keys.schemas';
import type { AccessTokenSchema } from '../routes/v1/auth/auth.schemas';
import type { CouponSchema } from '../routes/v1/coupons/coupons.schemas';
import type { CreditNoteSchema } from '../routes/v1/credit-notes/credit-notes.schemas';
import type { CustomerEmailSchema, EmailSettingsSchema } from '../routes/v1/customer-emails/customer-emails.schemas';
import type { CustomerDetailSchema, CustomerSchema } from '../routes/v1/customers/customers.schemas';
import type { InvoiceSchema } from '../routes/v1/invoices/invoices.schemas';
import type { PlanSchema } from '../routes/v1/plans/plans.schemas';
import type { PortalConfigurationSchema } from '../routes/v1/portal/portal.schemas';
import type { ProjectSchema } from '../routes/v1/projects/projects.schemas';
import type { SubscriptionListItemSchema } from '../routes/v1/subscriptions/subscriptions.schemas';
import type { TaxRateSchema } from '../routes/v1/tax-rates/tax-rates.schemas';
import type { DeliveryDetailSchema, DeliverySchema, WebhookSchema } from '../routes/v1/webhooks/webhooks.schemas';

/**
 * The API's answers as the dashboard's pages read them: each the input type of the route's own
 * response schema, so a page reads exactly the fields the API publishes.
 */
type Answer<S extends z.ZodType> = z.input<S>;

export type AccessToken = Answer<typeof AccessTokenSchema>;
export type Project = Answer<typeof ProjectSchema>;
export type ApiKey = Answer<typeof ApiKeySchema>;
export type ApiKeyWithSecret = Answer<typeof ApiKeyWithSecretSchema>;
export type Customer = Answer<typeof CustomerSchema>;
export type CustomerDetail = Answer<typeof CustomerDetailSchema>;
export type CustomerEmail = Answer<typeof CustomerEmailSchema>;
export type Subscription = Answer<typeof SubscriptionListItemSchema>;
export type Invoice = Answer<typeof InvoiceSchema>;
export type CreditNote = Answer<typeof CreditNoteSchema>;
export type Plan = Answer<typeof PlanSchema>;
export type Coupon = Answer<typeof CouponSchema>;
export type TaxRate = Answer<typeof TaxRateSchema>;
export type Webhook = Answer<typeof WebhookSchema>;
export type Delivery = Answer<typeof DeliverySchema>;
export type DeliveryDetail = Answer<typeof DeliveryDetailSchema>;
export type PortalConfiguration = Answer<typeof PortalConfigurationSchema>;
export type EmailSettings = Answer<typeof EmailSettingsSchema>;

export type MrrMonth = Answer<typeof MrrMonthSchema>;
export type RevenueMonth = Answer<typeof RevenueMonthSchema>;
export type AnalyticsSummary = Answer<typeof AnalyticsSummarySchema>;
