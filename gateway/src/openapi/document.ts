import {
  OpenApiGeneratorV31,
  OpenAPIRegistry,
  type ResponseConfig,
  type RouteConfig,
} from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { csvColumnsOf, csvText } from '../http/csv-text';
import { API_PREFIX, type ApiTag, type AuthScheme, type MountedRoute, type Route } from '../http/route';
import { violationsOf } from '../http/validation';
import { PROVIDER_WEBHOOK_PATH } from '../proxy/provider-webhook.proxy';
import {
  WEBHOOK_EVENT_BODIES,
  WEBHOOK_EVENTS,
  webhookEventExample,
  type WebhookEventName,
} from '../routes/v1/webhooks/webhook-events.schemas';
import { ErrorSchema, ValidationErrorSchema } from './error.schemas';

export const API_VERSION = '0.1.0';

const SECURITY: Record<AuthScheme, Record<string, string[]>[]> = {
  none: [],
  apiKey: [{ ApiKey: [] }],
  jwt: [{ BearerAuth: [] }],
  // One requirement object naming both schemes means "both at once".
  dual: [{ ApiKey: [], BearerAuth: [] }],
};

const MODE_RULE =
  'It acts in the key\u2019s project and mode: a test key (`svc_test_...`) reads and writes test-mode data only, ' +
  'a live key (`svc_live_...`) live-mode data only. An id of the other mode is a 404, one of another project a 403.';

/** What every operation of a credential scheme shares, said once and added to its description. */
const CREDENTIALS_NOTE: Record<AuthScheme, string> = {
  none: '**Credentials:** none.',
  apiKey: `**Credentials:** a project's API key in \`X-Api-Key\`. ${MODE_RULE}`,
  jwt: "**Credentials:** the merchant's access token in `Authorization: Bearer`. Merchant-wide: no project or mode.",
  dual:
    "**Credentials:** both a project's API key (`X-Api-Key`) and its merchant's access token " +
    "(`Authorization: Bearer`); a key of another merchant's project is a 403. " +
    MODE_RULE,
};

interface ErrorDoc {
  description: string;
  /** The example's detail. */
  detail: string;
}

/** The statuses every route of a kind may give, as the gateway words them (gateway/src/middleware/). */
const ERRORS: Record<404 | 409 | 413 | 422 | 429 | 500 | 503, ErrorDoc> = {
  404: { description: 'No such resource here', detail: 'Not Found' },
  409: {
    description: 'The Idempotency-Key was used with another body, or its first request is still running',
    detail: 'This Idempotency-Key was already used with a different request body',
  },
  413: { description: 'The request body is larger than 1 MiB', detail: 'Request body is larger than 1 MiB' },
  422: {
    description: 'Invalid query, header or body: `detail` has one item per problem, `loc` says where',
    detail: 'JSON decode error',
  },
  429: {
    description: 'A rate limit is spent (docs/rate-limits.md); come back after `Retry-After` seconds',
    detail: 'Rate limit exceeded: 25 requests per second for this API key',
  },
  500: {
    description: 'An internal error; quote the error id to support',
    detail: 'Internal server error (error id 0b7c9a61-5d2e-4f3a-8c1b-6e9d2a4f7b30)',
  },
  503: {
    description: 'A backing service is unavailable or too slow; retry after `Retry-After`',
    detail: 'A backing service is temporarily unavailable; please retry',
  },
};

/** A 503 of a POST sent without an Idempotency-Key (gateway/src/middleware/errors.ts, docs/idempotency.md). */
const POST_OUTCOME_UNKNOWN =
  `${ERRORS[503].description}. Sent without an Idempotency-Key, the request may have taken effect (no ` +
  'Retry-After then): check before retrying it, or send a key so that a retry is safe';

/** What each credential scheme's failures mean (gateway/src/middleware/auth.ts). */
const CREDENTIAL_ERRORS: Record<Exclude<AuthScheme, 'none'>, Record<401 | 403, ErrorDoc>> = {
  apiKey: {
    401: {
      description: 'The X-Api-Key header is missing, or names an unknown or revoked key',
      detail: 'Not authenticated: send the X-Api-Key header',
    },
    403: { description: 'The API key is disabled, or its merchant deactivated', detail: 'API key is disabled' },
  },
  jwt: {
    401: {
      description: 'The access token is missing, invalid or expired',
      detail: 'Not authenticated: send Authorization: Bearer <access token>',
    },
    403: { description: 'The merchant is deactivated', detail: 'Merchant account is deactivated' },
  },
  dual: {
    401: {
      description: 'A credential is missing, unknown, revoked or expired (the API key is checked first)',
      detail: 'Not authenticated: send the X-Api-Key header',
    },
    403: {
      description: "The API key is disabled, the merchant deactivated, or the key is of another merchant's project",
      detail: 'The API key belongs to a project of another merchant',
    },
  },
};

