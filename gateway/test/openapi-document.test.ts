import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual, promisify } from 'node:util';
import type { z } from 'zod';
import { DocumentLinks } from '../../services/billing/src/domain/document-links';
import { creditNoteEventData } from '../../services/billing/src/events/credit-note.events';
import { customerEventData } from '../../services/billing/src/events/customer.events';
import { invoiceEventData } from '../../services/billing/src/events/invoice.events';
import { refundEventData, refundProcessedEventData } from '../../services/billing/src/events/refund.events';
import {
  subscriptionEventData,
  subscriptionUpdatedEventData,
} from '../../services/billing/src/events/subscription.events';
import { checkoutSessionResource } from '../../services/catalog/src/read-models/checkout-session.read-model';
import { deliveryBody } from '../../services/notification/src/domain/delivery-signature';
import { EVENT_CATALOGUE } from '../../services/notification/src/domain/event-catalogue';
import { mockEventData } from '../../services/notification/src/domain/mock-events';
import { ErrorSchema, ValidationErrorSchema } from '../src/openapi/error.schemas';
import { publishedOpenApiDocument, routeTable } from '../src/openapi/published-document';
import {
  WEBHOOK_EVENT_BODIES,
  WEBHOOK_EVENTS,
  type WebhookEventName,
} from '../src/routes/v1/webhooks/webhook-events.schemas';

/**
 * The published document as a merchant's tooling reads it: Spectral's recommended OpenAPI rules,
 * the OpenAPI 3.1 schema, operation ids a client generator can name methods after, and examples
 * that parse with the very schemas they illustrate. Built from the route table, as the gateway
 * builds /openapi.json, so no platform is started.
 */

const run = promisify(execFile);
const REPO = path.resolve(__dirname, '../..');

interface Operation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  deprecated?: boolean;
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
}

interface Document {
  openapi: string;
  tags: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Record<string, Operation>>;
}

const doc = publishedOpenApiDocument() as unknown as Document;
const routes = routeTable();

