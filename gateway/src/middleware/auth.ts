import type { Request, RequestHandler } from 'express';
import type { identityV1 } from '@billing/proto';
import type { ApiKeyCache, ApiKeyPrincipal } from '../auth/api-key-cache';
import type { IdentityClient } from '../clients/identity.client';
import { HttpError } from '../http/http-error';

export type AuthenticatedMerchant = identityV1.Merchant;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by the auth middleware of the route; what each scheme proved. */
      auth?: { merchant?: AuthenticatedMerchant; apiKey?: ApiKeyPrincipal };
    }
  }
}

export interface AuthDeps {
  identity: IdentityClient;
  apiKeyCache: ApiKeyCache;
}

const API_KEY_HEADER = 'x-api-key';

function bearerToken(req: Request): string {
  const header = req.get('authorization');
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match)
    throw new HttpError(401, 'Not authenticated: send Authorization: Bearer <access token>', {
      'WWW-Authenticate': 'Bearer',
    });
  return match[1];
}

function apiKeyHeader(req: Request): string {
  const key = req.get(API_KEY_HEADER)?.trim();
  if (!key) throw new HttpError(401, 'Not authenticated: send the X-Api-Key header');
  return key;
}

/** Identity decides every case: UNAUTHENTICATED (unknown, revoked) -> 401, PERMISSION_DENIED (disabled, deactivated) -> 403. */
async function verifyKey(deps: AuthDeps, key: string): Promise<ApiKeyPrincipal> {
  return deps.apiKeyCache.verify(key, () => deps.identity.verifyApiKey({ key }));
}

/** Tokens are checked with identity on every request: a deactivated merchant's token stops working at once. */
export async function verifyToken(
  deps: Pick<AuthDeps, 'identity'>,
  accessToken: string,
): Promise<AuthenticatedMerchant> {
  const { merchant } = await deps.identity.verifyAccessToken({ accessToken });
  if (!merchant) throw new Error('identity answered VerifyAccessToken without a merchant');
  return merchant;
}

/** X-Api-Key: project-scoped routes (plans, customers, ...). */
export function apiKeyAuth(deps: AuthDeps): RequestHandler {
  return async (req, _res, next) => {
    req.auth = { apiKey: await verifyKey(deps, apiKeyHeader(req)) };
    next();
  };
}

/** Authorization: Bearer: merchant management, projects, API keys. */
export function jwtAuth(deps: AuthDeps): RequestHandler {
  return async (req, _res, next) => {
    req.auth = { merchant: await verifyToken(deps, bearerToken(req)) };
    next();
  };
}

/**
 * Both headers (docs/api-behaviour.md §3): each missing one is a 401; both are verified, and the key's
 * project must belong to the token's merchant, else 403. A key problem is reported before a
 * token problem so that the answer does not depend on which check finished first.
 */
export function dualAuth(deps: AuthDeps): RequestHandler {
  return async (req, _res, next) => {
    const key = apiKeyHeader(req);
    const token = bearerToken(req);
    const [apiKey, merchant] = await Promise.allSettled([verifyKey(deps, key), verifyToken(deps, token)]);
    if (apiKey.status === 'rejected') throw apiKey.reason;
    if (merchant.status === 'rejected') throw merchant.reason;
    if (apiKey.value.merchantId !== merchant.value.id) {
      throw new HttpError(403, 'The API key belongs to a project of another merchant');
    }
    req.auth = { apiKey: apiKey.value, merchant: merchant.value };
    next();
  };
}
