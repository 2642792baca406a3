import { createHash } from 'node:crypto';
import type { Request } from 'express';
import type { ApiKeyPrincipal } from '../auth/api-key-cache';
import {
  runRoute,
  type AuthScheme,
  type MountedRoute,
  type Principal,
  type Route,
  type RouteInput,
} from '../http/route';
import type { AuthenticatedMerchant } from '../middleware/auth';

/**
 * Who the dashboard acts for: the signed-in merchant and, for the project's routes, the project
 * and mode the switches chose. The project is one the merchant owns: the session only ever holds a
 * project identity's GetProject answered for this merchant (dashboard.router.ts, the switch).
 */
export interface DashboardCaller {
  merchant: AuthenticatedMerchant;
  projectId: string;
  livemode: boolean;
}

/**
 * The API key id the dashboard's calls carry: none of the project's keys (they may all be revoked
 * while the merchant still signs in), a stable id of the dashboard acting for this merchant in this
 * project and mode, shaped like a key id.
 */
export function dashboardKeyId(caller: Pick<DashboardCaller, 'merchant' | 'projectId' | 'livemode'>): string {
  const hex = createHash('sha256')
    .update(`dashboard:${caller.merchant.id}:${caller.projectId}:${caller.livemode ? 'live' : 'test'}`, 'utf8')
    .digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** What an API key of the chosen project and mode would have proved: its project, merchant and mode. */
export const apiKeyPrincipalOf = (caller: DashboardCaller): ApiKeyPrincipal => ({
  keyId: dashboardKeyId(caller),
  projectId: caller.projectId,
  merchantId: caller.merchant.id,
  livemode: caller.livemode,
});

/** The principal an API route of scheme `scheme` would have had from the merchant's token and the project's key. */
function principalOf(scheme: AuthScheme, caller: DashboardCaller | undefined): Principal<AuthScheme> {
  if (scheme === 'none') return {};
  if (!caller) throw new Error(`a ${scheme} operation called without a signed-in merchant`);
  const apiKey = apiKeyPrincipalOf(caller);
  if (scheme === 'jwt') return { merchant: caller.merchant };
  if (scheme === 'apiKey') return { apiKey };
  return { merchant: caller.merchant, apiKey };
}

/**
 * The public API's operations, called in-process by the dashboard's pages (docs/decisions.md,
 * "Dashboard: server-rendered pages of the gateway that call the API's own operations"): the
 * route of an operationId from the gateway's own table, its input validated with that route's
 * schemas and its handler run as router.ts runs it. Its errors are the route's (HttpError,
 * RequestValidationError, a service's status), which the pages map with the API's one table.
 * So every figure on a page is what the API answers, and no rule is written twice.
 */
export class DashboardApi {
  private readonly routes = new Map<string, Route>();

  constructor(
    mounted: MountedRoute[],
    private readonly checkResponses: boolean,
  ) {
    for (const { route, alias } of mounted) if (!alias) this.routes.set(route.operationId, route);
  }

  /**
   * Runs `operationId` as `caller` (none for the public routes: login). `T` is the route's answer
   * as its response schema writes it (z.input of that schema).
   */
  async call<T>(operationId: string, caller: DashboardCaller | undefined, input: RouteInput, req: Request): Promise<T> {
    const route = this.routes.get(operationId);
    if (!route) throw new Error(`the API has no operation ${operationId}`);
    return (await runRoute(route, principalOf(route.auth, caller), input, req, this.checkResponses)) as T;
  }
}
