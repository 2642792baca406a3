import { z } from 'zod';
import { defineRoute, type Resource } from '../../../http/route';
import { required, scopeOf, pageOf } from '../common.schemas';
import {
  CreateTaxRateBody,
  ListTaxRatesQuery,
  taxRateExample,
  TaxRateIdParams,
  TaxRateSchema,
  toTaxRate,
  UpdateTaxRateBody,
} from './tax-rates.schemas';

const NOT_FOUND = { 403: 'Tax rate belongs to another project', 404: 'Tax rate not found' };

export const taxRatesResource: Resource = {
  tag: {
    name: 'Tax rates',
    description:
      'Taxes added to (exclusive) or held in (inclusive) the price of a subscription\u2019s invoices. Attach up to 5 ' +
      'with `tax_rate_ids` on POST /subscriptions or PATCH /subscriptions/{id}; each invoice then shows `tax`, ' +
      '`total_excluding_tax` and one `total_tax_amounts` entry per rate, computed on what is left after the ' +
      'discount, one rounding per rate, rates never compounding. A customer with `tax_exempt` EXEMPT or REVERSE ' +
      'is charged no tax (REVERSE invoices say "Reverse charge").',
  },
  prefixes: ['/tax-rates'],
  routes: ({ billing }) => [
    defineRoute({
      method: 'post',
      path: '',
      operationId: 'createTaxRate',
      summary: 'Create a tax rate',
      description:
        '`display_name` (1..50), `percentage` (0 <= p < 100, at most 4 decimals) and `inclusive` are required; ' +
        '`country` (ISO 3166-1 alpha-2), `jurisdiction` (<= 50) and `description` (<= 200) are optional. The ' +
        'rate is active. Its `percentage` and `inclusive` never change afterwards. Breaking a rule is a 422. Send ' +
        'an `Idempotency-Key` to make a retry return the first rate instead of creating another.',
      auth: 'apiKey',
      body: CreateTaxRateBody,
      bodyExample: {
        display_name: 'VAT',
        percentage: 7.5,
        inclusive: false,
        country: 'NG',
        description: 'Value added tax, Nigeria',
      },
      response: { status: 201, description: 'The tax rate', schema: TaxRateSchema },
      responseExample: taxRateExample,
      async handle({ auth: { apiKey }, body }) {
        const { taxRate } = await billing.createTaxRate({
          scope: scopeOf(apiKey),
          displayName: body.display_name,
          percentage: String(body.percentage),
          inclusive: body.inclusive,
          country: body.country,
          jurisdiction: body.jurisdiction,
          description: body.description,
        });
        return toTaxRate(required(taxRate, 'tax_rate'));
      },
    }),
    defineRoute({
      method: 'get',
      path: '',
      operationId: 'listTaxRates',
      summary: 'List tax rates, newest first',
      description:
        'Active and inactive rates. Pages of `limit` (default 20, at most 100); the next page starts after the last ' +
        'id of this one (`starting_after`).',
      auth: 'apiKey',
      query: ListTaxRatesQuery,
      errors: { 400: 'starting_after does not name an item of this list' },
      response: { status: 200, description: 'One page of tax rates', schema: z.array(TaxRateSchema) },
      responseExample: [taxRateExample],
      async handle({ auth: { apiKey }, query }) {
        const { taxRates } = await billing.listTaxRates({
          scope: scopeOf(apiKey),
          page: pageOf(query),
        });
        return taxRates.map(toTaxRate);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:tax_rate_id',
      operationId: 'getTaxRate',
      summary: 'Get a tax rate',
      description: 'Inactive rates too.',
      auth: 'apiKey',
      params: TaxRateIdParams,
      errors: NOT_FOUND,
      response: { status: 200, description: 'The tax rate', schema: TaxRateSchema },
      responseExample: taxRateExample,
      async handle({ auth: { apiKey }, params }) {
        const { taxRate } = await billing.getTaxRate({ scope: scopeOf(apiKey), taxRateId: params.tax_rate_id });
        return toTaxRate(required(taxRate, 'tax_rate'));
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/:tax_rate_id',
      operationId: 'updateTaxRate',
      summary: "Update a tax rate's name, description or activity",
      description:
        'Send only the fields to change. `is_active: false` deactivates the rate: it can no longer be newly ' +
        'attached (400), but keeps applying where it is attached; `true` makes it attachable again. A new ' +
        '`display_name` shows on invoices made afterwards; issued invoices keep theirs. `percentage` and ' +
        '`inclusive` never change: sending either is a 422 (create a new rate instead).',
      auth: 'apiKey',
      params: TaxRateIdParams,
      body: UpdateTaxRateBody,
      bodyExample: { display_name: 'VAT (Nigeria)', is_active: false },
      errors: NOT_FOUND,
      response: { status: 200, description: 'The updated tax rate', schema: TaxRateSchema },
      responseExample: { ...taxRateExample, display_name: 'VAT (Nigeria)', is_active: false },
      async handle({ auth: { apiKey }, params, body }) {
        const { taxRate } = await billing.updateTaxRate({
          scope: scopeOf(apiKey),
          taxRateId: params.tax_rate_id,
          displayName: body.display_name,
          description: body.description,
          isActive: body.is_active,
        });
        return toTaxRate(required(taxRate, 'tax_rate'));
      },
    }),
  ],
};
