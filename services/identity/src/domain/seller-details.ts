import {
  checkedPostalAddress,
  clearedFields,
  DomainError,
  postalAddressOf,
  textLengthViolation,
  type FieldViolation,
  type PostalAddress,
  type PostalAddressInput,
} from '@billing/platform';
import { isEmailAddress } from './merchant-rules';

/** What invoices print about the seller besides its business name (docs/api-behaviour.md §22); null = not given. */
export interface SellerDetails {
  legalName: string | null;
  address: PostalAddress | null;
  taxId: string | null;
  supportEmail: string | null;
  invoiceFooter: string | null;
}

/** The API's names of the seller details: the fields a PATCH may set or clear with null. */
const SELLER_DETAIL_FIELDS = ['legal_name', 'address', 'tax_id', 'support_email', 'invoice_footer'] as const;
type SellerDetailField = (typeof SELLER_DETAIL_FIELDS)[number];

const FIELD_KEYS: Record<SellerDetailField, keyof SellerDetails> = {
  legal_name: 'legalName',
  address: 'address',
  tax_id: 'taxId',
  support_email: 'supportEmail',
  invoice_footer: 'invoiceFooter',
};

/** The longest text of each field (characters, after trimming), docs/api-behaviour.md §22. */
const SELLER_TEXT_LIMITS = { legal_name: 100, tax_id: 40, support_email: 254, invoice_footer: 500 } as const;

/** A change of seller details as a request asks it: values to set, and the names of fields to clear. */
export interface SellerDetailsInput {
  legalName?: string;
  address?: PostalAddressInput;
  taxId?: string;
  supportEmail?: string;
  invoiceFooter?: string;
  clearedFields: string[];
}

/** A checked change: a field left out stays as it is, null clears it. */
export type SellerDetailsPatch = { [K in keyof SellerDetails]?: SellerDetails[K] };

/** Checks a requested change against the rules of §22 and returns it trimmed; every problem at once (422). */
export function sellerDetailsPatch(input: SellerDetailsInput): SellerDetailsPatch {
  const violations: FieldViolation[] = [];
  const text = (field: keyof typeof SELLER_TEXT_LIMITS, value: string | undefined): string | undefined => {
    if (value === undefined) return undefined;
    const violation =
      textLengthViolation(value, ['body', field], SELLER_TEXT_LIMITS[field]) ??
      (field === 'support_email' && !isEmailAddress(value)
        ? { loc: ['body', field], msg: 'value is not a valid email address', type: 'value_error', input: value }
        : null);
    if (violation) violations.push(violation);
    return violation ? undefined : value.trim();
  };
  const address = (value: PostalAddressInput | undefined): PostalAddress | undefined =>
    value && checkedPostalAddress(value, ['body', 'address'], violations);
  // In the order of the API's fields, as the gateway reports them.
  const patch: SellerDetailsPatch = {
    legalName: text('legal_name', input.legalName),
    address: address(input.address),
    taxId: text('tax_id', input.taxId),
    supportEmail: text('support_email', input.supportEmail),
    invoiceFooter: text('invoice_footer', input.invoiceFooter),
  };
  const isSet = (field: SellerDetailField) => input[FIELD_KEYS[field]] !== undefined;
  for (const field of clearedFields(input.clearedFields, SELLER_DETAIL_FIELDS, isSet, 'a seller detail', violations)) {
    patch[FIELD_KEYS[field]] = null;
  }
  if (violations.length > 0) throw DomainError.invalid(violations);
  return patch;
}

/** The details with the change applied. */
export const withSellerPatch = (details: SellerDetails, patch: SellerDetailsPatch): SellerDetails => ({
  legalName: patch.legalName === undefined ? details.legalName : patch.legalName,
  address: patch.address === undefined ? details.address : patch.address,
  taxId: patch.taxId === undefined ? details.taxId : patch.taxId,
  supportEmail: patch.supportEmail === undefined ? details.supportEmail : patch.supportEmail,
  invoiceFooter: patch.invoiceFooter === undefined ? details.invoiceFooter : patch.invoiceFooter,
});

/** The name invoices print for the seller: its legal name, else its business name (§22). */
export const sellerName = (legalName: string | null, businessName: string): string => legalName ?? businessName;

/** Whether two sellers print the same: the business name and every detail alike. */
export function sameSeller(
  a: SellerDetails & { businessName: string },
  b: SellerDetails & { businessName: string },
): boolean {
  // postalAddressOf puts the address's keys in one order: jsonb gives them back in its own.
  const printed = (s: SellerDetails & { businessName: string }) =>
    JSON.stringify([
      s.businessName,
      s.legalName,
      s.address && postalAddressOf(s.address),
      s.taxId,
      s.supportEmail,
      s.invoiceFooter,
    ]);
  return printed(a) === printed(b);
}
