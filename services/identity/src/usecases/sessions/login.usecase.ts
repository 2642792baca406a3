import { DomainError } from '@billing/platform';
import { signAccessToken } from '../../domain/access-token';
import { normalizeEmail } from '../../domain/merchant-rules';
import type { IdentityDeps } from '../../identity-deps';

const INVALID_CREDENTIALS = 'Incorrect email or password';

/** One answer for an unknown email and a wrong password, in the same time. */
export async function login(deps: IdentityDeps, input: { email: string; password: string }): Promise<string> {
  const merchant = await deps.merchants.findByEmail(normalizeEmail(input.email));
  const ok = merchant
    ? await deps.passwords.verify(input.password, merchant.passwordHash)
    : await deps.passwords.verifyAgainstDummy(input.password);
  if (!merchant || !ok) throw new DomainError('unauthenticated', INVALID_CREDENTIALS);
  if (!merchant.isActive) throw new DomainError('permission_denied', 'Merchant account is deactivated');
  return signAccessToken(merchant.id, deps.jwt.secret, deps.jwt.ttlSeconds, deps.clock.now());
}
