import type { Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import type { Logger } from '@billing/platform';
import type { ApiKeyCache, ApiKeyPrincipal } from '../auth/api-key-cache';
import type { PlanReadCache } from '../cache/plan-read-cache';
import { PUBLIC_ROUTES } from '../auth/public-routes';
import type { AnalyticsClient } from '../clients/analytics.client';
import type { BillingClient } from '../clients/billing.client';
import type { CatalogClient } from '../clients/catalog.client';
import type { PortalClient } from '../clients/portal.client';
import type { DocumentsClient } from '../clients/documents.client';
import type { IdentityClient } from '../clients/identity.client';
import type { NotificationClient } from '../clients/notification.client';
import type { PolicyClient } from '../clients/policy.client';
import type { AuthenticatedMerchant } from '../middleware/auth';
import { CSV_MEDIA_TYPE, csvColumnsOf, csvText } from './csv-text';
import { parsePath, parseRequest } from './validation';
import { markRoute } from '../middleware/http-metrics';

/** What a route needs from the outside world; built once in server.ts. */
export interface RouteDeps {
  identity: IdentityClient;
  catalog: CatalogClient;
  billing: BillingClient;
  policy: PolicyClient;
  notification: NotificationClient;
  /** The PDFs of invoices and credit notes (docs/api-behaviour.md §22). */
  documents: DocumentsClient;
  /** The customer portal's configuration and sessions (docs/api-behaviour.md §24). */
  portal: PortalClient;
  /** The revenue analytics read model (docs/api-behaviour.md §25). */
  analytics: AnalyticsClient;
  apiKeyCache: ApiKeyCache;
  /** GET /plans/{id} answers, invalidated by catalog's announcements (cache/plan-change-listener.ts). */
  planCache: PlanReadCache;
  /** For what a route does after its answer is decided (a coupon redemption not given back). */
  logger: Logger;
}

/** The credentials a route takes: none, a project's API key, the merchant's access token, or both at once. */
export type AuthScheme = 'none' | 'apiKey' | 'jwt' | 'dual';

export type Principal<A extends AuthScheme> = A extends 'jwt'
  ? { merchant: AuthenticatedMerchant }
  : A extends 'apiKey'
    ? { apiKey: ApiKeyPrincipal }
    : A extends 'dual'
      ? { merchant: AuthenticatedMerchant; apiKey: ApiKeyPrincipal }
      : Record<string, never>;

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface HandlerContext<A extends AuthScheme, P, Q, B> {
  auth: Principal<A>;
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
  req: Request;
}

/** Statuses a route may answer besides the ones every route of its kind may (see openapi/). */
export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 409 | 429;

/** A group of operations in the OpenAPI document: one per resource, with what it is for. */
export interface ApiTag {
  name: string;
  description: string;
}

interface RouteFields<
  A extends AuthScheme,
  P extends z.ZodObject | undefined,
  Q extends z.ZodObject | undefined,
  B extends z.ZodType | undefined,
  R extends z.ZodType | undefined,
> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Relative to the resource's prefix, in Express syntax ('' is the collection itself). */
  path: string;
  /**
   * The operation's name in the document, verb-noun camelCase (`createSubscription`). Client
   * generators name their methods after it, so once published it does not change.
   */
  operationId: string;
  summary: string;
  /** For a merchant's developer: what the route does, its rules, what its errors mean. */
  description: string;
  auth: A;
  /** A path id that fails its schema is a 404 with the schema's message: it names no record. */
  params?: P;
  query?: Q;
  body?: B;
  /**
   * The statuses this route answers of its own (besides those of its credentials, inputs and
   * limits), each with when: phrased as the failure, it is also the detail of the documented example.
   */
  errors?: Partial<Record<ErrorStatus, string>>;
  response: RouteResponse<R>;
  handle(ctx: HandlerContext<A, P, Q, B>): Promise<R extends z.ZodType ? z.input<R> : void | FileAnswer>;
}

