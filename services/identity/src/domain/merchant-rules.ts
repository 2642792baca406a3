import { DomainError, type FieldViolation } from '@billing/platform';

export const MIN_PASSWORD_LENGTH = 8;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export { isUuid } from '@billing/platform';

/** An e-mail address's form (one @, a dot in the domain, no spaces): the mail server says the rest. */
export const isEmailAddress = (value: string): boolean => EMAIL.test(value.trim());

/** Emails compare case-insensitively (docs/api-behaviour.md §3). */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export function passwordViolation(password: string, field = 'password'): FieldViolation | null {
  if (password.length >= MIN_PASSWORD_LENGTH) return null;
  return {
    loc: ['body', field],
    msg: `String should have at least ${MIN_PASSWORD_LENGTH} characters`,
    type: 'string_too_short',
    ctx: { min_length: MIN_PASSWORD_LENGTH },
  };
}

export function assertRegistration(input: { email: string; businessName: string; password: string }): void {
  const violations: FieldViolation[] = [];
  if (!isEmailAddress(input.email)) {
    violations.push({
      loc: ['body', 'email'],
      msg: 'value is not a valid email address',
      type: 'value_error',
      input: input.email,
    });
  }
  if (input.businessName.trim().length === 0 || input.businessName.length > 200) {
    violations.push({
      loc: ['body', 'business_name'],
      msg: 'String should have 1 to 200 characters',
      type: 'value_error',
    });
  }
  const pw = passwordViolation(input.password);
  if (pw) violations.push(pw);
  if (violations.length) throw DomainError.invalid(violations);
}

export function assertName(name: string, field: string): void {
  if (name.trim().length === 0 || name.length > 200) {
    throw DomainError.invalid([
      { loc: ['body', field], msg: 'String should have 1 to 200 characters', type: 'value_error', input: name },
    ]);
  }
}