/** Authenticated POSTs take an Idempotency-Key (docs/idempotency.md); the others ignore it. */
const takesIdempotencyKey = (route: Route) => route.method === 'post' && route.auth !== 'none';

const IdempotencyHeaders = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({
      description:
        'Makes a retry safe: for 24 h a repeat with the same key, method, path and body (per API key, or per ' +
        'merchant for token-only calls) replays the first answer with `Idempotent-Replayed: true`; another ' +
        'body, or the first still running, is a 409. 1 to 255 printable ASCII characters.',
      example: 'order-7f3a9c2e-renewal',
    }),
});

/** Counted per API key, or per client address under /auth (gateway/src/middleware/rate-limit.ts). */
const isRateLimited = ({ route, path }: MountedRoute) =>
  route.auth === 'apiKey' || route.auth === 'dual' || path.startsWith('/auth/');

const limitedPerKey = (route: Route) => route.auth === 'apiKey' || route.auth === 'dual';

const RateLimitHeaders = z.object({
  'X-RateLimit-Limit': z.string().meta({ description: "Requests per second the key's mode allows, sustained" }),
  'X-RateLimit-Remaining': z.string().meta({ description: 'What is left of the current 2 s window' }),
});

const RetryAfterHeader = z.object({
  'Retry-After': z.string().meta({ description: 'Seconds to wait before retrying' }),
});

const ReplayHeader = z.object({
  'Idempotent-Replayed': z
    .literal('true')
    .optional()
    .meta({ description: 'Present when this is the stored answer of an earlier request with the same key' }),
});

/** The statuses a route may answer because of its credentials, inputs and limits, whatever it does. */
function impliedStatuses(mounted: MountedRoute): Set<number> {
  const { route } = mounted;
  const statuses = new Set<number>([500, 503]);
  if (route.auth !== 'none') [401, 403].forEach((s) => statuses.add(s));
  if (isRateLimited(mounted)) statuses.add(429);
  if (route.params) statuses.add(404);
  if (route.body || route.query) statuses.add(422);
  if (route.body) statuses.add(413);
  if (takesIdempotencyKey(route)) [409, 422].forEach((s) => statuses.add(s));
  return statuses;
}

/** What a status means on a route of its kind, before what the route says of it. */
function impliedError(route: Route, status: number): ErrorDoc {
  if ((status === 401 || status === 403) && route.auth !== 'none') return CREDENTIAL_ERRORS[route.auth][status];
  const error = ERRORS[status as keyof typeof ERRORS];
  return status === 503 && route.method === 'post' ? { ...error, description: POST_OUTCOME_UNKNOWN } : error;
}

/**
 * The 422 example of a route: what the gateway answers for a missing body, for a query whose
 * every parameter is `%` (the route's own validation words it), or for an unreadable
 * Idempotency-Key (gateway/src/middleware/idempotency.ts).
 */
function validationExample(route: Route): z.input<typeof ValidationErrorSchema> {
  if (route.body) return { detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] };
  if (route.query) {
    const input = Object.fromEntries(Object.keys(route.query.shape).map((name) => [name, '%']));
    const parsed = route.query.safeParse(input);
    if (!parsed.success) return { detail: violationsOf(parsed.error, 'query', input).slice(0, 1) };
  }
  return {
    detail: [
      {
        loc: ['header', 'idempotency-key'],
        msg: 'Idempotency-Key must be 1 to 255 printable ASCII characters',
        type: 'value_error',
        input: 'caf\u00e9',
      },
    ],
  };
}

const json = (schema: z.ZodType, example: unknown) => ({ 'application/json': { schema, example } });

/** How a download is named: `attachment; filename="<number>.pdf"`. */
const ContentDispositionHeader = z.object({
  'Content-Disposition': z
    .string()
    .meta({ description: 'attachment; filename="<number>.pdf"', example: 'attachment; filename="INV-000042.pdf"' }),
});

