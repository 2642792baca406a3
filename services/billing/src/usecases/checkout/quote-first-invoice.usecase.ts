import type { ProjectScope } from '@billing/platform';
import { quoteCheckout, type CheckoutQuote, type PlanSnapshot } from '../../domain/checkout-completion';
import type { SubscriptionDiscount } from '../../domain/subscription-discount';
import type { BillingDeps } from '../../billing-deps';
import { invoiceTax } from '../../invoicing/invoice-taxes';
import { sellerOfProject } from '../../invoicing/invoice-parties';

export interface QuoteFirstInvoiceCommand {
  plan: PlanSnapshot;
  discount: SubscriptionDiscount | null;
  /** The rates the checkout applies, in order; attached already, so active or not. */
  taxRateIds: string[];
}

/** The quote, with the name of the seller the invoice would keep now (§22). */
export interface FirstInvoiceQuote extends CheckoutQuote {
  sellerName: string;
}

/**
 * A checkout's first invoice before it exists (docs/api-behaviour.md §21): what the hosted page
 * shows and charges, from the rule CompleteCheckout checks the payment against and the totals
 * its first invoice is written with. Each rate must be of this project and mode (404, 403). The
 * page also shows the seller's name (§22), billing's copy of the project's (identity's answer
 * when it keeps none yet).
 */
export async function quoteFirstInvoice(
  deps: BillingDeps,
  scope: ProjectScope,
  command: QuoteFirstInvoiceCommand,
): Promise<FirstInvoiceQuote> {
  const rates = [];
  for (const id of command.taxRateIds) rates.push(await deps.taxRates.get(scope, id));
  const seller = await sellerOfProject(deps, scope.projectId);
  return { ...quoteCheckout(command.plan, command.discount, invoiceTax(rates, 'NONE')), sellerName: seller.name };
}