/**
 * A route's success: a JSON body of `schema`, none (204), or, with `file`, a download of that
 * media type (an invoice's PDF) which the handler answers as a FileAnswer. With `alsoAs`, the
 * same answer is also given as that media type to a client whose `Accept` prefers it: for
 * `text/csv`, a header row of the field names of `schema`'s items (an array of objects) and one
 * line per item (http/csv-text.ts). JSON stays the answer to an `Accept` of any type, to none, and
 * to one the route cannot give (docs/api-behaviour.md §25).
 */
export interface RouteResponse<R extends z.ZodType | undefined = z.ZodType | undefined> {
  status: 200 | 201 | 202 | 204;
  description: string;
  schema?: R;
  file?: 'application/pdf';
  alsoAs?: typeof CSV_MEDIA_TYPE;
}

/** A download: its bytes and the name `Content-Disposition: attachment` gives it. */
export interface FileAnswer {
  content: Uint8Array;
  filename: string;
}

/**
 * The examples of the document: a valid body for a route that takes one, a valid answer for a
 * route that gives one (gateway/test/openapi-document.test.ts parses each with its schema).
 */
type BodyExample<B> = B extends z.ZodType ? { bodyExample: z.input<B> } : { bodyExample?: never };
type ResponseExample<R> = R extends z.ZodType ? { responseExample: z.input<R> } : { responseExample?: never };

/**
 * One endpoint: its credentials, its inputs and its success response as zod schemas. The same
 * object validates requests, types the handler's result and writes the OpenAPI operation, so
 * the document cannot drift from what the gateway does.
 */
export type RouteSpec<
  A extends AuthScheme,
  P extends z.ZodObject | undefined,
  Q extends z.ZodObject | undefined,
  B extends z.ZodType | undefined,
  R extends z.ZodType | undefined,
> = RouteFields<A, P, Q, B, R> & BodyExample<B> & ResponseExample<R>;

/** A route with its types erased, as the router and the document generator see it. */
export interface Route {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  operationId: string;
  summary: string;
  description: string;
  auth: AuthScheme;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  bodyExample?: unknown;
  errors?: Partial<Record<ErrorStatus, string>>;
  response: RouteResponse;
  responseExample?: unknown;
  handle(ctx: {
    auth: Principal<AuthScheme>;
    params: unknown;
    query: unknown;
    body: unknown;
    req: Request;
  }): Promise<unknown>;
}

export function defineRoute<
  A extends AuthScheme,
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  R extends z.ZodType | undefined = undefined,
>(spec: RouteSpec<A, P, Q, B, R>): Route {
  return spec as unknown as Route;
}

/** One resource folder of routes/v1: its routes, served under each of its prefixes. */
export interface Resource {
  tag: ApiTag;
  /** The first is canonical; the others are kept for earlier clients (deprecated in the document). */
  prefixes: string[];
  routes(deps: RouteDeps): Route[];
}

/** A route at one concrete path under /api/v1. */
export interface MountedRoute {
  path: string;
  route: Route;
  tag: ApiTag;
  /** Served under a prefix kept for earlier clients rather than the canonical one. */
  alias: boolean;
}

export const API_PREFIX = '/api/v1';

export function resolveRoutes(resources: Resource[], deps: RouteDeps): MountedRoute[] {
  return resources.flatMap((resource) => {
    const routes = resource.routes(deps);
    return resource.prefixes.flatMap((prefix, index) =>
      routes.map((route) => ({ path: `${prefix}${route.path}`, route, tag: resource.tag, alias: index > 0 })),
    );
  });
}

function principalFor(scheme: AuthScheme, req: Request): Principal<AuthScheme> {
  const { merchant, apiKey } = req.auth ?? {};
  const needsMerchant = scheme === 'jwt' || scheme === 'dual';
  const needsKey = scheme === 'apiKey' || scheme === 'dual';
  // A programming error (a route mounted without its middleware), hence a 500, not a 401.
  if ((needsMerchant && !merchant) || (needsKey && !apiKey)) {
    throw new Error(`route mounted without its ${scheme} auth`);
  }
  return { ...(merchant ? { merchant } : {}), ...(apiKey ? { apiKey } : {}) } as Principal<AuthScheme>;
}