/**
 * The other media type a route answers when `Accept` prefers it (RouteResponse.alsoAs): its
 * example is the JSON example written as the router writes it, so the two cannot disagree.
 */
function alsoAsContent(route: Route): Record<string, { schema: z.ZodType; example: string }> {
  if (!route.response.alsoAs) return {};
  const columns = csvColumnsOf(route.response.schema, route.operationId);
  return {
    [route.response.alsoAs]: {
      schema: z.string().meta({
        description: `A header row (${columns.join(',')}), then one line per item; money in major units as in JSON`,
      }),
      example: csvText(columns, route.responseExample as Record<string, unknown>[]),
    },
  };
}

/**
 * A route's own words for a status come first; for a status its credentials, idempotency or
 * limits may also cause, that other meaning follows (a 404 is a missing record either way).
 */
function errorResponse(mounted: MountedRoute, status: number, implied: Set<number>): ResponseConfig {
  const { route } = mounted;
  const own = route.errors?.[status as keyof typeof route.errors];
  const generic = implied.has(status) ? impliedError(route, status) : undefined;
  const description =
    own && generic && status !== 404 ? `${own}; or: ${generic.description}` : (own ?? generic?.description);
  if (!description) throw new Error(`${route.operationId}: no description of its ${status}`);
  const headers =
    status === 429 && limitedPerKey(route)
      ? RetryAfterHeader.extend(RateLimitHeaders.shape)
      : status === 429 || status === 503
        ? RetryAfterHeader
        : undefined;
  const content =
    status === 422
      ? json(ValidationErrorSchema, validationExample(route))
      : json(ErrorSchema, { detail: own ?? generic?.detail });
  return { description, ...(headers ? { headers } : {}), content };
}

function successHeaders(route: Route): z.ZodObject | undefined {
  const replayed = takesIdempotencyKey(route);
  const limited = limitedPerKey(route);
  if (replayed && limited) return ReplayHeader.extend(RateLimitHeaders.shape);
  return replayed ? ReplayHeader : limited ? RateLimitHeaders : undefined;
}

/**
 * An alias path (a prefix kept for earlier clients, `Resource.prefixes`) serves the same
 * operation as its canonical path. An operationId must be unique in a document, so the alias is
 * published as a deprecated copy whose id carries this suffix, and the canonical path keeps the
 * plain id a client generator should use. Ids are checked for uniqueness below.
 */
const ALIAS_ID_SUFFIX = 'Legacy';

function operation(mounted: MountedRoute): RouteConfig {
  const { route } = mounted;
  const path = `${API_PREFIX}${mounted.path}`.replace(/:(\w+)/g, '{$1}');
  const headers = successHeaders(route);
  const responses: RouteConfig['responses'] = {
    [route.response.status]: {
      description: route.response.description,
      ...(headers ? { headers } : {}),
      ...(route.response.schema
        ? { content: { ...json(route.response.schema, route.responseExample), ...alsoAsContent(route) } }
        : {}),
      ...(route.response.file
        ? {
            headers: ContentDispositionHeader,
            content: {
              // The first bytes of every PDF: what a client can check it got one.
              [route.response.file]: { schema: z.string().meta({ format: 'binary' }), example: '%PDF-1.3 ...' },
            },
          }
        : {}),
    },
  };
  const implied = impliedStatuses(mounted);
  const statuses = new Set([...implied, ...Object.keys(route.errors ?? {}).map(Number)]);
  for (const status of [...statuses].sort((a, b) => a - b)) responses[status] = errorResponse(mounted, status, implied);
  const description = [route.description, CREDENTIALS_NOTE[route.auth]];
  if (mounted.alias) {
    description.unshift('**Deprecated:** the same operation under a path kept for earlier clients.');
  }
  return {
    method: route.method,
    path,
    operationId: mounted.alias ? `${route.operationId}${ALIAS_ID_SUFFIX}` : route.operationId,
    tags: [mounted.tag.name],
    summary: route.summary,
    description: description.join('\n\n'),
    ...(mounted.alias ? { deprecated: true } : {}),
    security: SECURITY[route.auth],
    request: {
      ...(route.params ? { params: route.params } : {}),
      ...(route.query ? { query: route.query } : {}),
      ...(takesIdempotencyKey(route) ? { headers: IdempotencyHeaders } : {}),
      ...(route.body ? { body: { required: true, content: json(route.body, route.bodyExample) } } : {}),
    },
    responses,
  };
}

