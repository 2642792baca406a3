/**
 * Deny by default: every /api/v1 route declares its credentials, and a route may declare none
 * only if it is listed here. Mounting fails at start-up otherwise, so a forgotten `auth` can
 * never quietly publish an endpoint.
 */
export const PUBLIC_ROUTES: ReadonlySet<string> = new Set(['POST /api/v1/auth/register', 'POST /api/v1/auth/login']);
