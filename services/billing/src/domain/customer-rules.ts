import { checkedPostalAddress, clearedFields, DomainError, textLengthViolation } from '@billing/platform';
import type { FieldViolation, PostalAddress, PostalAddressInput } from '@billing/platform';
import { DOCUMENT_LOCALES, type DocumentLocale } from './invoice-parties';

const MAX_METADATA_KEYS = 50;
const MAX_NAME_LENGTH = 200;
/** The longest tax ID (characters, after trimming), as the seller's (docs/api-behaviour.md §22). */
const MAX_TAX_ID_LENGTH = 40;
/** The buyer details a PATCH may clear with null. */
const CLEARABLE_BUYER_DETAILS = ['address', 'tax_id'] as const;
/** Deliberately loose (one @, a dot in the domain): the provider is the final judge of a mailbox. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const isValidEmail = (email: string) => EMAIL.test(email);

/** Customers are unique per project and mode by e-mail, whatever its case. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export interface CustomerFields {
  email?: string;
  /** An empty name clears it (a PATCH). */
  name?: string;
  metadata?: Record<string, unknown>;
  /** Buyer details (docs/api-behaviour.md §22). */
  address?: PostalAddressInput;
  taxId?: string;
  preferredLocale?: string;
  /** Buyer details sent as null to clear them (a PATCH): `address` or `tax_id`. */
  clearedFields?: string[];
}

/** The fields as they are kept: trimmed; a buyer detail null when cleared, undefined when not sent. */
export interface CheckedCustomerFields {
  email?: string;
  name?: string;
  metadata?: Record<string, unknown>;
  address?: PostalAddress | null;
  taxId?: string | null;
  preferredLocale?: DocumentLocale;
}

/**
 * Checks the fields a caller sent (the gateway checks shapes first; this is the authority for
 * every gRPC caller) and returns them trimmed; every problem at once (422).
 */
export function validateCustomerFields(
  fields: CustomerFields,
  options: { emailRequired: boolean },
): CheckedCustomerFields {
  const violations: FieldViolation[] = [];
  const email = fields.email?.trim();
  if (email === undefined || email === '') {
    if (options.emailRequired) violations.push({ loc: ['body', 'email'], msg: 'Field required', type: 'missing' });
  } else if (!isValidEmail(email)) {
    violations.push({
      loc: ['body', 'email'],
      msg: 'value is not a valid email address',
      type: 'value_error',
      input: email,
    });
  }
  const name = fields.name?.trim();
  if (name !== undefined && name.length > MAX_NAME_LENGTH) {
    violations.push({
      loc: ['body', 'name'],
      msg: `String should have at most ${MAX_NAME_LENGTH} characters`,
      type: 'string_too_long',
      ctx: { max_length: MAX_NAME_LENGTH },
    });
  }
  if (fields.metadata && Object.keys(fields.metadata).length > MAX_METADATA_KEYS) {
    violations.push({
      loc: ['body', 'metadata'],
      msg: `Metadata can have at most ${MAX_METADATA_KEYS} keys`,
      type: 'too_long',
      ctx: { max_length: MAX_METADATA_KEYS },
    });
  }
  const buyer = buyerDetails(fields, violations);
  if (violations.length) throw DomainError.invalid(violations);
  return { email, name: name === '' ? undefined : name, metadata: fields.metadata, ...buyer };
}

/** The buyer details of a request, checked as the seller's are (docs/api-behaviour.md §22). */
function buyerDetails(
  fields: CustomerFields,
  violations: FieldViolation[],
): Pick<CheckedCustomerFields, 'address' | 'taxId' | 'preferredLocale'> {
  const checked: Pick<CheckedCustomerFields, 'address' | 'taxId' | 'preferredLocale'> = {};
  if (fields.address !== undefined)
    checked.address = checkedPostalAddress(fields.address, ['body', 'address'], violations);
  if (fields.taxId !== undefined) {
    const problem = textLengthViolation(fields.taxId, ['body', 'tax_id'], MAX_TAX_ID_LENGTH);
    if (problem) violations.push(problem);
    else checked.taxId = fields.taxId.trim();
  }
  if (fields.preferredLocale !== undefined) {
    const locale = DOCUMENT_LOCALES.find((l) => l === fields.preferredLocale);
    if (locale) checked.preferredLocale = locale;
    else {
      violations.push({
        loc: ['body', 'preferred_locale'],
        msg: `Input should be ${DOCUMENT_LOCALES.map((l) => `'${l}'`).join(' or ')}`,
        type: 'enum',
        input: fields.preferredLocale,
      });
    }
  }
  const isSet = (field: (typeof CLEARABLE_BUYER_DETAILS)[number]) =>
    (field === 'address' ? fields.address : fields.taxId) !== undefined;
  const cleared = clearedFields(
    fields.clearedFields ?? [],
    CLEARABLE_BUYER_DETAILS,
    isSet,
    'the address or the tax ID',
    violations,
  );
  if (cleared.includes('address')) checked.address = null;
  if (cleared.includes('tax_id')) checked.taxId = null;
  return checked;
}