const OPERATIONS_TAG: ApiTag = {
  name: 'Operations',
  description: "The gateway's own endpoints: its liveness probe and this document.",
};

const PAYMENTS_TAG: ApiTag = {
  name: 'Payments',
  description: 'Endpoints the payment provider calls. Not for merchants.',
};

const WEBHOOK_EVENTS_TAG: ApiTag = {
  name: 'Webhook events',
  description:
    'What the platform POSTs to a webhook of the merchant (see Webhooks) when something happens in its project: ' +
    'one JSON body per event, the same body on every attempt. Answer 2xx within 10 s; anything else is retried ' +
    '(by default after 1 min, 5 min, 30 min and 2 h, then the delivery is FAILED; POST ' +
    '/api/v1/webhooks/deliveries/{id}/retry sends it again). Deliveries may arrive more than once and out of ' +
    'order: deduplicate on the event `id` and read the current state from the API when order matters.',
};

const ProviderWebhookBody = z
  .object({ event: z.string(), data: z.record(z.string(), z.unknown()) })
  .meta({ id: 'ProviderWebhookEvent' });

const errorContent = (detail: string, schema: z.ZodType = ErrorSchema) =>
  json(
    schema,
    schema === ErrorSchema ? { detail } : { detail: [{ loc: ['body'], msg: detail, type: 'json_invalid' }] },
  );

/**
 * The JSON routes served outside the route table: the probe, this document and the payment
 * provider's webhook (answered before the app, see providerWebhookForwarder). The hosted checkout
 * pages and /docs are HTML for browsers, not API operations, and stay out of the document.
 */
const UNTABLED_OPERATIONS: RouteConfig[] = [
  {
    method: 'post',
    path: PROVIDER_WEBHOOK_PATH,
    operationId: 'receiveProviderWebhook',
    tags: [PAYMENTS_TAG.name],
    summary: "The payment provider's webhook (Paystack protocol)",
    description:
      'Called by the provider for every successful charge, signed with `x-paystack-signature` (HMAC-SHA512 ' +
      'of the raw body); passed to the checkout service byte for byte, which completes the checkout the charge ' +
      'paid. Not for merchants.',
    security: [],
    request: {
      headers: z.object({ 'x-paystack-signature': z.string().meta({ description: 'HMAC-SHA512 of the raw body' }) }),
      body: {
        required: true,
        content: json(ProviderWebhookBody, {
          event: 'charge.success',
          data: { reference: 'chk_q7Xr2mKp9LsT4vBn_1', amount: 1500000, currency: 'NGN', status: 'success' },
        }),
      },
    },
    responses: {
      200: {
        description: 'Handled (or nothing to do)',
        content: json(z.object({ received: z.literal(true) }), { received: true }),
      },
      401: { description: 'Missing or wrong signature', content: errorContent('Invalid webhook signature') },
      413: { description: ERRORS[413].description, content: errorContent(ERRORS[413].detail) },
      422: { description: 'The body is not JSON', content: errorContent('JSON decode error', ValidationErrorSchema) },
      500: { description: 'Not handled; the provider retries later', content: errorContent(ERRORS[500].detail) },
      503: {
        description: 'The checkout service is unavailable; the provider retries later',
        content: errorContent('The checkout service is temporarily unavailable'),
      },
    },
  },
  {
    method: 'get',
    path: '/healthz',
    operationId: 'getHealth',
    tags: [OPERATIONS_TAG.name],
    summary: "The gateway process's liveness probe",
    description:
      'Answers as long as the process runs, whatever the services behind it do, so a slow service does not get ' +
      'gateway replicas restarted.',
    security: [],
    responses: {
      200: {
        description: 'The process answers',
        content: json(z.object({ status: z.literal('ok') }), { status: 'ok' }),
      },
    },
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    tags: [OPERATIONS_TAG.name],
    summary: 'This document',
    description: 'The OpenAPI 3.1 description of every operation and webhook event, built from the route table.',
    security: [],
    responses: {
      200: {
        description: 'The OpenAPI 3.1 document',
        content: json(z.looseObject({}), { openapi: '3.1.0', info: { title: 'Subscription Billing API' } }),
      },
    },
  },
];

