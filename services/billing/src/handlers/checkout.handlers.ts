import { DomainError, requireScope } from '@billing/platform';
import { validatePlanSnapshot } from '../domain/checkout-completion';
import type { BillingDeps } from '../billing-deps';
import { completeCheckout } from '../usecases/checkout/complete-checkout.usecase';
import { settleUnusedCheckoutPayment } from '../usecases/checkout/settle-unused-checkout-payment.usecase';
import { quoteFirstInvoice } from '../usecases/checkout/quote-first-invoice.usecase';
import { requestedDiscount, requestedTaxRateIds, toInvoiceTaxAmount, type BillingHandlers } from './billing-messages';

/** Checkout completion (docs/api-behaviour.md §5), called by catalog. Thin: proto request -> use case -> proto response. */
export function checkoutHandlers(deps: BillingDeps): Partial<BillingHandlers> {
  return {
    async completeCheckout(req) {
      if (!req.plan) throw DomainError.invalid([{ loc: ['plan'], msg: 'Field required', type: 'missing' }]);
      const plan = validatePlanSnapshot(req.plan);
      const completion = await completeCheckout(deps, requireScope(req.scope), {
        checkoutSessionId: req.checkoutSessionId,
        transactionReference: req.transactionReference,
        plan,
        discount: requestedDiscount(req.coupon, plan.currency),
        customerEmail: req.customerEmail,
        customerEmailTypedByPayer: req.customerEmailTypedByPayer,
        customerName: req.customerName,
        metadata: req.metadata ?? {},
        taxRateIds: requestedTaxRateIds(req.taxRates) ?? null,
      });
      return {
        customerId: completion.customerId,
        subscriptionId: completion.subscriptionId,
        invoiceId: completion.invoiceId ?? '',
        paymentOutcome: completion.paymentOutcome,
      };
    },
    async quoteFirstInvoice(req) {
      if (!req.plan) throw DomainError.invalid([{ loc: ['plan'], msg: 'Field required', type: 'missing' }]);
      const plan = validatePlanSnapshot(req.plan);
      const quote = await quoteFirstInvoice(deps, requireScope(req.scope), {
        plan,
        discount: requestedDiscount(req.coupon, plan.currency),
        taxRateIds: req.taxRateIds,
      });
      const { subtotal, discount, tax, totalExcludingTax, amount, taxAmounts } = quote.totals;
      return {
        subtotal,
        discount,
        tax,
        totalExcludingTax,
        amount,
        totalTaxAmounts: taxAmounts.map(toInvoiceTaxAmount),
        currency: plan.currency,
        chargeAmount: quote.charge,
        verificationCharge: quote.verification,
        sellerName: quote.sellerName,
      };
    },
    async settleUnusedCheckoutPayment(req) {
      const outcome = await settleUnusedCheckoutPayment(deps, requireScope(req.scope), {
        checkoutSessionId: req.checkoutSessionId,
        transactionReference: req.transactionReference,
      });
      return { outcome };
    },
  };
}
