import { z } from 'zod';
import { postalAddressMessage, postalAddressOfMessage } from '@billing/platform';
import type { identityV1 } from '@billing/proto';
import {
  boundedText,
  displayName,
  EXAMPLE,
  iso,
  nullFields,
  PostalAddressBody,
  PostalAddressSchema,
  setTo,
  taxIdText,
  timestamp,
} from '../common.schemas';

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

/** The merchant as the seller on its invoice documents (docs/api-behaviour.md §22); null until given. */
const sellerDetails = {
  legal_name: z
    .string()
    .nullable()
    .meta({ description: 'The seller\u2019s name on invoice documents; `business_name` when null' }),
  address: PostalAddressSchema.nullable(),
  tax_id: z.string().nullable(),
  support_email: z.string().nullable().meta({ description: 'Where customers write about their invoices' }),
  invoice_footer: z.string().nullable().meta({ description: 'Shown at the foot of invoice documents' }),
};

export const MerchantProfileSchema = MerchantSchema.extend({ created_at: timestamp, ...sellerDetails }).meta({
  id: 'MerchantProfile',
});

/** The seller details a PATCH may set, or clear with null. */
const SELLER_DETAIL_FIELDS = ['legal_name', 'address', 'tax_id', 'support_email', 'invoice_footer'] as const;

const NULL_CLEARS = 'null clears it';

export const UpdateMerchantBody = z
  .object({
    business_name: displayName.optional(),
    password: password.optional(),
    current_password: z.string().optional().meta({ description: 'Required together with `password`' }),
    legal_name: boundedText(100)
      .nullable()
      .optional()
      .meta({ description: `1..100 characters; ${NULL_CLEARS}` }),
    address: PostalAddressBody.nullable()
      .optional()
      .meta({ description: `Replaced as a whole; ${NULL_CLEARS}` }),
    tax_id: taxIdText
      .nullable()
      .optional()
      .meta({ description: `1..40 characters (a VAT or tax number); ${NULL_CLEARS}` }),
    support_email: z
      .email()
      .max(254)
      .nullable()
      .optional()
      .meta({ description: `An e-mail address; ${NULL_CLEARS}` }),
    invoice_footer: boundedText(500)
      .nullable()
      .optional()
      .meta({ description: `1..500 characters; ${NULL_CLEARS}` }),
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
  legal_name: merchant.legalName ?? null,
  address: merchant.address ? postalAddressOfMessage(merchant.address) : null,
  tax_id: merchant.taxId ?? null,
  support_email: merchant.supportEmail ?? null,
  invoice_footer: merchant.invoiceFooter ?? null,
});

/** A PATCH as identity takes it: the values to set, and the seller details sent as null to clear. */
export const updateMerchantRequest = (
  merchantId: string,
  body: z.output<typeof UpdateMerchantBody>,
): identityV1.UpdateMerchantRequest => ({
  merchantId,
  businessName: body.business_name,
  password: body.password,
  currentPassword: body.current_password,
  legalName: setTo(body.legal_name),
  address: body.address ? postalAddressMessage(body.address) : undefined,
  taxId: setTo(body.tax_id),
  supportEmail: setTo(body.support_email),
  invoiceFooter: setTo(body.invoice_footer),
  clearedFields: nullFields(body, SELLER_DETAIL_FIELDS),
});

export const merchantExample = {
  id: EXAMPLE.merchantId,
  email: 'owner@acme.example',
  business_name: 'Acme Fitness',
  is_active: true,
  is_verified: false,
} satisfies z.input<typeof MerchantSchema>;

/** The seller details of the document's story: the merchant of EXAMPLE. */
export const sellerDetailsExample = {
  legal_name: 'Acme Fitness Studios Limited',
  address: {
    line1: '12 Admiralty Way',
    line2: 'Lekki Phase 1',
    city: 'Lagos',
    state: 'Lagos',
    postal_code: '106104',
    country: 'NG',
  },
  tax_id: '12345678-0001',
  support_email: 'billing@acme.example',
  invoice_footer: 'Thank you for training with us. Questions: billing@acme.example',
} satisfies Partial<z.input<typeof MerchantProfileSchema>>;

export const merchantProfileExample = {
  ...merchantExample,
  created_at: EXAMPLE.createdAt,
  ...sellerDetailsExample,
} satisfies z.input<typeof MerchantProfileSchema>;
