import { DomainError } from '@billing/platform';
import { requireActiveMerchant } from '../../access/require-active-merchant';
import type { MerchantModel } from '../../db/models';
import { assertName, passwordViolation } from '../../domain/merchant-rules';
import { sameSeller, sellerDetailsPatch, withSellerPatch, type SellerDetailsInput } from '../../domain/seller-details';
import type { IdentityDeps } from '../../identity-deps';
import { recordSellerDetails } from '../../seller-details/record-seller-details';

export interface UpdateMerchantCommand {
  businessName?: string;
  password?: string;
  currentPassword?: string;
  /** Seller details to set or clear (docs/api-behaviour.md §22). */
  seller: SellerDetailsInput;
}

/**
 * A merchant's own edit. A change of the seller (a seller detail or the business name,
 * docs/api-behaviour.md §22) records merchant.seller_details_updated in the same transaction, so a
 * copy of the seller kept from the events (billing's, for invoices) never misses a committed
 * change nor sees one rolled back.
 */
export async function updateMerchant(
  deps: IdentityDeps,
  merchantId: string,
  input: UpdateMerchantCommand,
): Promise<MerchantModel> {
  const merchant = await requireActiveMerchant(deps, merchantId);
  if (input.businessName !== undefined) assertName(input.businessName, 'business_name');
  const sellerPatch = sellerDetailsPatch(input.seller);
  let passwordHash: string | undefined;
  if (input.password !== undefined) {
    const weak = passwordViolation(input.password);
    if (weak) throw DomainError.invalid([weak]);
    if (input.currentPassword === undefined) {
      throw DomainError.invalid([
        { loc: ['body', 'current_password'], msg: 'Field required when changing the password', type: 'missing' },
      ]);
    }
    // Hashing takes a while: done before the transaction, so the merchant's row is not held meanwhile.
    if (!(await deps.passwords.verify(input.currentPassword, merchant.passwordHash))) {
      throw new DomainError('failed_precondition', 'Current password is incorrect');
    }
    passwordHash = await deps.passwords.hash(input.password);
  }
  return deps.sequelize.transaction(async (transaction) => {
    const current = await deps.merchants.lockForUpdate(merchantId, transaction);
    if (!current?.isActive) throw new DomainError('permission_denied', 'Merchant account is deactivated');
    const seller = {
      businessName: input.businessName?.trim() ?? current.businessName,
      ...withSellerPatch(current, sellerPatch),
    };
    const sellerChanged = !sameSeller(current, seller);
    // Strictly after the last change, whatever this replica's clock says: the event's updated_at
    // then orders a merchant's sellers (docs/events-and-test-mode.md, "Internal events").
    const now = new Date(Math.max(deps.clock.now().getTime(), current.updatedAt.getTime() + 1));
    const updated = await deps.merchants.update(
      current,
      { ...seller, ...(passwordHash === undefined ? {} : { passwordHash }) },
      now,
      transaction,
    );
    if (sellerChanged) await recordSellerDetails(deps, updated, transaction);
    return updated;
  });
}
