import type { Migration } from '@billing/platform';

/**
 * Tax rates where catalog keeps them (docs/api-behaviour.md §21; the rates are billing's): a
 * plan's default rates; a checkout session's own rates (NULL: its plan's, as the plan had them
 * when the session was made, kept in plan_tax_rate_ids) and billing's quote of its first invoice
 * (QuoteFirstInvoice), which the page shows and the payment charges.
 */
export const addTaxRates: Migration = {
  name: '0007-add-tax-rates',
  async up({ sql }) {
    await sql(`
      ALTER TABLE plans
        ADD COLUMN tax_rate_ids uuid[] NOT NULL DEFAULT '{}' CHECK (cardinality(tax_rate_ids) <= 5)`);
    await sql(`
      ALTER TABLE checkout_sessions
        ADD COLUMN tax_rate_ids uuid[] CHECK (cardinality(tax_rate_ids) <= 5),
        ADD COLUMN plan_tax_rate_ids uuid[] NOT NULL DEFAULT '{}',
        ADD COLUMN quote jsonb`);
    // The sessions made before had no rates: their quote is what their page showed and charged
    // then, the plan's price less the coupon's discount (rounded once, half away from zero, as
    // discountAmount does; PostgreSQL's numeric round() rounds so), no tax; a trial or nothing to
    // pay charged the verification charge of 1.00 (docs/decisions.md).
    await sql(`
      WITH priced AS (
        SELECT s.id, p.amount AS subtotal, p.trial_period_days AS trial,
               CASE
                 WHEN p.amount <= 0 OR s.coupon IS NULL THEN 0
                 WHEN s.coupon->>'percentOff' IS NOT NULL
                   THEN LEAST(p.amount, round(p.amount * (s.coupon->>'percentOff')::numeric / 100))::bigint
                 ELSE LEAST(p.amount, GREATEST(0, COALESCE((s.coupon->>'amountOff')::bigint, 0)))
               END AS discount
        FROM checkout_sessions s JOIN plans p ON p.id = s.plan_id
      )
      UPDATE checkout_sessions s SET quote = jsonb_build_object(
        'subtotal', priced.subtotal,
        'discount', priced.discount,
        'tax', 0,
        'totalExcludingTax', priced.subtotal - priced.discount,
        'amount', priced.subtotal - priced.discount,
        'taxAmounts', '[]'::jsonb,
        'chargeAmount', CASE WHEN priced.trial > 0 OR priced.subtotal = priced.discount THEN 100
                             ELSE priced.subtotal - priced.discount END,
        'verificationCharge', priced.trial > 0 OR priced.subtotal = priced.discount)
      FROM priced WHERE priced.id = s.id`);
    await sql(`ALTER TABLE checkout_sessions ALTER COLUMN quote SET NOT NULL`);
  },
};
