import type { ProjectScope } from '@billing/platform';
import { quoteCheckout, type CheckoutQuote, type PlanSnapshot } from '../../domain/checkout-completion';
import type { SubscriptionDiscount } from '../../domain/subscription-discount';
import type { BillingDeps } from '../../billing-deps';
import { invoiceTax } from '../../invoicing/invoice-taxes';

export interface QuoteFirstInvoiceCommand {
  plan: PlanSnapshot;
  discount: SubscriptionDiscount | null;
  /** The rates the checkout applies, in order; attached already, so active or not. */
  taxRateIds: string[];
}

/**
 * A checkout's first invoice before it exists (docs/api-behaviour.md §21): what the hosted page
 * shows and charges, from the rule CompleteCheckout checks the payment against and the totals
 * its first invoice is written with. Each rate must be of this project and mode (404, 403).
 */
export async function quoteFirstInvoice(
  deps: BillingDeps,
  scope: ProjectScope,
  command: QuoteFirstInvoiceCommand,
): Promise<CheckoutQuote> {
  const rates = [];
  for (const id of command.taxRateIds) rates.push(await deps.taxRates.get(scope, id));
  return quoteCheckout(command.plan, command.discount, invoiceTax(rates, 'NONE'));
}
