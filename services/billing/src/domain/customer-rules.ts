import { DomainError, type FieldViolation } from '@billing/platform';

const MAX_METADATA_KEYS = 50;
const MAX_NAME_LENGTH = 200;
/** Deliberately loose (one @, a dot in the domain): the provider is the final judge of a mailbox. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const isValidEmail = (email: string) => EMAIL.test(email);

/** Customers are unique per project and mode by e-mail, whatever its case. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export interface CustomerFields {
  email?: string;
  name?: string;
  metadata?: Record<string, unknown>;
}

/**
 * Checks the fields a caller sent (the gateway checks shapes first; this is the authority for
 * every gRPC caller) and returns them trimmed.
 */
export function validateCustomerFields(fields: CustomerFields, options: { emailRequired: boolean }): CustomerFields {
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
  if (violations.length) throw DomainError.invalid(violations);
  return { email, name: name === '' ? undefined : name, metadata: fields.metadata };
}