const operationsIn = (items: Record<string, Record<string, Operation>>) =>
  Object.entries(items).flatMap(([where, item]) =>
    Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${where}`, operation })),
  );
const operations = operationsIn(doc.paths);
const webhookOperations = operationsIn(doc.webhooks);

/** Why `example` does not parse with `schema`, or null; an answer must come out exactly as it went in. */
function exampleProblem(schema: z.ZodType, example: unknown, exact: boolean): string | null {
  const parsed = schema.safeParse(example);
  if (!parsed.success) return parsed.error.message;
  if (exact && !isDeepStrictEqual(parsed.data, example)) return 'has fields its schema does not';
  return null;
}

let workdir = '';

beforeAll(async () => {
  workdir = await mkdtemp(path.join(tmpdir(), 'openapi-'));
});

afterAll(async () => {
  await rm(workdir, { recursive: true, force: true });
});

describe('the OpenAPI document', () => {
  it("passes Spectral's recommended rules (spectral:oas) without a warning", async () => {
    const file = path.join(workdir, 'openapi.json');
    await writeFile(file, JSON.stringify(doc));
    const spectral = require.resolve('@stoplight/spectral-cli/dist/index.js');
    const ruleset = path.join(REPO, '.spectral.yaml');
    // Spectral exits 1 when it finds an error; its JSON on stdout tells what it found either way.
    const { stdout } = await run(process.execPath, [spectral, 'lint', file, '--ruleset', ruleset, '-f', 'json', '-q'], {
      maxBuffer: 64 * 1024 * 1024,
    }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
    const results = JSON.parse(stdout) as { code: string; message: string; path: string[]; severity: number }[];

    expect(results.map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`)).toEqual([]);
  }, 60_000);

  it('is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator)', async () => {
    const file = path.join(workdir, 'validated.json');
    await writeFile(file, JSON.stringify(doc));
    // The validator is an ES module, which this CommonJS test run cannot load: its own CLI runs it.
    const cli = path.join(REPO, 'node_modules/@seriousme/openapi-schema-validator/bin/validate-api-cli.js');
    const { stdout } = await run(process.execPath, [cli, file]);

    expect(doc.openapi).toBe('3.1.0');
    expect(JSON.parse(stdout)).toEqual({ valid: true });
  }, 60_000);

  it('names every operation and webhook with a unique verb-noun operationId', () => {
    const ids = [...operations, ...webhookOperations].map(({ operation }) => operation.operationId);

    expect(operations.length).toBeGreaterThan(60);
    expect(ids.filter((id) => !/^[a-z][A-Za-z]+$/.test(id ?? ''))).toEqual([]);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
    // A path kept for earlier clients is a deprecated copy; client generators use the canonical id.
    const aliases = routes.filter((mounted) => mounted.alias);
    const published = aliases.map(({ path: where, route }) => {
      const { operationId, deprecated } = doc.paths[`/api/v1${where}`.replace(/:(\w+)/g, '{$1}')][route.method];
      return `${operationId} ${String(deprecated)}`;
    });
    expect(aliases.length).toBeGreaterThan(0);
    expect(published).toEqual(aliases.map(({ route }) => `${route.operationId}Legacy true`));
  });

  it('declares every tag it uses, with a description', () => {
    const declared = new Map(doc.tags.map((tag) => [tag.name, tag.description]));
    const used = new Set([...operations, ...webhookOperations].flatMap(({ operation }) => operation.tags ?? []));

    expect([...used].filter((tag) => !declared.get(tag))).toEqual([]);
  });

  it('gives every operation a summary, a description and an example of each body it takes or gives', () => {
    const missing = [...operations, ...webhookOperations].flatMap(({ name, operation }) => {
      const bodies = [
        ['request', operation.requestBody?.content],
        ...Object.entries(operation.responses).map(([status, response]) => [status, response.content]),
      ] as const;
      return [
        ...(operation.summary ? [] : [`${name}: summary`]),
        ...(operation.description ? [] : [`${name}: description`]),
        ...bodies.flatMap(([which, content]) =>
          Object.entries(content ?? {})
            .filter(([, media]) => media.example === undefined)
            .map(([type]) => `${name} ${which} ${type}: example`),
        ),
      ];
    });

    expect(missing).toEqual([]);
  });

  it('documents the credential failures of every authenticated operation, and the rate limit of API keys', () => {
    const expected = (security: Record<string, string[]>[]) => [
      ...(security.length > 0 ? ['401', '403'] : []),
      ...(security.some((requirement) => 'ApiKey' in requirement) ? ['429'] : []),
      '503',
    ];
    const missing = operations
      .filter(({ name }) => name.includes(' /api/v1/'))
      .flatMap(({ name, operation }) =>
        expected((operation as { security?: Record<string, string[]>[] }).security ?? [])
          .filter((status) => !operation.responses[status])
          .map((status) => `${name}: ${status}`),
      );

    expect(missing).toEqual([]);
  });
});

describe('the examples of the document', () => {
  const canonical = routes.filter((mounted) => !mounted.alias);

  it('are valid requests for the route they illustrate', () => {
    const problems = canonical.flatMap(({ path: where, route }) => {
      if (!route.body) return [];
      const problem = exampleProblem(route.body, route.bodyExample, false);
      return problem ? [`${route.operationId} (${where}): ${problem}`] : [];
    });

    expect(canonical.filter(({ route }) => route.body).length).toBeGreaterThan(20);
    expect(problems).toEqual([]);
  });

  it('are exactly what the route answers, by its response schema', () => {
    const problems = canonical.flatMap(({ path: where, route }) => {
      if (!route.response.schema) return [];
      const problem = exampleProblem(route.response.schema, route.responseExample, true);
      return problem ? [`${route.operationId} (${where}): ${problem}`] : [];
    });

    expect(problems).toEqual([]);
  });

  it('of errors are bodies the error handler writes', () => {
    const problems = operations.flatMap(({ name, operation }) =>
      Object.entries(operation.responses)
        .filter(([status]) => Number(status) >= 400)
        .flatMap(([status, response]) => {
          const schema = status === '422' ? ValidationErrorSchema : ErrorSchema;
          const problem = exampleProblem(schema, response.content?.['application/json']?.example, true);
          return problem ? [`${name} ${status}: ${problem}`] : [];
        }),
    );

    expect(problems).toEqual([]);
  });
});

