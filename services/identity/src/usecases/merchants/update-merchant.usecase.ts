import { DomainError } from '@billing/platform';
import { requireActiveMerchant } from '../../access/require-active-merchant';
import type { MerchantModel } from '../../db/models';
import { assertName, passwordViolation } from '../../domain/merchant-rules';
import type { IdentityDeps } from '../../identity-deps';

export async function updateMerchant(
  deps: IdentityDeps,
  merchantId: string,
  input: { businessName?: string; password?: string; currentPassword?: string },
): Promise<MerchantModel> {
  const merchant = await requireActiveMerchant(deps, merchantId);
  const changes: { businessName?: string; passwordHash?: string } = {};
  if (input.businessName !== undefined) {
    assertName(input.businessName, 'business_name');
    changes.businessName = input.businessName.trim();
  }
  if (input.password !== undefined) {
    const weak = passwordViolation(input.password);
    if (weak) throw DomainError.invalid([weak]);
    if (input.currentPassword === undefined) {
      throw DomainError.invalid([
        { loc: ['body', 'current_password'], msg: 'Field required when changing the password', type: 'missing' },
      ]);
    }
    if (!(await deps.passwords.verify(input.currentPassword, merchant.passwordHash))) {
      throw new DomainError('failed_precondition', 'Current password is incorrect');
    }
    changes.passwordHash = await deps.passwords.hash(input.password);
  }
  return deps.merchants.update(merchant, changes, deps.clock.now());
}