/** The signature headers of every attempt (services/notification/src/domain/delivery-signature.ts). */
const DeliveryHeaders = z.object({
  'X-Signature': z.string().meta({
    description:
      'Hex HMAC-SHA256 of the raw body keyed with the whole secret (`whsec_...` as shown at creation). Compare ' +
      'in constant time, over the bytes received, before parsing.',
  }),
  'X-Timestamp': z.string().meta({ description: 'Unix seconds of this attempt; refuse old ones to stop replays' }),
  'X-Webhook-Id': z.string().meta({ description: 'The delivery id: the same on every attempt of this delivery' }),
  'webhook-id': z.string().meta({ description: 'Standard Webhooks: the delivery id, as X-Webhook-Id' }),
  'webhook-timestamp': z.string().meta({ description: 'Standard Webhooks: Unix seconds, as X-Timestamp' }),
  'webhook-signature': z.string().meta({
    description:
      'Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the ' +
      'base64-decoded part of the secret after `whsec_`; any Standard Webhooks library verifies it',
  }),
});

function webhookOperation(name: WebhookEventName): RouteConfig {
  const event = WEBHOOK_EVENTS[name];
  return {
    method: 'post',
    path: name,
    operationId: `receive${WEBHOOK_EVENT_BODIES[name].meta()?.id ?? name}`,
    tags: [WEBHOOK_EVENTS_TAG.name],
    summary: event.summary,
    description: event.description,
    request: {
      headers: DeliveryHeaders,
      body: { required: true, content: json(WEBHOOK_EVENT_BODIES[name], webhookEventExample(name)) },
    },
    responses: {
      '2XX': { description: 'Received: any 2xx ends the delivery, SUCCEEDED; the body is ignored' },
      default: { description: 'Any other answer, or none within 10 s: the attempt failed and is retried' },
    },
  };
}

/** Every tag the operations use, once, in the order they first appear. */
function declaredTags(mounted: MountedRoute[]): ApiTag[] {
  const tags = new Map<string, ApiTag>();
  for (const tag of [...mounted.map((m) => m.tag), PAYMENTS_TAG, OPERATIONS_TAG, WEBHOOK_EVENTS_TAG]) {
    const known = tags.get(tag.name);
    if (known && known.description !== tag.description) throw new Error(`tag ${tag.name} described twice`);
    tags.set(tag.name, tag);
  }
  return [...tags.values()];
}

function assertUniqueOperationIds(operations: RouteConfig[]): void {
  const seen = new Set<string>();
  for (const { operationId, method, path } of operations) {
    if (!operationId || seen.has(operationId)) {
      throw new Error(`${method.toUpperCase()} ${path}: operationId ${operationId} missing or not unique`);
    }
    seen.add(operationId);
  }
}

/** OpenAPI 3.1 of every mounted route, from the very schemas that validate the requests. */
export function buildOpenApiDocument(
  mounted: MountedRoute[],
  publicUrl: string,
): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'ApiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Api-Key',
    description: "A project's key: `svc_test_...` (test mode) or `svc_live_...` (live mode)",
  });
  registry.registerComponent('securitySchemes', 'BearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'The access token from registration or login',
  });
  const operations = [...mounted.map(operation), ...UNTABLED_OPERATIONS];
  const webhooks = (Object.keys(WEBHOOK_EVENTS) as WebhookEventName[]).map(webhookOperation);
  assertUniqueOperationIds([...operations, ...webhooks]);
  operations.forEach((op) => registry.registerPath(op));
  webhooks.forEach((op) => registry.registerWebhook(op));
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Subscription Billing API',
      version: API_VERSION,
      description:
        'Multi-merchant subscription billing: plans, hosted checkout, customers, subscriptions, invoices with ' +
        'dunning, metered usage, cancellation refunds and signed webhooks. Every API path starts with /api/v1; ' +
        '/healthz and /openapi.json serve operations. The hosted checkout pages (/checkout/{code}) and /docs are ' +
        'HTML for browsers. Money is in major currency units (15000.5 NGN), times are ISO 8601 UTC, and every ' +
        'error has a `detail`: a sentence, or for a 422 one item per invalid field.',
      contact: { name: 'Subscription Billing API', url: `${publicUrl}/docs` },
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: publicUrl }],
    tags: declaredTags(mounted),
  });
}