describe('the webhook events of the document', () => {
  const names = Object.keys(WEBHOOK_EVENTS) as WebhookEventName[];

  it('are the events of the notification catalogue, one webhook each', () => {
    expect([...names].sort()).toEqual([...EVENT_CATALOGUE].sort());
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_CATALOGUE].sort());
  });

  it('have examples that are deliveries of their own schema', () => {
    const problems = names.flatMap((name) => {
      const example = doc.webhooks[name].post.requestBody?.content['application/json'].example;
      const problem = exampleProblem(WEBHOOK_EVENT_BODIES[name], example, true);
      return problem ? [`${name}: ${problem}`] : [];
    });

    expect(problems).toEqual([]);
  });

  /**
   * The data as billing and catalog write it (their own payload functions, given the records of
   * a paid checkout), in the body notification sends: the schemas must take it exactly.
   */
  it('describe the bodies the platform delivers', () => {
    const at = new Date('2026-03-02T09:15:00.000Z');
    const ids = {
      customer: 'ac3c3ddb-4eec-4de9-840a-1b77d36a38ea',
      subscription: 'b641a59e-66cd-426c-868f-d6983e96217c',
    };
    const customer = {
      id: ids.customer,
      email: 'ada@example.com',
      name: 'Ada Obi',
      gatewayCustomerId: 'CUS_1',
      metadata: {},
      balance: 0,
      taxExempt: 'NONE',
      address: {
        line1: '4 Bourdillon Road',
        line2: null,
        city: 'Lagos',
        state: null,
        postal_code: null,
        country: 'NG',
      },
      taxId: null,
      preferredLocale: 'en',
      livemode: false,
      createdAt: at,
    };
    const subscription = {
      id: ids.subscription,
      customerId: ids.customer,
      planId: 'baea837a-06ab-4cfb-9510-cd42026464cc',
      planName: 'Pro',
      amount: 1_500_000,
      currency: 'NGN',
      interval: 'monthly',
      status: 'ACTIVE',
      currentPeriodStart: at,
      currentPeriodEnd: new Date('2026-04-02T09:15:00.000Z'),
      cancelAtPeriodEnd: false,
      cancelledAt: null,
      cancelledBy: null,
      trialEnd: null,
      createdAt: at,
    };
    const invoice = {
      id: 'ff700b66-b6ab-402c-8a7f-115a7ebf7ff1',
      amount: 1_612_500,
      discount: 0,
      tax: 112_500,
      totalExcludingTax: 1_500_000,
      totalTaxAmounts: [
        {
          taxRateId: '3d1f0b6e-8c2a-4e57-9b1d-5f7a2c9e4b10',
          displayName: 'VAT',
          percentage: '7.5',
          inclusive: false,
          taxableAmount: 1_500_000,
          amount: 112_500,
        },
      ],
      taxNote: null,
      creditApplied: 300_000,
      amountDue: 1_312_500,
      currency: 'NGN',
      status: 'PAID',
      paidAt: at,
      subscriptionId: ids.subscription,
      customerId: ids.customer,
    };
    const refund = {
      id: 'f7800ccc-7924-4953-897d-02131490cf8b',
      amount: 700_000,
      currency: 'NGN',
      status: 'PROCESSED' as const,
      policyId: '4a44ad8d-b628-48c2-998f-2ef3061b400d',
      invoiceId: invoice.id,
      subscriptionId: ids.subscription,
      livemode: false,
    };
    const session = {
      id: 'b61108c5-17cd-411a-8415-819dd792fe02',
      code: 'q7Xr2mKp9LsT4vBn',
      status: 'COMPLETED',
      planId: subscription.planId,
      successUrl: null,
      cancelUrl: null,
      customerEmail: customer.email,
      customerName: null,
      customerId: ids.customer,
      subscriptionId: ids.subscription,
      metadata: {},
      livemode: false,
      expiresAt: at,
      completedAt: at,
      createdAt: at,
      allowPromotionCodes: false,
      coupon: {
        couponId: '057c4cc7-b6cc-4f51-becc-faaee307bc8d',
        code: 'WELCOME25',
        percentOff: '25',
        amountOff: null,
        currency: null,
        duration: 'ONCE',
        durationInPeriods: null,
      },
      taxRateIds: null,
      planTaxRateIds: [],
      quote: {
        subtotal: 1500000,
        discount: 375000,
        tax: 0,
        totalExcludingTax: 1125000,
        amount: 1125000,
        taxAmounts: [],
        chargeAmount: 1125000,
        verificationCharge: false,
      },
    };
    const subscriptionData = subscriptionEventData(subscription as never, customer.email);
    const invoiceData = invoiceEventData(invoice as never, customer.email);
    const data: Record<WebhookEventName, unknown> = {
      'checkout.session.completed': checkoutSessionResource(session as never, subscription, 'http://localhost:8080'),
      'checkout.session.expired': checkoutSessionResource(
        { ...session, status: 'EXPIRED', customerId: null, subscriptionId: null, completedAt: null } as never,
        subscription,
        'http://localhost:8080',
      ),
      'customer.created': customerEventData(customer as never),
      'subscription.created': subscriptionData,
      'subscription.trial_will_end': { ...subscriptionData, status: 'TRIALING', trial_end: at.toISOString() },
      'subscription.renewed': subscriptionData,
      'subscription.past_due': { ...subscriptionData, status: 'PAST_DUE' },
      'subscription.paused': { ...subscriptionData, status: 'PAUSED' },
      'subscription.resumed': subscriptionData,
      'subscription.cancelled': { ...subscriptionData, status: 'CANCELLED', refund: refundEventData(refund) },
      'subscription.expired': { ...subscriptionData, status: 'EXPIRED' },
      'subscription.updated': subscriptionUpdatedEventData(
        {
          ...subscription,
          planId: '5b0f3b7e-2d4c-4f0e-9a55-6f1e8c2d7a31',
          pendingPlanId: 'baea837a-06ab-4cfb-9510-cd42026464cc',
          pendingPlanChangeAt: new Date('2026-04-02T09:15:00.000Z'),
        } as never,
        customer.email,
        subscription.planId,
      ),
      'invoice.created': { ...invoiceData, status: 'OPEN', paid_at: null },
      'invoice.paid': invoiceData,
      'invoice.payment_failed': { ...invoiceData, status: 'OPEN', paid_at: null, failure: 'Declined' },
      'invoice.voided': { ...invoiceData, status: 'VOID', paid_at: null },
      'refund.processed': refundProcessedEventData(refund),
      'credit_note.created': creditNoteEventData(
        {
          id: '3e9c1a7d-5b2f-4d8e-9a61-0c4f7b2e8d15',
          projectId: '00000000-0000-4000-8000-000000000001',
          number: 'INV-000001-CN1',
          invoiceId: invoice.id,
          customerId: ids.customer,
          amount: 500_000,
          currency: 'NGN',
          tax: [{ tax_rate_id: '6f1d2c3b-4a5e-4f60-8b7a-9c8d7e6f5a4b', amount: 34_884 }],
          reason: 'ORDER_CHANGE',
          refundTo: 'CARD',
          refundId: refund.id,
          balanceTransactionId: null,
          memo: null,
          status: 'ISSUED',
          livemode: false,
          createdAt: at,
        } as never,
        new DocumentLinks('https://billing.example.com', ['k'.repeat(32)]),
      ),
    };
    const delivered = (name: WebhookEventName, eventData: unknown) =>
      JSON.parse(
        deliveryBody({
          id: 'c3f7fbe3-53d6-4a5d-a2a3-8983f2bd0d53',
          event: name,
          data: eventData,
          created_at: at.toISOString(),
        }),
      );

    const problems = names.flatMap((name) => {
      const problem = exampleProblem(WEBHOOK_EVENT_BODIES[name], delivered(name, data[name]), true);
      return problem ? [`${name}: ${problem}`] : [];
    });
    // A test send (POST /webhooks/test) of a subscription or invoice event has the fields of the
    // real one, but for the two its description names.
    const testSends = names
      .filter((name) => /^(subscription|invoice)\./.test(name))
      .filter((name) => name !== 'subscription.trial_will_end' && name !== 'invoice.payment_failed')
      .flatMap((name) => {
        const problem = exampleProblem(WEBHOOK_EVENT_BODIES[name], delivered(name, mockEventData(name, at)), true);
        return problem ? [`test send of ${name}: ${problem}`] : [];
      });

    expect(problems).toEqual([]);
    expect(testSends).toEqual([]);
  });
});
