import { z } from 'zod';
import { answerWithStatus, defineRoute, type Resource } from '../../../http/route';
import { EXAMPLE, required, scopeOf, pageOf } from '../common.schemas';
import {
  RecordUsageBody,
  SubscriptionIdParams,
  toUsageRecord,
  toUsageSummary,
  UsageBatchBody,
  UsageBatchResultSchema,
  UsageHistoryQuery,
  usageRecordExample,
  UsageRecordSchema,
  UsageSummarySchema,
} from './usage.schemas';

const usageTag = {
  name: 'Usage',
  description:
    'Metered usage of subscriptions whose plan has a `usage_unit_amount`: record quantities as they happen ' +
    '(one at a time or in batches); at the end of each period the unbilled quantity times the unit price is a ' +
    'USAGE line of the next invoice. Quantities are exact decimals, never floats.',
};

const NOT_FOUND = { 403: 'Subscription belongs to another project', 404: 'Subscription not found' };

/** Metered usage of a subscription: /subscriptions/{id}/usage... */
export const subscriptionUsageResource: Resource = {
  tag: usageTag,
  prefixes: ['/subscriptions'],
  routes: ({ billing }) => [
    defineRoute({
      method: 'post',
      path: '/:subscription_id/usage',
      operationId: 'recordUsage',
      summary: 'Record usage of a subscription',
      description:
        'Quantities are exact decimals (a string such as "2.5" keeps every digit), negative for a correction. ' +
        'The usage counts in the period its `timestamp` falls in (default: now on the project\u2019s clock). The ' +
        'same `idempotency_key` on the same subscription answers 200 with the first record and stores nothing, ' +
        'so a retry never counts twice. A CANCELLED or EXPIRED subscription takes no usage (400).',
      auth: 'apiKey',
      params: SubscriptionIdParams,
      body: RecordUsageBody,
      bodyExample: {
        quantity: '2.5',
        description: 'Sauna hours',
        idempotency_key: 'visit-2026-03-04-0192',
        timestamp: '2026-03-04T18:30:00Z',
      },
      errors: { 400: 'Subscription is CANCELLED; usage is not accepted', ...NOT_FOUND },
      response: {
        status: 201,
        description: 'The usage record (200: the first one of this key)',
        schema: UsageRecordSchema,
      },
      responseExample: usageRecordExample,
      async handle({ auth: { apiKey }, params, body, req }) {
        const { record, created } = await billing.recordUsage({
          scope: scopeOf(apiKey),
          subscriptionId: params.subscription_id,
          quantity: body.quantity,
          description: body.description,
          idempotencyKey: body.idempotency_key,
          timestamp: body.timestamp ? new Date(body.timestamp) : undefined,
        });
        if (!created) answerWithStatus(req, 200);
        return toUsageRecord(required(record, 'record'));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:subscription_id/usage/history',
      operationId: 'listUsageRecords',
      summary: "A subscription's usage records, newest first",
      description:
        '`billed=false` gives what the next invoice will bill, `billed=true` what earlier invoices billed ' +
        '(`invoice_id`). Pages of `limit` (default 20, at most 100); the next page starts after the last id of ' +
        'this one (`starting_after`).',
      auth: 'apiKey',
      params: SubscriptionIdParams,
      query: UsageHistoryQuery,
      errors: { 400: 'starting_after does not name an item of this list', ...NOT_FOUND },
      response: { status: 200, description: 'One page of usage records', schema: z.array(UsageRecordSchema) },
      responseExample: [usageRecordExample],
      async handle({ auth: { apiKey }, params, query }) {
        const { records } = await billing.listUsage({
          scope: scopeOf(apiKey),
          subscriptionId: params.subscription_id,
          page: pageOf(query),
          billed: query.billed,
        });
        return records.map(toUsageRecord);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:subscription_id/usage/summary',
      operationId: 'getUsageSummary',
      summary: "The current period's unbilled usage and its estimated amount",
      description:
        'What the period\u2019s invoice would add for usage if the period ended now: the unbilled quantity, the ' +
        "plan's unit price and their product, rounded once to the currency's minor unit.",
      auth: 'apiKey',
      params: SubscriptionIdParams,
      errors: NOT_FOUND,
      response: { status: 200, description: 'The usage summary', schema: UsageSummarySchema },
      responseExample: {
        period_start: EXAMPLE.createdAt,
        period_end: EXAMPLE.periodEnd,
        unbilled_quantity: '12.75',
        unit_amount: 400,
        estimated_amount: 5100,
        currency: 'NGN',
      },
      async handle({ auth: { apiKey }, params }) {
        return toUsageSummary(
          await billing.getUsageSummary({ scope: scopeOf(apiKey), subscriptionId: params.subscription_id }),
        );
      },
    }),
  ],
};

/** The high-volume path: POST /usage/batch. */
export const usageBatchResource: Resource = {
  tag: usageTag,
  prefixes: ['/usage'],
  routes: ({ billing }) => [
    defineRoute({
      method: 'post',
      path: '/batch',
      operationId: 'recordUsageBatch',
      summary: 'Record up to 1000 usage records at once',
      description:
        'Each record obeys the single-record rules; a bad record (unknown subscription, bad quantity, ' +
        'closed subscription) is reported in `errors` by its index without failing the others. ' +
        'A record whose idempotency key was already used on its subscription counts in `duplicates`. Records ' +
        'naming a subscription of another project or mode are reported in `errors` too.',
      auth: 'apiKey',
      body: UsageBatchBody,
      bodyExample: {
        records: [
          { subscription_id: EXAMPLE.subscriptionId, quantity: '1.25', idempotency_key: 'visit-0193' },
          { subscription_id: EXAMPLE.subscriptionId, quantity: 3, idempotency_key: 'visit-0194' },
          { subscription_id: EXAMPLE.subscriptionId, quantity: '1e3', idempotency_key: 'visit-0195' },
        ],
      },
      response: { status: 200, description: 'What was stored', schema: UsageBatchResultSchema },
      responseExample: {
        accepted: 2,
        duplicates: 0,
        errors: [{ index: 2, detail: 'quantity: Decimal input should be written without an exponent' }],
      },
      async handle({ auth: { apiKey }, body }) {
        const result = await billing.recordUsageBatch({
          scope: scopeOf(apiKey),
          records: body.records.map((r) => ({
            subscriptionId: r.subscription_id,
            quantity: r.quantity,
            idempotencyKey: r.idempotency_key ?? '',
            timestamp: r.timestamp ? new Date(r.timestamp) : undefined,
            description: r.description,
          })),
        });
        return { accepted: result.accepted, duplicates: result.duplicates, errors: result.errors };
      },
    }),
  ],
};
