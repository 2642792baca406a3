import { z } from 'zod';
import { answerWithStatus, defineRoute, type Resource } from '../../../http/route';
import { required, scopeOf } from '../common.schemas';
import {
  RecordUsageBody,
  SubscriptionIdParams,
  toUsageRecord,
  toUsageSummary,
  UsageBatchBody,
  UsageBatchResultSchema,
  UsageHistoryQuery,
  UsageRecordSchema,
  UsageSummarySchema,
} from './usage.schemas';

/** Metered usage of a subscription (contract section 9): /subscriptions/{id}/usage... */
export const subscriptionUsageResource: Resource = {
  tag: 'Usage',
  prefixes: ['/subscriptions'],
  routes: ({ billing }) => [
    defineRoute({
      method: 'post',
      path: '/:subscription_id/usage',
      summary: 'Record usage of a subscription',
      description:
        'Quantities are exact decimals (no floats), negative for a correction. The same `idempotency_key` ' +
        'on the same subscription answers 200 with the first record and stores nothing. ' +
        'A `CANCELLED` or `EXPIRED` subscription takes no usage (400).',
      auth: 'apiKey',
      params: SubscriptionIdParams,
      body: RecordUsageBody,
      errors: [400, 403, 404],
      response: {
        status: 201,
        description: 'The usage record (200: the first one of this key)',
        schema: UsageRecordSchema,
      },
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
      summary: "A subscription's usage records, newest first",
      auth: 'apiKey',
      params: SubscriptionIdParams,
      query: UsageHistoryQuery,
      errors: [400, 403, 404],
      response: { status: 200, description: 'One page of usage records', schema: z.array(UsageRecordSchema) },
      async handle({ auth: { apiKey }, params, query }) {
        const { records } = await billing.listUsage({
          scope: scopeOf(apiKey),
          subscriptionId: params.subscription_id,
          page: { limit: query.limit ?? 0, startingAfter: query.starting_after ?? '' },
          billed: query.billed,
        });
        return records.map(toUsageRecord);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:subscription_id/usage/summary',
      summary: "The current period's unbilled usage and its estimated amount",
      auth: 'apiKey',
      params: SubscriptionIdParams,
      errors: [403, 404],
      response: { status: 200, description: 'The usage summary', schema: UsageSummarySchema },
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
  tag: 'Usage',
  prefixes: ['/usage'],
  routes: ({ billing }) => [
    defineRoute({
      method: 'post',
      path: '/batch',
      summary: 'Record up to 1000 usage records at once',
      description:
        'Each record obeys the single-record rules; a bad record (unknown subscription, bad quantity, ' +
        'closed subscription) is reported in `errors` by its index without failing the others. ' +
        'A record whose idempotency key was already used on its subscription counts in `duplicates`.',
      auth: 'apiKey',
      body: UsageBatchBody,
      response: { status: 200, description: 'What was stored', schema: UsageBatchResultSchema },
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
