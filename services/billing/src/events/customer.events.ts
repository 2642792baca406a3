import { toMajorUnits, type NewEvent } from '@billing/platform';
import type { CustomerModel } from '../db/models';

/**
 * The one place customer.* events are built (docs/api-behaviour.md §12): each event type of the
 * resource has its builder here, and the lint rule in eslint.config.js refuses an event type
 * written anywhere else in the service. `data` is what merchants receive in webhooks: snake_case,
 * money in major units, ISO timestamps. Recording stays with the caller, in the transaction of
 * the change (recordEvent / recordEvents of @billing/platform).
 */

/** customer.created: the Customer resource. */
export const customerEventData = (customer: CustomerModel) => ({
  id: customer.id,
  email: customer.email,
  name: customer.name,
  gateway_customer_id: customer.gatewayCustomerId,
  metadata: customer.metadata,
  balance: toMajorUnits(customer.balance),
  balance_currency: customer.balanceCurrency ?? null,
  tax_exempt: customer.taxExempt,
  address: customer.address,
  tax_id: customer.taxId,
  preferred_locale: customer.preferredLocale,
  livemode: customer.livemode,
  created_at: customer.createdAt.toISOString(),
});

export const customerEvents = {
  created: (customer: CustomerModel, occurredAt: Date): NewEvent<unknown> => ({
    type: 'customer.created',
    data: customerEventData(customer),
    projectId: customer.projectId,
    livemode: customer.livemode,
    occurredAt,
  }),
};
