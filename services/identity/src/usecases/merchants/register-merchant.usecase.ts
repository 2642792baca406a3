import { randomUUID } from 'node:crypto';
import { DomainError } from '@billing/platform';
import type { MerchantModel } from '../../db/models';
import { signAccessToken } from '../../domain/access-token';
import { assertRegistration } from '../../domain/merchant-rules';
import type { IdentityDeps } from '../../identity-deps';
import { createProjectWithKeys, type CreatedProject } from '../../provisioning/create-project-with-keys';

export interface RegistrationResult extends CreatedProject {
  merchant: MerchantModel;
  accessToken: string;
}

/** Merchant + first project (named after the business) + test and live keys, all or nothing. */
export async function registerMerchant(
  deps: IdentityDeps,
  input: { email: string; businessName: string; password: string },
): Promise<RegistrationResult> {
  assertRegistration(input);
  const passwordHash = await deps.passwords.hash(input.password);
  const now = deps.clock.now();
  try {
    return await deps.sequelize.transaction(async (transaction) => {
      const merchant = await deps.merchants.create(
        {
          id: randomUUID(),
          email: input.email.trim(),
          businessName: input.businessName.trim(),
          passwordHash,
          createdAt: now,
        },
        transaction,
      );
      const created = await createProjectWithKeys(deps, merchant.id, merchant.businessName, transaction);
      const accessToken = signAccessToken(merchant.id, deps.jwt.secret, deps.jwt.ttlSeconds, now);
      return { merchant, accessToken, ...created };
    });
  } catch (err) {
    if ((err as { name?: string }).name === 'SequelizeUniqueConstraintError') {
      throw new DomainError('already_exists', 'A merchant with this email is already registered');
    }
    throw err;
  }
}
