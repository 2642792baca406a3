import type { Migration } from '@billing/platform';

/**
 * A plan's default tax rates as the subscription keeps them (docs/api-behaviour.md §21): the ids
 * its plan had when it was made (or moved to that plan), used while it has no rates of its own
 * (tax_rate_ids NULL), and those of a plan change pending at the period's end. Subscriptions made
 * before had plans without rates.
 */
export const addPlanTaxRates: Migration = {
  name: '0040-add-plan-tax-rates',
  async up({ sql }) {
    await sql(`
      ALTER TABLE subscriptions
        ADD COLUMN plan_tax_rate_ids uuid[] NOT NULL DEFAULT '{}' CHECK (cardinality(plan_tax_rate_ids) <= 5),
        ADD COLUMN pending_plan_tax_rate_ids uuid[] CHECK (cardinality(pending_plan_tax_rate_ids) <= 5)`);
  },
};
