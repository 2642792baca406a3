import type { Transaction } from 'sequelize';
import type { ProjectScope } from '@billing/platform';
import type { InvoiceModel, SubscriptionModel, TaxRateModel } from '../db/models';
import type { RateAmount } from '../domain/credit-notes';
import type { InvoiceTax, InvoiceTaxRate, TaxExempt } from '../domain/invoice-totals';
import { checkTaxRateIds, inactiveTaxRate, taxRateIdsOfSubscription } from '../domain/tax-rates';
import type { BillingDeps } from '../billing-deps';

/**
 * Which taxes an invoice gets (docs/api-behaviour.md §21): the rates of its subscription, as they
 * are when the invoice is made, and its customer's exemption. Every invoice and every preview of
 * one learns its tax here, so what is previewed, charged and stored agree.
 */

/** A rate as an invoice keeps it. */
export const invoiceTaxRate = (rate: TaxRateModel): InvoiceTaxRate => ({
  taxRateId: rate.id,
  displayName: rate.displayName,
  percentage: rate.percentage,
  inclusive: rate.inclusive,
});

/** The tax of an invoice with these rates (in this order) for a customer taxed so. */
export const invoiceTax = (rates: TaxRateModel[], exempt: TaxExempt): InvoiceTax => ({
  rates: rates.map(invoiceTaxRate),
  exempt,
});

/**
 * The tax of each subscription's next invoice, by subscription id: two queries however many (a
 * batch of renewals). A rate applies wherever it is attached, active or not; each is looked up
 * only in its subscription's project and mode. `knownExemptions`: the customers' exemptions when
 * the caller read them already with what else it needed of the customers (a batch of subscription
 * views), so the customers are read once; a customer missing there is read here.
 */
export async function invoiceTaxesOf(
  deps: BillingDeps,
  subscriptions: SubscriptionModel[],
  transaction?: Transaction,
  knownExemptions?: ReadonlyMap<string, TaxExempt>,
): Promise<Map<string, InvoiceTax>> {
  const wanted = subscriptions.map((s) => ({
    projectId: s.projectId,
    livemode: s.livemode,
    ids: taxRateIdsOfSubscription(s),
  }));
  const unknownCustomers = [...new Set(subscriptions.map((s) => s.customerId))].filter(
    (id) => !knownExemptions?.has(id),
  );
  const [rates, readExemptions] = await Promise.all([
    deps.taxRates.findInScopes(wanted, transaction),
    deps.customers.taxExemptionsOf(unknownCustomers, transaction),
  ]);
  const exemptions = new Map([...(knownExemptions ?? []), ...readExemptions]);
  // One lookup per rate id: a batch of 500 renewals sharing a few rates stays linear.
  const byId = new Map(rates.map((rate) => [rate.id, rate]));
  return new Map(
    subscriptions.map((s, k) => {
      const own = wanted[k].ids.flatMap((id) => {
        const rate = byId.get(id);
        return rate && rate.projectId === s.projectId && rate.livemode === s.livemode ? [rate] : [];
      });
      return [s.id, invoiceTax(own, exemptions.get(s.customerId) ?? 'NONE')];
    }),
  );
}

/**
 * The rates `ids` names in the scope, in that order, active or not: rates attached already (a
 * plan's, a checkout session's) keep applying. An id of no rate of the scope names nothing.
 */
export async function attachedTaxRates(
  deps: BillingDeps,
  scope: ProjectScope,
  ids: string[],
  transaction?: Transaction,
): Promise<TaxRateModel[]> {
  const lower = ids.map((id) => id.toLowerCase());
  const found = await deps.taxRates.findInScopes([{ ...scope, ids: lower }], transaction);
  return lower.flatMap((id) => found.filter((rate) => rate.id === id));
}

/** The tax of one subscription's next invoice (invoiceTaxesOf, a batch of one). */
export async function invoiceTaxOf(
  deps: BillingDeps,
  subscription: SubscriptionModel,
  transaction?: Transaction,
): Promise<InvoiceTax> {
  return (await invoiceTaxesOf(deps, [subscription], transaction)).get(subscription.id)!;
}

/**
 * The rates `ids` name, to be attached to a subscription (`loc`: where they were sent), in their
 * order: at most 5, each once (422); each a rate of this project and mode (unknown or of the
 * other mode: 404, another project's: 403); and active (400), unless `attachedAlready` says the
 * subscription carries it already (a rate deactivated since keeps applying where it is).
 */
export async function attachableTaxRates(
  deps: BillingDeps,
  scope: ProjectScope,
  ids: string[],
  loc: (string | number)[],
  attachedAlready: (id: string) => boolean = () => false,
): Promise<TaxRateModel[]> {
  const rates: TaxRateModel[] = [];
  for (const id of checkTaxRateIds(ids, loc)) rates.push(await deps.taxRates.get(scope, id));
  const inactive = rates.find((rate) => !rate.isActive && !attachedAlready(rate.id));
  if (inactive) throw inactiveTaxRate(inactive);
  return rates;
}

/**
 * An invoice's tax per rate as it was issued (`total_tax_amounts`, minor units): what a credit
 * note carries back its share of (docs/api-behaviour.md §23).
 */
export const taxPerRateOf = (invoice: InvoiceModel): RateAmount[] =>
  (invoice.totalTaxAmounts ?? []).map((tax) => ({ taxRateId: tax.taxRateId, amount: tax.amount }));
