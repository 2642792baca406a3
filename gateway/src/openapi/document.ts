import { OpenApiGeneratorV31, OpenAPIRegistry, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { API_PREFIX, type AuthScheme, type MountedRoute, type Route } from '../http/route';
import { PROVIDER_WEBHOOK_PATH } from '../proxy/provider-webhook.proxy';
import { ErrorSchema, ValidationErrorSchema } from './error.schemas';

export const API_VERSION = '0.1.0';

const SECURITY: Record<AuthScheme, Record<string, string[]>[]> = {
  none: [],
  apiKey: [{ ApiKey: [] }],
  jwt: [{ BearerAuth: [] }],
  // One requirement object naming both schemes means "both at once".
  dual: [{ ApiKey: [], BearerAuth: [] }],
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'A business rule refuses the request',
  401: 'Credentials missing or invalid',
  402: 'The payment failed',
  403: "Credentials valid but refused (disabled key, deactivated merchant, another merchant's resource)",
  404: 'No such resource',
  409: 'Conflicts with an existing resource',
  413: 'Request body larger than 1 MiB',
  422: 'Validation error in path, query or body',
  429: 'A rate limit is spent (docs/rate-limits.md); Retry-After says when to come back',
  500: 'Internal error; the body names an error id',
  503: 'A backing service is unavailable or too slow; retry',
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
    }),
});

/** Counted per API key, or per client address under /auth (gateway/src/middleware/rate-limit.ts). */
const isRateLimited = ({ route, path }: MountedRoute) =>
  route.auth === 'apiKey' || route.auth === 'dual' || path.startsWith('/auth/');

/** The statuses a route may answer: its own plus those implied by its credentials, inputs and limits. */
function errorStatuses(mounted: MountedRoute): number[] {
  const { route } = mounted;
  const statuses = new Set<number>(route.errors ?? []);
  if (route.auth !== 'none') [401, 403].forEach((s) => statuses.add(s));
  if (isRateLimited(mounted)) statuses.add(429);
  if (route.params) statuses.add(404);
  if (route.body || route.query) statuses.add(422);
  if (route.body) statuses.add(413);
  if (takesIdempotencyKey(route)) [409, 422].forEach((s) => statuses.add(s));
  [500, 503].forEach((s) => statuses.add(s));
  return [...statuses].sort((a, b) => a - b);
}

function operation(mounted: MountedRoute): RouteConfig {
  const { route } = mounted;
  const responses: RouteConfig['responses'] = {
    [route.response.status]: {
      description: route.response.description,
      ...(route.response.schema ? { content: { 'application/json': { schema: route.response.schema } } } : {}),
    },
  };
  for (const status of errorStatuses(mounted)) {
    responses[status] = {
      description: ERROR_DESCRIPTIONS[status],
      content: { 'application/json': { schema: status === 422 ? ValidationErrorSchema : ErrorSchema } },
    };
  }
  return {
    method: route.method,
    path: `${API_PREFIX}${mounted.path}`.replace(/:(\w+)/g, '{$1}'),
    tags: [mounted.tag],
    summary: route.summary,
    description: mounted.alias
      ? `${route.description ?? ''} Same as the canonical path; kept for earlier clients.`.trim()
      : route.description,
    security: SECURITY[route.auth],
    request: {
      ...(route.params ? { params: route.params } : {}),
      ...(route.query ? { query: route.query } : {}),
      ...(takesIdempotencyKey(route) ? { headers: IdempotencyHeaders } : {}),
      ...(route.body ? { body: { required: true, content: { 'application/json': { schema: route.body } } } } : {}),
    },
    responses,
  };
}

const errorContent = (schema: z.ZodType = ErrorSchema) => ({ 'application/json': { schema } });

/**
 * The JSON routes served outside the route table: the probe, this document and the payment
 * provider's webhook (answered before the app, see providerWebhookForwarder). The hosted checkout
 * pages and /docs are HTML for browsers, not API operations, and stay out of the document.
 */
const UNTABLED_OPERATIONS: RouteConfig[] = [
  {
    method: 'post',
    path: PROVIDER_WEBHOOK_PATH,
    tags: ['Payments'],
    summary: "The payment provider's webhook (Paystack protocol)",
    description:
      'Called by the provider for every successful charge, signed with `x-paystack-signature` (HMAC-SHA512 ' +
      'of the raw body); passed to the checkout service byte for byte. Not for merchants.',
    security: [],
    request: {
      headers: z.object({ 'x-paystack-signature': z.string().meta({ description: 'HMAC-SHA512 of the raw body' }) }),
      body: {
        required: true,
        content: {
          'application/json': {
            schema: z
              .object({ event: z.string(), data: z.record(z.string(), z.unknown()) })
              .meta({ id: 'ProviderWebhookEvent' }),
          },
        },
      },
    },
    responses: {
      200: {
        description: 'Handled (or nothing to do)',
        content: { 'application/json': { schema: z.object({ received: z.literal(true) }) } },
      },
      401: { description: 'Missing or wrong signature', content: errorContent() },
      413: { description: ERROR_DESCRIPTIONS[413], content: errorContent() },
      422: { description: 'The body is not JSON', content: errorContent(ValidationErrorSchema) },
      500: { description: 'Not handled; the provider retries later', content: errorContent() },
      503: { description: 'The checkout service is unavailable; the provider retries later', content: errorContent() },
    },
  },
  {
    method: 'get',
    path: '/healthz',
    tags: ['Operations'],
    summary: "The gateway process's liveness probe",
    security: [],
    responses: {
      200: {
        description: 'The process answers',
        content: { 'application/json': { schema: z.object({ status: z.literal('ok') }) } },
      },
    },
  },
  {
    method: 'get',
    path: '/openapi.json',
    tags: ['Operations'],
    summary: 'This document',
    security: [],
    responses: {
      200: {
        description: 'The OpenAPI 3.1 document',
        content: { 'application/json': { schema: z.looseObject({}) } },
      },
    },
  },
];

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
  for (const route of mounted) registry.registerPath(operation(route));
  for (const untabled of UNTABLED_OPERATIONS) registry.registerPath(untabled);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Subscription Billing API',
      version: API_VERSION,
      description:
        'Multi-merchant subscription billing. Every API path starts with /api/v1; /healthz and /openapi.json ' +
        'serve operations. The hosted checkout pages (/checkout/{code}) and /docs are HTML for browsers.',
    },
    servers: [{ url: publicUrl }],
  });
}
