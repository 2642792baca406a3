import createClient, {
  type Client,
  type ClientPathsWithMethod,
  type FetchResponse,
  type MaybeOptionalInit,
} from 'openapi-fetch';
import type { MediaType, RequiredKeysOf } from 'openapi-typescript-helpers';
import { BillingApiError } from './errors';
import type { paths } from './generated/api';
import { idempotencyKeys } from './idempotency';
import { retryingFetch, type Fetch } from './retry';

export interface BillingClientOptions {
  /** The gateway's address, e.g. `http://localhost:8080` (paths start with /api/v1). */
  baseUrl: string;
  /** A project's key (`svc_test_...` or `svc_live_...`), sent as X-Api-Key. */
  apiKey?: string;
  /** The JWT from registration or login, sent as `Authorization: Bearer`. Some routes take both. */
  accessToken?: string;
  /** Retries of a 429, 503 or network failure (only of requests safe to repeat); default 2. */
  maxRetries?: number;
  /** The fetch every attempt goes through (default: the global fetch). */
  fetch?: Fetch;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type PathOf<M extends Method> = ClientPathsWithMethod<Client<paths>, M>;
type InitOf<P extends keyof paths, M extends Method> = MaybeOptionalInit<paths[P], M>;
/** The init argument is optional exactly when the operation has no required parameter or body (as openapi-fetch's). */
type InitArgs<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];
type SuccessData<P extends keyof paths, M extends Method, Init> = Exclude<
  FetchResponse<paths[P][M] & Record<string | number, unknown>, Init, MediaType>['data'],
  undefined
>;

/** Calls one operation and resolves with its success body (nothing for a 204), or throws BillingApiError. */
export type DataMethod<M extends Method> = <P extends PathOf<M>, Init extends InitOf<P, M>>(
  path: P,
  ...init: InitArgs<Init>
) => Promise<[SuccessData<P, M, Init>] extends [never] ? void : SuccessData<P, M, Init>>;

/**
 * The API's client. `get`/`post`/`put`/`patch`/`delete` resolve with the typed success body and throw
 * BillingApiError on any other answer; `GET`/`POST`/`PUT`/`PATCH`/`DELETE` are openapi-fetch's own, which
 * resolve with `{ data, error, response }` whatever the status.
 */
export type BillingClient = Client<paths> & {
  get: DataMethod<'get'>;
  post: DataMethod<'post'>;
  put: DataMethod<'put'>;
  patch: DataMethod<'patch'>;
  delete: DataMethod<'delete'>;
};

const DEFAULT_MAX_RETRIES = 2;

export function createBillingClient(options: BillingClientOptions): BillingClient {
  const fetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: {
      ...(options.apiKey ? { 'X-Api-Key': options.apiKey } : {}),
      ...(options.accessToken ? { Authorization: `Bearer ${options.accessToken}` } : {}),
    },
    fetch: retryingFetch(fetch, { maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES }),
  });
  client.use(idempotencyKeys);

  const dataMethod = <M extends Method>(method: M): DataMethod<M> =>
    (async (path: string, init?: Record<string, unknown>) => {
      const request = client.request as (
        method: string,
        path: string,
        init?: Record<string, unknown>,
      ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
      const { data, error, response } = await request(method, path, init);
      if (!response.ok) throw new BillingApiError(method, path, response, error);
      return data;
    }) as DataMethod<M>;

  return Object.assign(client, {
    get: dataMethod('get'),
    post: dataMethod('post'),
    put: dataMethod('put'),
    patch: dataMethod('patch'),
    delete: dataMethod('delete'),
  });
}