/** What a route is called with: the path parameters, the query and the body, unvalidated. */
export interface RouteInput {
  params?: unknown;
  query?: unknown;
  body?: unknown;
}

/**
 * One call of a route, wherever it comes from (an HTTP request, or the dashboard in-process):
 * its inputs validated with its own schemas, its handler run with `auth`, and, with
 * `checkResponses`, the result checked against the schema the OpenAPI document publishes, so a
 * response that breaks the document fails loudly (tests run this way).
 */
export async function runRoute(
  route: Route,
  auth: Principal<AuthScheme>,
  input: RouteInput,
  req: Request,
  checkResponses: boolean,
): Promise<unknown> {
  const params = route.params ? parsePath(route.params, input.params ?? {}) : undefined;
  const { query, body } = parseRequest(input, route);
  const result = await route.handle({ auth, params, query, body, req });
  if (checkResponses && route.response.schema) {
    const checked = route.response.schema.safeParse(result);
    if (!checked.success) {
      throw new Error(
        `${route.method.toUpperCase()} ${route.path}: response breaks its schema: ${checked.error.message}`,
      );
    }
  }
  return result;
}

/** Thin: run the route on the request, send its result with the declared status. */
function expressHandler(route: Route, checkResponses: boolean): RequestHandler {
  // Derived once, when the route is mounted: a route whose schema has no columns fails then.
  const csvColumns = route.response.alsoAs ? csvColumnsOf(route.response.schema, route.operationId) : undefined;
  return async (req, res) => {
    const result = await runRoute(route, principalFor(route.auth, req), req, req, checkResponses);
    const status = (res.locals.responseStatus as number | undefined) ?? route.response.status;
    if (route.response.status === 204) res.status(204).end();
    else if (route.response.file) sendFile(res, route.response.file, result as FileAnswer);
    else if (csvColumns) {
      // One URL, two representations: caches must key on Accept.
      res.vary('Accept');
      if (req.accepts(['application/json', CSV_MEDIA_TYPE]) === CSV_MEDIA_TYPE) {
        res
          .status(status)
          .type(`${CSV_MEDIA_TYPE}; charset=utf-8`)
          .send(csvText(csvColumns, result as Record<string, unknown>[]));
      } else res.status(status).json(result);
    } else res.status(status).json(result);
  };
}

function sendFile(res: Response, contentType: string, { content, filename }: FileAnswer): void {
  res.set({
    'content-type': contentType,
    // The name is a document number (INV-000042-CN1.pdf); anything else is replaced, not quoted.
    'content-disposition': `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`,
  });
  res.status(200).end(Buffer.from(content.buffer, content.byteOffset, content.byteLength));
}

/**
 * Lets a handler answer a 200 instead of its declared 201 (a create replayed by its idempotency
 * key returns the first resource); say so in the route's description.
 */
export function answerWithStatus(req: Request, status: 200): void {
  if (req.res) req.res.locals.responseStatus = status;
}

export function mountRoutes(
  router: Router,
  mounted: MountedRoute[],
  authFor: Record<AuthScheme, RequestHandler[]>,
  checkResponses = false,
): void {
  for (const { path, route } of mounted) {
    const name = `${route.method.toUpperCase()} ${API_PREFIX}${path}`;
    if ((route.auth === 'none') !== PUBLIC_ROUTES.has(name)) {
      throw new Error(`${name}: auth 'none' and the PUBLIC_ROUTES list disagree`);
    }
    router[route.method](
      path,
      markRoute(`${API_PREFIX}${path}`),
      ...authFor[route.auth],
      expressHandler(route, checkResponses),
    );
  }
}
