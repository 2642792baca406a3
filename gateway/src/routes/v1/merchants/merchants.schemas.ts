import { z } from 'zod';
import type { identityV1 } from '@billing/proto';
import { displayName, EXAMPLE, iso, timestamp } from '../common.schemas';

export const MIN_PASSWORD_LENGTH = 8;

export const password = z.string().min(MIN_PASSWORD_LENGTH);

export const MerchantSchema = z
  .object({
    id: z.uuid(),
    email: z.string(),
    business_name: z.string(),
    is_active: z.boolean(),
    is_verified: z.boolean(),
  })
  .meta({ id: 'Merchant' });

export const MerchantProfileSchema = MerchantSchema.extend({ created_at: timestamp }).meta({ id: 'MerchantProfile' });

export const UpdateMerchantBody = z
  .object({
    business_name: displayName.optional(),
    password: password.optional(),
    current_password: z.string().optional().meta({ description: 'Required together with `password`' }),
  })
  .superRefine((body, ctx) => {
    if (body.password !== undefined && body.current_password === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['current_password'],
        message: 'Field required when changing the password',
        params: { type: 'missing' },
      });
    }
  })
  .meta({ id: 'UpdateMerchantRequest' });

export function toMerchant(merchant: identityV1.Merchant): z.input<typeof MerchantSchema> {
  return {
    id: merchant.id,
    email: merchant.email,
    business_name: merchant.businessName,
    is_active: merchant.isActive,
    is_verified: merchant.isVerified,
  };
}

export const toMerchantProfile = (merchant: identityV1.Merchant): z.input<typeof MerchantProfileSchema> => ({
  ...toMerchant(merchant),
  created_at: iso(merchant.createdAt),
});

export const merchantExample = {
  id: EXAMPLE.merchantId,
  email: 'owner@acme.example',
  business_name: 'Acme Fitness',
  is_active: true,
  is_verified: false,
} satisfies z.input<typeof MerchantSchema>;

export const merchantProfileExample = {
  ...merchantExample,
  created_at: EXAMPLE.createdAt,
} satisfies z.input<typeof MerchantProfileSchema>;
