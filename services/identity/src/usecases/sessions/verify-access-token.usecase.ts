import { DomainError } from '@billing/platform';
import { requireActiveMerchant } from '../../access/require-active-merchant';
import type { MerchantModel } from '../../db/models';
import { verifyAccessToken as verifyToken } from '../../domain/access-token';
import type { IdentityDeps } from '../../identity-deps';

export async function verifyAccessToken(deps: IdentityDeps, token: string): Promise<MerchantModel> {
  const claims = verifyToken(token, deps.jwt.secret, deps.clock.now());
  if (!claims) throw new DomainError('unauthenticated', 'Invalid or expired access token');
  return requireActiveMerchant(deps, claims.sub);
}
